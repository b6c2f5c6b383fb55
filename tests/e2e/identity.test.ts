import type { Browser, Page, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'

const baseURL = inject('baseURL')
let browser: Browser
/** An account for the tests that only log in to one, registered once: hashing a password takes a while. */
let account: string
beforeAll(async () => {
  browser = await launchBrowser()
  account = uniqueEmail('account')
  const page = await newVisitor(true)
  await registerAndLand(page, account)
  await page.context().close()
})
afterAll(() => browser?.close())

// Spelled out rather than imported from the app, so that a changed wording fails here.
const messages = {
  emailMissing: 'Please type your email',
  emailInvalid: 'Please enter a valid email address, like name@example.com.',
  passwordCommon:
    'This password is one of the 10,000 most common passwords, which attackers try first. Please choose another.',
  emailInUse: 'Email is already in use. Please use another email.',
  loginFailed: 'Login failed. Please check your credentials.',
}
const password = 'correct horse battery staple'
const signedOutItems = ['All eBooks', 'Login', 'Register']
const accountItems = ['All eBooks', 'My Library', 'My orders', 'My Wishlist', 'Account settings', 'Log out']
const guestItems = ['All eBooks', 'Register', 'Log out']
const bookA = 'Django Framework'
const bookB = 'The Future of Design Systems'
const bookC = 'Build a Blockchain from Scratch in Go'

function uniqueEmail(name: string) {
  return `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`
}

// Anchored at the host: the login URLs themselves carry 'evil.example' in their query.
const offSite = /^https?:\/\/evil\.example\//

const scripts = new WeakMap<Page, boolean>()

async function newVisitor(javaScriptEnabled: boolean, options: { colorScheme?: 'light' | 'dark' } = {}) {
  const page = await newPage(browser, { javaScriptEnabled, ...options })
  scripts.set(page, javaScriptEnabled)
  return page
}

/**
 * Runs `act`, which posts a form, and returns the answer to that post. Without JavaScript it also waits
 * for the document that answer loaded: the URL alone cannot tell, as a refused form comes back to its own.
 */
async function submit(page: Page, act: () => Promise<void>): Promise<Response> {
  const answered = page.waitForResponse((response) => response.request().method() === 'POST')
  const loaded = scripts.get(page) === false ? page.waitForEvent('load') : undefined
  const [response] = await Promise.all([answered, loaded, act()])
  return response
}

const emailField = (page: Page) => page.getByLabel('Email', { exact: true })
const passwordField = (page: Page) => page.getByLabel('Password', { exact: true })

/**
 * The field is marked invalid and `message` is among the texts its aria-describedby points to. With
 * JavaScript, the `first` invalid field has the focus.
 */
async function expectFieldError(
  page: Page,
  label: 'Email' | 'Password',
  message: string,
  { first = true }: { first?: boolean } = {},
) {
  const field = page.getByLabel(label, { exact: true })
  await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true')
  // Polled: the answer to the post arrives before the page shows it, and the field may still be
  // marked invalid with the previous message.
  const descriptions = async () => {
    const ids = (await field.getAttribute('aria-describedby'))?.split(' ') ?? []
    return Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))
  }
  await expect.poll(descriptions).toContain(message)
  if (first && scripts.get(page) !== false) await expectFocused(page, label)
}

async function expectFieldValid(page: Page, label: 'Email' | 'Password') {
  expect(await page.getByLabel(label, { exact: true }).getAttribute('aria-invalid')).toBeNull()
}

async function expectFocused(page: Page, label: 'Email' | 'Password') {
  const field = page.getByLabel(label, { exact: true })
  await expect.poll(() => field.evaluate((input) => input === document.activeElement)).toBe(true)
}

/** Fills the register form and posts it; returns the answer to the post. */
async function postRegister(page: Page, email: string, secret: string) {
  await emailField(page).fill(email)
  await passwordField(page).fill(secret)
  return submit(page, () => page.getByRole('button', { name: 'Register', exact: true }).click())
}

async function postLogin(page: Page, email: string, secret: string) {
  await emailField(page).fill(email)
  await passwordField(page).fill(secret)
  return submit(page, () => loginButton(page).click())
}

const loginButton = (page: Page) => page.getByRole('button', { name: 'Login', exact: true })

/**
 * Logs in from `page.url()` and returns the URL it leads to. Waiting only for the URL to change (not for
 * the expected one) makes an off-site redirect fail at once, with the URL it went to. A redirect the
 * browser refuses (CSP form-action, or history.pushState to another origin) leaves the visitor here.
 */
async function logInAndLeave(page: Page, email: string) {
  const from = page.url()
  await emailField(page).fill(email)
  await passwordField(page).fill(password)
  await loginButton(page).click()
  await page
    .waitForURL((url) => url.href !== from, { timeout: 10_000 })
    .catch(() => {
      throw new Error(`logging in did not leave ${from}`)
    })
  return page.url()
}

async function expectOn(page: Page, path: string) {
  await page.waitForURL(`${baseURL}${path}`)
  expect(page.url()).toBe(`${baseURL}${path}`)
}

async function openPersonMenu(page: Page) {
  await page.getByRole('button', { name: 'Account menu' }).click()
  const menu = page.getByRole('menu', { name: 'Account menu' })
  await menu.waitFor()
  return menu
}

/**
 * The person menu names who is signed in (`who`: an email, 'Guest', or null when signed out) and offers
 * `items`. It is polled: after a logout with JavaScript the page updates in place, a moment later.
 */
async function expectPersonMenu(page: Page, who: string | null, items: string[]) {
  const menu = await openPersonMenu(page)
  await expect.poll(() => menu.getByRole('menuitem').allTextContents()).toEqual(items)
  if (who === null) {
    expect(await menu.getByRole('group').count()).toBe(0)
  } else {
    const group = menu.getByRole('group', { name: who, exact: true })
    expect(await group.count()).toBe(1)
    expect(await group.getByText(who, { exact: true }).isVisible()).toBe(true)
    expect(await group.getByRole('menuitem').allTextContents()).toEqual(items)
  }
  await page.keyboard.press('Escape')
  await menu.waitFor({ state: 'hidden' })
}

/** 'Log out' from the person menu: the visitor stays where they were, signed out. */
async function logOutHere(page: Page) {
  // Without JavaScript, adding to the cart leaves a #book-… fragment that only restores the scroll position.
  const withoutFragment = () => page.url().replace(/#.*$/, '')
  const before = withoutFragment()
  const menu = await openPersonMenu(page)
  const response = await submit(page, () => menu.getByRole('menuitem', { name: 'Log out' }).click())
  expect(new URL(response.url()).pathname).toMatch(/^\/logout(\.data)?$/)
  await expectPersonMenu(page, null, signedOutItems)
  expect(withoutFragment()).toBe(before)
}

async function registerAndLand(page: Page, email: string) {
  await visit(page, `${baseURL}/Register`)
  await postRegister(page, email, password)
  await expectOn(page, '/')
}

async function expectBadge(page: Page, count: number) {
  const name = `Cart, ${count} ${count === 1 ? 'book' : 'books'}`
  const cartLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Cart, / })
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name, exact: true })
    .waitFor({ timeout: 5_000 })
    .catch(async () => {
      throw new Error(`expected the badge '${name}', it says '${await cartLink.getAttribute('aria-label')}'`)
    })
}

async function addToCart(page: Page, title: string) {
  const card = page.getByRole('article').filter({ hasText: title })
  await card.getByRole('button', { name: 'Add To Cart' }).click()
  await card.getByRole('button', { name: 'Remove Item' }).waitFor()
}

/** The cart page lists exactly `titles`, each once. */
async function expectCart(page: Page, titles: string[]) {
  await visit(page, `${baseURL}/cart`)
  await page.getByRole('heading', { level: 1, name: `My Cart (${titles.length})` }).waitFor()
  const listed = await page.getByRole('main').getByRole('listitem').getByRole('link').allTextContents()
  expect(listed.toSorted()).toEqual(titles.toSorted())
}

async function sessionCookie(page: Page) {
  const cookies = await page.context().cookies(baseURL)
  return cookies.find((cookie) => cookie.name === 'better-auth.session_token')
}

describe.each([
  ['on', true],
  ['off', false],
] as const)('identity with JavaScript %s', (_, javaScriptEnabled) => {
  test('register: refused for an empty email, a bad email, a common password, then in; a taken email is refused', async () => {
    const page = await newVisitor(javaScriptEnabled)
    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url())
    })
    await visit(page, `${baseURL}/Register`)
    await expectHealthyPage(page)

    // The browser stops an empty form before it is posted; with JavaScript, in the store's words.
    await page.getByRole('button', { name: 'Register', exact: true }).click()
    const validationMessage = () =>
      emailField(page).evaluate((input: HTMLInputElement) => input.validationMessage)
    expect(await emailField(page).evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(
      true,
    )
    if (javaScriptEnabled) expect(await validationMessage()).toBe(messages.emailMissing)
    else expect(await validationMessage()).not.toMatch(/^$|^Please type your email$/)
    expect(posts).toEqual([])
    expect(page.url()).toBe(`${baseURL}/Register`)

    // Past the browser, the server refuses it too, and says so next to the field.
    await page.locator('form:has(input[name=email])').evaluate((form: HTMLFormElement) => {
      form.noValidate = true
    })
    let answer = await postRegister(page, '', password)
    expect(answer.status()).toBe(400)
    await expectFieldError(page, 'Email', messages.emailMissing)
    await expectFieldValid(page, 'Password')
    expect(page.url()).toBe(`${baseURL}/Register`)
    await expectHealthyPage(page)

    // The browser takes 'name@example'; the server wants a domain with a dot.
    answer = await postRegister(page, 'name@example', password)
    expect(answer.status()).toBe(400)
    await expectFieldError(page, 'Email', messages.emailInvalid)
    await expectHealthyPage(page)

    const email = uniqueEmail('register')
    answer = await postRegister(page, email, 'BaseBall')
    expect(answer.status()).toBe(400)
    await expectFieldError(page, 'Password', messages.passwordCommon)
    await expectFieldValid(page, 'Email')
    // The email typed comes back; the password never does.
    expect(await emailField(page).inputValue()).toBe(email)
    if (!javaScriptEnabled) expect(await passwordField(page).inputValue()).toBe('')
    await expectHealthyPage(page)

    await postRegister(page, email, password)
    await expectOn(page, '/')
    await expectPersonMenu(page, email, accountItems)
    await expectHealthyPage(page)

    // The same address again, in capitals and through the lower-case URL, is taken.
    await logOutHere(page)
    await visit(page, `${baseURL}/register`)
    answer = await postRegister(page, email.toUpperCase(), password)
    expect(answer.status()).toBe(409)
    await expectFieldError(page, 'Email', messages.emailInUse)
    await expectFieldValid(page, 'Password')
    await expectPersonMenu(page, null, signedOutItems)
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('login: an unknown email and a wrong password fail alike, then in; signed in, the forms send home', async () => {
    const page = await newVisitor(javaScriptEnabled)
    await visit(page, `${baseURL}/login`)
    expect(await page.getByRole('button', { name: 'Login as guest' }).isVisible()).toBe(true)
    await expectHealthyPage(page)

    const alert = page.getByRole('main').getByRole('alert')
    const failures: string[] = []
    const attempts: [email: string, password: string][] = [
      [uniqueEmail('nobody'), password],
      [account, 'correct horse battery stable'],
    ]
    for (const [tried, secret] of attempts) {
      const answer = await postLogin(page, tried, secret)
      expect(answer.status()).toBe(401)
      await alert.waitFor()
      failures.push((await alert.textContent()) ?? '')
      // Neither field is blamed: that would tell which one was wrong.
      await expectFieldValid(page, 'Email')
      await expectFieldValid(page, 'Password')
      expect(await emailField(page).inputValue()).toBe(tried)
      if (javaScriptEnabled)
        await expect.poll(() => alert.evaluate((p) => p === document.activeElement)).toBe(true)
      else expect(await passwordField(page).inputValue()).toBe('')
      expect(page.url()).toBe(`${baseURL}/login`)
      await expectHealthyPage(page)
    }
    expect(failures).toEqual([messages.loginFailed, messages.loginFailed])

    await postLogin(page, account.toUpperCase(), password)
    await expectOn(page, '/')
    await expectPersonMenu(page, account, accountItems)
    await expectHealthyPage(page)

    for (const path of ['/login', '/Register', '/login?redirectTo=/AllBooks']) {
      await visit(page, `${baseURL}${path}`)
      await expectOn(page, path.includes('redirectTo') ? '/AllBooks' : '/')
    }
    await page.context().close()
  })

  // In the browser: the way in honoured, and the two spellings a browser itself would turn into another
  // site. Every other spelling (https://…, a tab, encoded slashes, javascript:) is checked for its exact
  // Location at the action (tests/integration/identity.test.ts), which is all a browser acts on.
  test.each([
    { query: '/AllBooks', lands: '/AllBooks' },
    { query: '//evil.example', lands: '/' },
    { query: '/\\evil.example', lands: '/' },
  ])('login from /login?redirectTo=$query lands on $lands', async ({ query, lands }) => {
    const page = await newVisitor(javaScriptEnabled)
    // Should the store send the visitor off-site, this stand-in answers, and the URL check below fails.
    await page.context().route(offSite, (route) => route.fulfill({ body: 'off-site' }))
    const login = `${baseURL}/login?${new URLSearchParams({ redirectTo: query })}`
    await visit(page, login)
    expect(await logInAndLeave(page, account)).toBe(`${baseURL}${lands}`)
    await expectPersonMenu(page, account, accountItems)
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('a redirectTo forged in the posted form still lands on the store', async () => {
    const page = await newVisitor(javaScriptEnabled)
    await page.context().route(offSite, (route) => route.fulfill({ body: 'off-site' }))
    // Forged on the wire: React puts back a hidden input's value edited in the page when it re-renders.
    const forged: string[] = []
    await page.route(/\/login(\.data)?(\?|$)/, async (route) => {
      const body = route.request().postData()
      if (route.request().method() !== 'POST' || !body) return route.fallback()
      const form = new URLSearchParams(body)
      form.set('redirectTo', '//evil.example/steal')
      forged.push(form.toString())
      await route.fallback({ postData: form.toString() })
    })
    await visit(page, `${baseURL}/login?redirectTo=/AllBooks`)
    expect(await logInAndLeave(page, account)).toBe(`${baseURL}/`)
    expect(forged).toHaveLength(1)
    expect(new URLSearchParams(forged[0]).get('email')).toBe(account)
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('a guest shops, registers from the menu and keeps the cart', async () => {
    const page = await newVisitor(javaScriptEnabled)
    await visit(page, `${baseURL}/login`)
    await submit(page, () => page.getByRole('button', { name: 'Login as guest' }).click())
    await expectOn(page, '/')
    await expectPersonMenu(page, 'Guest', guestItems)
    await expectHealthyPage(page)

    // A guest may still log in to an account, but is not offered another guest session.
    await visit(page, `${baseURL}/login`)
    await loginButton(page).waitFor()
    expect(await page.getByRole('button', { name: 'Login as guest' }).count()).toBe(0)

    await visit(page, `${baseURL}/AllBooks`)
    await addToCart(page, bookA)
    await addToCart(page, bookB)
    await expectBadge(page, 2)
    await expectHealthyPage(page)

    const menu = await openPersonMenu(page)
    await menu.getByRole('menuitem', { name: 'Register' }).click()
    await expectOn(page, '/Register')
    await page.getByText('You are shopping as a guest. Register to keep your cart and buy eBooks.').waitFor()
    await expectHealthyPage(page)
    const email = uniqueEmail('guest')
    await postRegister(page, email, password)
    await expectOn(page, '/')
    await expectPersonMenu(page, email, accountItems)
    await expectBadge(page, 2)

    await expectCart(page, [bookA, bookB])
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('an anonymous cart joins the account’s at login, each book once', async () => {
    const email = uniqueEmail('merge')
    const owner = await newVisitor(javaScriptEnabled)
    await registerAndLand(owner, email)
    await visit(owner, `${baseURL}/AllBooks`)
    await addToCart(owner, bookA)
    await logOutHere(owner)
    // The account's cart stays with the account, not with the browser it was filled in.
    await expectBadge(owner, 0)
    await owner.context().close()

    const page = await newVisitor(javaScriptEnabled)
    await visit(page, `${baseURL}/AllBooks`)
    await addToCart(page, bookA)
    await addToCart(page, bookB)
    await expectBadge(page, 2)
    expect((await page.context().cookies(baseURL)).map((cookie) => cookie.name)).toContain('cb_cart')

    // Login from the menu comes back to the page it was chosen on.
    const menu = await openPersonMenu(page)
    await menu.getByRole('menuitem', { name: 'Login' }).click()
    await expectOn(page, `/login?${new URLSearchParams({ redirectTo: '/AllBooks' })}`)
    await postLogin(page, email, password)
    await expectOn(page, '/AllBooks')
    await expectBadge(page, 2)
    expect((await page.context().cookies(baseURL)).map((cookie) => cookie.name)).not.toContain('cb_cart')
    await expectCart(page, [bookA, bookB])
    await expectHealthyPage(page)

    // Signed out again, the browser holds no cart: it went to the account.
    await logOutHere(page)
    await expectBadge(page, 0)
    await page.context().close()
  })

  test('a guest who logs in to an account keeps the cart, joined to the account’s, each book once', async () => {
    const email = uniqueEmail('guest-login')
    const owner = await newVisitor(javaScriptEnabled)
    await registerAndLand(owner, email)
    await visit(owner, `${baseURL}/AllBooks`)
    await addToCart(owner, bookA)
    await addToCart(owner, bookC)
    await owner.context().close()

    const page = await newVisitor(javaScriptEnabled)
    await visit(page, `${baseURL}/login`)
    await submit(page, () => page.getByRole('button', { name: 'Login as guest' }).click())
    await expectOn(page, '/')
    await visit(page, `${baseURL}/AllBooks`)
    await addToCart(page, bookA)
    await addToCart(page, bookB)
    await expectBadge(page, 2)

    await visit(page, `${baseURL}/login`)
    await postLogin(page, email, password)
    await expectOn(page, '/')
    await expectPersonMenu(page, email, accountItems)
    await expectBadge(page, 3)
    await expectCart(page, [bookA, bookB, bookC])
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('log out from a book page stays on it, signed out', async () => {
    const page = await newVisitor(javaScriptEnabled)
    const email = uniqueEmail('logout')
    await registerAndLand(page, email)
    await visit(page, `${baseURL}/books/django-framework`)
    await expectPersonMenu(page, email, accountItems)
    await logOutHere(page)
    await expectOn(page, '/books/django-framework')
    await page.getByRole('heading', { level: 1, name: bookA }).waitFor()
    await expectHealthyPage(page)
    // The session is gone on the server too, not only from this page.
    await page.reload()
    await expectPersonMenu(page, null, signedOutItems)
    await page.context().close()
  })

  test('the session cookie is HttpOnly and SameSite=Lax, and goes at logout', async () => {
    const page = await newVisitor(javaScriptEnabled)
    const email = uniqueEmail('cookie')
    await registerAndLand(page, email)
    const registered = await sessionCookie(page)
    expect(registered).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
    await logOutHere(page)
    expect(await sessionCookie(page)).toBeUndefined()

    await visit(page, `${baseURL}/login`)
    await postLogin(page, email, password)
    await expectOn(page, '/')
    const loggedIn = await sessionCookie(page)
    expect(loggedIn).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
    expect(loggedIn?.value).not.toBe(registered?.value)
    // Scripts in the page cannot read it.
    if (javaScriptEnabled) expect(await page.evaluate(() => document.cookie)).not.toContain('session_token')
    await page.context().close()
  })
})

test('while the server answers a login, its button says so and cannot be pressed again', async () => {
  const page = await newVisitor(true)
  await visit(page, `${baseURL}/login`)
  // Hold the action's answer back: what the visitor sees meanwhile is the pending state.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/login.data*', async (route) => {
    await held
    await route.continue()
  })
  await emailField(page).fill(account)
  await passwordField(page).fill(password)
  await loginButton(page).click()
  const pending = page.getByRole('button', { name: 'Logging in…', exact: true })
  await pending.waitFor({ timeout: 2_000 })
  expect(await pending.isDisabled()).toBe(true)
  expect(await pending.getAttribute('aria-busy')).toBe('true')
  // The guest button belongs to another form and stays as it was.
  expect(await page.getByRole('button', { name: 'Login as guest' }).isEnabled()).toBe(true)
  expect(await loginButton(page).count()).toBe(0)
  release()
  await expectOn(page, '/')
  await page.unroute('**/login.data*')
  await expectPersonMenu(page, account, accountItems)
  await page.context().close()
})

test.each(themes)(
  'the forms with their errors have no axe violations in the %s theme',
  async (colorScheme) => {
    const page = await newVisitor(true, { colorScheme })
    await visit(page, `${baseURL}/Register`)
    await postRegister(page, 'name@example', 'football')
    await expectFieldError(page, 'Email', messages.emailInvalid)
    await expectFieldError(page, 'Password', messages.passwordCommon, { first: false })
    await expectHealthyPage(page)

    await visit(page, `${baseURL}/login`)
    await postLogin(page, uniqueEmail('nobody'), password)
    await page.getByRole('main').getByRole('alert').waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  },
)
