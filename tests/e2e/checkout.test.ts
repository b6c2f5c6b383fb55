import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, visit } from './browser.ts'
import { mailInOutbox } from './outbox.ts'
import {
  addToCart,
  bookA,
  bookB,
  bookCard,
  expectBadge,
  fillCard,
  goToCheckout,
  newShopper,
  payButton,
  register,
  registerAndBuy,
  shopperPassword,
  submit,
  uniqueEmail,
} from './shopper.ts'

const baseURL = inject('baseURL')
const dataDir = inject('dataDir')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
const newVisitor = (javaScriptEnabled: boolean) => newShopper(browser, javaScriptEnabled)
afterAll(() => browser?.close())

// Spelled out rather than imported from the app, so that a changed wording fails here.
const messages = {
  testMode: 'Test mode — no real money',
  declined: 'Your card was declined.',
  numberInvalid: 'This card number is not valid. Please check it.',
  owned: 'In your library',
  whyAnAccount:
    'Your eBooks are kept in your library, so you can download them again at any time, on any device, and the receipt goes to your email. It takes one step: an email and a password. Your cart comes with you.',
  commonPassword:
    'This password is one of the 10,000 most common passwords, which attackers try first. Please choose another.',
  // Django Framework ($19) and The Future of Design Systems ($49).
  totalAB: '$68',
}

/** A date as the store prints it in 'My orders': 'Nov 21, 2026', in UTC. */
const utcDate = (date: Date) =>
  new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(date)

/** The checkout lists exactly `titles`. */
async function expectCheckoutOf(page: Page, titles: string[]) {
  await page.waitForURL(`${baseURL}/checkout`)
  await page.getByRole('heading', { level: 1, name: 'Checkout' }).waitFor()
  const listed = await page
    .getByRole('main')
    .getByRole('list')
    .first()
    .getByRole('listitem')
    .allTextContents()
  expect(listed.length).toBe(titles.length)
  for (const title of titles) expect(listed.some((text) => text.includes(title))).toBe(true)
}

/** The receipt the store wrote for `email`, once it is there. */
function receiptFor(email: string) {
  return mailInOutbox(
    dataDir,
    // Registration mails a confirmation link to the same address (decision 017): the receipt only.
    (mail) =>
      Boolean(mail.subject?.includes('receipt') && mail.text && JSON.stringify(mail.to).includes(email)),
    10_000,
  )
}

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('%s', (_, javaScriptEnabled) => {
  test('register → two books → pay with 4242… → confirmation → my orders → badge 0 → owned', async () => {
    const startedOn = utcDate(new Date())
    const page = await newVisitor(javaScriptEnabled)
    const email = uniqueEmail('buyer')
    await visit(page, `${baseURL}/Register`)
    await register(page, email)
    await page.waitForURL(`${baseURL}/`)

    await visit(page, `${baseURL}/AllBooks`)
    await addToCart(page, bookA)
    await addToCart(page, bookB)
    await expectBadge(page, 2)

    await goToCheckout(page)
    await expectCheckoutOf(page, [bookA, bookB])
    await page.getByText(messages.testMode).waitFor()
    await expectHealthyPage(page)

    await fillCard(page, '4242 4242 4242 4242')
    await submit(page, () => payButton(page).click())
    await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
    const orderHeading = page.getByRole('heading', { level: 1, name: /^Order #\d+$/ })
    await orderHeading.waitFor()
    const orderName = (await orderHeading.textContent())!
    expect(await page.getByRole('main').textContent()).toContain('Visa ending 4242')
    await page.getByText('Thank you! Your payment went through').waitFor()
    await expectBadge(page, 0)
    await expectHealthyPage(page)

    // The receipt: order number, both books and a link to this page.
    const receipt = await receiptFor(email)
    expect(receipt.subject).toBe(`Your CodeBook receipt — ${orderName.replace('Order ', 'order ')}`)
    expect(receipt.text).toContain(bookA)
    expect(receipt.text).toContain(bookB)
    expect(receipt.text).toContain(new URL(page.url()).pathname)

    await page.getByRole('link', { name: 'All my orders' }).click()
    await page.waitForURL(`${baseURL}/account/orders`)
    const order = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: orderName }) })
    expect(await order.textContent()).toContain(bookA)
    expect(await order.textContent()).toContain(bookB)
    expect(await order.textContent()).toContain('Paid')
    // Today's date (UTC, as the store shows it; the day may have turned during the test) and the total.
    expect([startedOn, utcDate(new Date())]).toContain(await order.locator('time').textContent())
    expect(await order.textContent()).toContain(messages.totalAB)
    await expectHealthyPage(page)

    // Owned books say so instead of offering the cart, on cards and on the detail page.
    await visit(page, `${baseURL}/AllBooks`)
    for (const title of [bookA, bookB]) {
      await bookCard(page, title).getByText(messages.owned).waitFor()
      expect(await bookCard(page, title).getByRole('button', { name: 'Add To Cart' }).count()).toBe(0)
    }
    await bookCard(page, bookA).getByRole('link').first().click()
    await page.getByRole('heading', { level: 1, name: bookA }).waitFor()
    await page.getByRole('main').getByText(messages.owned).waitFor()
    expect(await page.getByRole('main').getByRole('button', { name: 'Add To Cart' }).count()).toBe(0)
    await page.context().close()
  })

  test('a declined card keeps the cart and says why; a bad number is marked next to its field', async () => {
    const page = await newVisitor(javaScriptEnabled)
    await visit(page, `${baseURL}/Register`)
    await register(page, uniqueEmail('declined'))
    await page.waitForURL(`${baseURL}/`)
    await visit(page, `${baseURL}/AllBooks`)
    await addToCart(page, bookA)
    await goToCheckout(page)
    await expectCheckoutOf(page, [bookA])

    await fillCard(page, '4242 4242 4242 4241')
    const refused = await submit(page, () => payButton(page).click())
    expect(refused.status()).toBe(400)
    const number = page.getByLabel('Card number')
    await expect.poll(() => number.getAttribute('aria-invalid')).toBe('true')
    const described = (await number.getAttribute('aria-describedby'))!.split(' ')
    const descriptions = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()))
    expect(descriptions).toContain(messages.numberInvalid)
    await expectHealthyPage(page)

    // A good number with an expired date: the page re-rendered after the error (without JavaScript, all
    // of it comes from the server) carries neither the number nor the CVC back.
    await fillCard(page, '4242 4242 4242 4242')
    await page.getByLabel('Expiry (MM/YY)').fill('01/20')
    await page.getByLabel('CVC').fill('7391')
    const expired = await submit(page, () => payButton(page).click())
    expect(expired.status()).toBe(400)
    await page.getByText('This card has expired.').waitFor()
    // Without JavaScript the server's own answer, its hydration data included; with it, the page as it is.
    const pages = javaScriptEnabled ? [await page.content()] : [await expired.text(), await page.content()]
    for (const html of pages) {
      expect(html).toContain('This card has expired.')
      expect(html).not.toContain('4242424242424242')
      expect(html).not.toMatch(/value="4242/)
      expect(html).not.toMatch(/(?<![0-9A-Za-z_-])7391(?![0-9A-Za-z_-])/)
    }
    if (!javaScriptEnabled) {
      expect(await number.inputValue()).toBe('')
      expect(await page.getByLabel('CVC').inputValue()).toBe('')
    }

    await fillCard(page, '4000 0000 0000 0002')
    const declined = await submit(page, () => payButton(page).click())
    expect(declined.status()).toBe(402)
    await page.getByRole('alert').filter({ hasText: messages.declined }).waitFor()
    await expectHealthyPage(page)
    await expectBadge(page, 1)
    await expectCheckoutOf(page, [bookA])

    // Another card on the page the decline left is a new attempt, and pays.
    await fillCard(page, '4242 4242 4242 4242')
    await submit(page, () => payButton(page).click())
    await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
    await page.getByText('Thank you! Your payment went through').waitFor()
    await page.context().close()
  })
})

describe('checking out without an account', () => {
  test.each([
    ['a guest, with JavaScript', true, true],
    ['a signed-out visitor, without JavaScript', false, false],
  ])(
    '%s: told why an account is needed, creates it on the checkout page in one step, pays with 4242, the book is in the library',
    async (_who, asGuest, javaScriptEnabled) => {
      const page = await newVisitor(javaScriptEnabled)
      if (asGuest) {
        await visit(page, `${baseURL}/login`)
        await submit(page, () => page.getByRole('button', { name: 'Login as guest' }).click())
      }
      await visit(page, `${baseURL}/AllBooks`)
      await addToCart(page, bookB)
      await goToCheckout(page)
      await expectCheckoutOf(page, [bookB])
      await page.getByRole('heading', { level: 2, name: 'Create your account to pay' }).waitFor()
      await page.getByText(messages.whyAnAccount).waitFor()
      await expectHealthyPage(page)

      // A refusal is shown next to its field, on the same page, the cart still there.
      await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('one-step'))
      await page.getByLabel('Password', { exact: true }).fill('password1')
      await submit(page, () => page.getByRole('button', { name: 'Create account and continue' }).click())
      await page.getByText(messages.commonPassword).waitFor()
      await expectCheckoutOf(page, [bookB])

      const email = uniqueEmail('one-step')
      await page.getByLabel('Email', { exact: true }).fill(email)
      await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
      await submit(page, () => page.getByRole('button', { name: 'Create account and continue' }).click())
      await expectCheckoutOf(page, [bookB])
      await page.getByText(`The receipt goes to ${email}.`).waitFor()
      await expectBadge(page, 1)
      await fillCard(page, '4242 4242 4242 4242')
      await submit(page, () => payButton(page).click())
      await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
      await page.getByText('Thank you! Your payment went through').waitFor()
      await visit(page, `${baseURL}/account/library`)
      await page.getByRole('heading', { level: 1, name: 'My Library' }).waitFor()
      await page.getByRole('main').getByText(bookB).first().waitFor()
      await page.context().close()
    },
  )
})

test('a signed-out visitor with an account logs in from the checkout page and comes back to it', async () => {
  const page = await newVisitor(false)
  const email = uniqueEmail('returning')
  await visit(page, `${baseURL}/Register`)
  await register(page, email)
  await page.waitForURL(`${baseURL}/`)
  await page.context().clearCookies()
  await visit(page, `${baseURL}/AllBooks`)
  await addToCart(page, bookA)
  await goToCheckout(page)
  await page.getByRole('main').getByRole('link', { name: 'Login', exact: true }).click()
  await page.waitForURL(`${baseURL}/login?redirectTo=%2Fcheckout`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
  await submit(page, () => page.getByRole('button', { name: 'Login', exact: true }).click())
  // The anonymous visitor's cart was merged into the account's at login.
  await expectCheckoutOf(page, [bookA])
  await page.context().close()
})

test('a book bought earlier and put in the cart signed out leaves it at login: badge and checkout count the rest', async () => {
  const page = await newVisitor(false)
  const email = uniqueEmail('owner')
  await registerAndBuy(page, email, [bookA])
  await page.context().clearCookies()
  await visit(page, `${baseURL}/AllBooks`)
  await addToCart(page, bookA)
  await addToCart(page, bookB)
  await expectBadge(page, 2)
  await goToCheckout(page)
  await page.getByRole('main').getByRole('link', { name: 'Login', exact: true }).click()
  await page.waitForURL(`${baseURL}/login?redirectTo=%2Fcheckout`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
  await submit(page, () => page.getByRole('button', { name: 'Login', exact: true }).click())
  await expectCheckoutOf(page, [bookB])
  await expectBadge(page, 1)
  await page.context().close()
})

test('in the dark theme too: checkout with errors, the order, my orders and my library pass axe', async () => {
  const page = await newVisitor(true)
  await page.emulateMedia({ colorScheme: 'dark' })
  await visit(page, `${baseURL}/Register`)
  await register(page, uniqueEmail('dark'))
  await page.waitForURL(`${baseURL}/`)
  await visit(page, `${baseURL}/AllBooks`)
  await addToCart(page, bookA)
  await goToCheckout(page)
  await expectCheckoutOf(page, [bookA])
  await fillCard(page, '4000 0000 0000 0002')
  await submit(page, () => payButton(page).click())
  await page.getByRole('alert').filter({ hasText: messages.declined }).waitFor()
  await expectHealthyPage(page)
  await fillCard(page, '4242 4242 4242 4242')
  await submit(page, () => payButton(page).click())
  await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
  await expectHealthyPage(page)
  await visit(page, `${baseURL}/account/orders`)
  await page.getByRole('heading', { level: 1, name: 'My orders' }).waitFor()
  await expectHealthyPage(page)
  await visit(page, `${baseURL}/account/library`)
  await page.getByRole('heading', { level: 1, name: 'My Library' }).waitFor()
  await expectHealthyPage(page)
  await page.context().close()
})
