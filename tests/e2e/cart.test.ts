import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const cartLink = (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Cart, / })

async function expectBadge(page: Page, count: number) {
  const name = `Cart, ${count} ${count === 1 ? 'book' : 'books'}`
  // The button shows the new state at once (optimistic); the badge follows when the action and the page's
  // revalidation have answered, which on a loaded CI machine took over 5 s once.
  await page
    .getByRole('link', { name, exact: true })
    .waitFor({ timeout: 15_000 })
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\nthe badge says: ${await cartLink(page).getAttribute('aria-label')}`)
    })
  // An empty cart shows no number (a red '0' read as an alert).
  expect(await cartLink(page).textContent()).toBe(count === 0 ? '' : String(count))
}

describe.each([
  ['on', true],
  ['off', false],
] as const)('the cart journey with JavaScript %s', (_, javaScriptEnabled) => {
  test('add on two pages, badge counts, reload, cart page lists and totals, remove', async () => {
    const page = await newPage(browser, { javaScriptEnabled })
    await visit(page, `${baseURL}/AllBooks`)
    await expectBadge(page, 0)
    const django = page.getByRole('article').filter({ hasText: 'Django Framework' })
    await django.getByRole('button', { name: 'Add To Cart' }).click()
    await django.getByRole('button', { name: 'Remove Item' }).waitFor()
    await expectBadge(page, 1)
    expect(new URL(page.url()).pathname).toBe('/AllBooks')

    await visit(page, `${baseURL}/books/the-future-of-design-systems`)
    await page.getByRole('main').getByRole('button', { name: 'Add To Cart' }).click()
    await page.getByRole('main').getByRole('button', { name: 'Remove Item' }).waitFor()
    await expectBadge(page, 2)

    // The same cart on every page and after a reload: the server renders it, no flash.
    await visit(page, `${baseURL}/`)
    await expectBadge(page, 2)
    await page.reload()
    await expectBadge(page, 2)
    await visit(page, `${baseURL}/AllBooks`)
    expect(await page.getByRole('button', { name: 'Remove Item' }).count()).toBe(2)
    await expectHealthyPage(page)

    await cartLink(page).click()
    await page.waitForURL(`${baseURL}/cart`)
    await page.getByRole('heading', { level: 1, name: 'My Cart (2)' }).waitFor()
    const lines = page.getByRole('main').getByRole('listitem')
    expect(await lines.count()).toBe(2)
    expect(await lines.nth(0).textContent()).toContain('Django Framework')
    expect(await lines.nth(0).textContent()).toContain('$19')
    expect(await lines.nth(1).textContent()).toContain('The Future of Design Systems')
    expect(await page.locator('dl').textContent()).toBe('Total$68')
    await expectHealthyPage(page)

    await lines.nth(0).getByRole('button', { name: 'Remove Item' }).click()
    await page.getByRole('heading', { level: 1, name: 'My Cart (1)' }).waitFor()
    await expectBadge(page, 1)
    expect(await page.locator('dl').textContent()).toBe('Total$49')
    await page.getByRole('button', { name: 'Remove Item' }).click()
    await page.getByRole('heading', { level: 1, name: 'My Cart (0)' }).waitFor()
    await expectBadge(page, 0)
    expect(await page.getByText('Your cart is empty.').count()).toBe(1)
    expect(await page.getByRole('link', { name: 'Browse all eBooks' }).getAttribute('href')).toBe('/AllBooks')
    await expectHealthyPage(page)
    await page.context().close()
  })
})

test('every button for a book and the badge change at once, before the server answers', async () => {
  const page = await newPage(browser)
  await visit(page, `${baseURL}/`)
  // Hold the action's answer back: what the visitor sees meanwhile is the optimistic state.
  let release: () => void = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  await page.route('**/cart.data*', async (route) => {
    await held
    await route.continue()
  })
  const card = page.getByRole('article').first()
  await card.getByRole('button', { name: 'Add To Cart' }).click()
  await card.getByRole('button', { name: 'Remove Item' }).waitFor({ timeout: 2_000 })
  await expectBadge(page, 1)
  const answered = page.waitForResponse('**/cart.data*')
  release()
  expect((await answered).status()).toBe(200)
  await page.unroute('**/cart.data*')
  await page.reload()
  await expectBadge(page, 1)
  await page.context().close()
})

test.each(themes)(
  'the cart page, full and empty, has no axe violations in the %s theme',
  async (colorScheme) => {
    const page = await newPage(browser, { colorScheme })
    await visit(page, `${baseURL}/cart`)
    await page.getByText('Your cart is empty.').waitFor()
    await expectHealthyPage(page)
    await visit(page, `${baseURL}/books/django-framework`)
    await page.getByRole('main').getByRole('button', { name: 'Add To Cart' }).click()
    await expectBadge(page, 1)
    await page.getByRole('main').getByRole('button', { name: 'Remove Item' }).focus()
    await expectHealthyPage(page)
    await visit(page, `${baseURL}/cart`)
    await page.getByRole('heading', { level: 1, name: 'My Cart (1)' }).waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  },
)

test('the seed’s /CartDetails leads to the cart', async () => {
  const response = await fetch(`${baseURL}/CartDetails`, { redirect: 'manual' })
  expect(response.status).toBe(301)
  expect(response.headers.get('location')).toBe('/cart')
})

// Page backgrounds as the browser computes them: Tailwind's white, and slate-800 (the seed's dark page).
const white = 'rgb(255, 255, 255)'
const slate800 = 'oklch(0.279 0.041 260.031)'

describe('the header menus', () => {
  test('the person menu by keyboard', async () => {
    const page = await newPage(browser)
    await visit(page, `${baseURL}/AllBooks`)
    const button = page.getByRole('button', { name: 'Account menu' })
    expect(await button.getAttribute('aria-haspopup')).toBe('menu')
    expect(await button.getAttribute('aria-expanded')).toBe('false')
    await button.focus()
    await page.keyboard.press('Enter')
    const menu = page.getByRole('menu', { name: 'Account menu' })
    await menu.waitFor()
    // The browser shows the popover from the server HTML; React marks the button expanded and focuses the first
    // item on its toggle event, or when the header's menus chunk arrives if the menu was opened before that.
    await expect.poll(() => button.getAttribute('aria-expanded'), { timeout: 5_000 }).toBe('true')
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['All eBooks', 'Login', 'Register'])
    const focused = () => page.evaluate(() => document.activeElement?.textContent)
    await expect.poll(focused).toBe('All eBooks')
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe('Login')
    await page.keyboard.press('End')
    expect(await focused()).toBe('Register')
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe('All eBooks')
    await expectHealthyPage(page)
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'hidden' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Account menu')
    await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false')

    // ArrowDown on the button opens it too; choosing an item closes it and goes there.
    await page.keyboard.press('ArrowDown')
    await menu.waitFor()
    await page.keyboard.press('Enter')
    await menu.waitFor({ state: 'hidden' })
    await page.waitForURL(`${baseURL}/AllBooks`)

    // A click outside closes it.
    await button.click()
    await menu.waitFor()
    await page.getByRole('heading', { level: 1 }).click()
    await menu.waitFor({ state: 'hidden' })
    await page.context().close()
  })

  test('a menu opened before the header’s menus chunk arrives is marked open and focused when it does', async () => {
    const page = await newPage(browser)
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    await page.route('**/assets/header-menus-*.js', async (route) => {
      await held
      await route.continue()
    })
    await visit(page, `${baseURL}/AllBooks`)
    const button = page.getByRole('button', { name: 'Account menu' })
    await button.focus()
    await page.keyboard.press('Enter')
    const menu = page.getByRole('menu', { name: 'Account menu' })
    await menu.waitFor()
    expect(await button.getAttribute('aria-expanded')).toBe('false')
    release()
    await expect.poll(() => button.getAttribute('aria-expanded'), { timeout: 5_000 }).toBe('true')
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('All eBooks')
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'hidden' })
    // The popover's toggle event, and React's render of it, come a task after the menu is hidden.
    await expect.poll(() => button.getAttribute('aria-expanded')).toBe('false')
    await page.context().close()
  })

  test.each(themes)(
    'the %s theme persists across a reload, rendered by the server (no flash)',
    async (theme) => {
      const other = theme === 'dark' ? 'light' : 'dark'
      const page = await newPage(browser, { colorScheme: other })
      await visit(page, `${baseURL}/`)
      await page.getByRole('button', { name: 'Display settings' }).click()
      const choice = page.getByRole('menuitemradio', { name: theme === 'dark' ? 'Dark' : 'Light' })
      // The page changes at once; the cookie arrives with the answer to the post, which is awaited here.
      const saved = page.waitForResponse(
        (response) =>
          response.request().method() === 'POST' && new URL(response.url()).pathname.startsWith('/theme'),
      )
      await choice.click()
      await page.waitForFunction((expected) => document.documentElement.dataset.theme === expected, theme)
      expect((await saved).ok()).toBe(true)
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
      const expected = theme === 'dark' ? slate800 : white
      expect(await background()).toBe(expected)
      // The server's HTML already carries the theme: no script needed to apply it.
      const html = await page.evaluate(async () => (await fetch('/')).text())
      expect(html).toContain(`data-theme="${theme}"`)
      await page.reload()
      expect(await background()).toBe(expected)
      await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true')
      await page.getByRole('button', { name: 'Display settings' }).click()
      expect(await page.getByRole('menuitemradio', { checked: true }).textContent()).toContain(
        theme === 'dark' ? 'Dark' : 'Light',
      )
      await expectHealthyPage(page)
      await page.context().close()
    },
  )

  test('System follows the operating system live', async () => {
    const page = await newPage(browser, { colorScheme: 'light' })
    await visit(page, `${baseURL}/`)
    await page.getByRole('button', { name: 'Display settings' }).click()
    await page.getByRole('menuitemradio', { name: 'System' }).click()
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'system')
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    expect(await background()).toBe(white)
    await page.emulateMedia({ colorScheme: 'dark' })
    expect(await background()).toBe(slate800)
    await page.context().close()
  })

  test('the theme can be chosen with JavaScript off', async () => {
    const page = await newPage(browser, { javaScriptEnabled: false, colorScheme: 'light' })
    await visit(page, `${baseURL}/AllBooks`)
    await page.getByRole('button', { name: 'Display settings' }).click()
    await page.getByRole('menuitemradio', { name: 'Dark' }).click()
    await page.waitForURL(`${baseURL}/AllBooks`)
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    await page.context().close()
  })
})

describe.each([
  ['on', true],
  ['off', false],
] as const)('after Add To Cart with JavaScript %s', (_, javaScriptEnabled) => {
  test.each(themes)(
    'a polite status says so, with View cart and Checkout, once (%s theme)',
    async (colorScheme) => {
      const page = await newPage(browser, { javaScriptEnabled, colorScheme })
      await visit(page, `${baseURL}/books/django-framework`)
      const main = page.getByRole('main')
      const added = main.getByRole('status').filter({ hasText: 'Added to your cart' })
      expect(await added.count()).toBe(0)
      await main.getByRole('button', { name: 'Add To Cart' }).click()
      await added.waitFor()
      expect(await added.getByRole('link', { name: 'View cart' }).getAttribute('href')).toBe('/cart')
      expect(await added.getByRole('link', { name: 'Checkout' }).getAttribute('href')).toBe('/checkout')
      await expectBadge(page, 1)
      await expectHealthyPage(page)
      // Said once: a reload shows the cart as it is, without the message.
      await page.reload()
      await main.getByRole('button', { name: 'Remove Item' }).waitFor()
      expect(await added.count()).toBe(0)

      // On a card too, and the link leads to the cart.
      await visit(page, `${baseURL}/AllBooks`)
      const go = page.getByRole('article').filter({ hasText: 'Build a Blockchain from Scratch in Go' })
      await go.getByRole('button', { name: 'Add To Cart' }).click()
      await go.getByRole('status').filter({ hasText: 'Added to your cart' }).waitFor()
      expect(await main.getByRole('status').filter({ hasText: 'Added to your cart' }).count()).toBe(1)
      await expectHealthyPage(page)
      await go.getByRole('link', { name: 'View cart' }).click()
      await page.getByRole('heading', { level: 1, name: 'My Cart (2)' }).waitFor()
      await page.context().close()
    },
  )
})
