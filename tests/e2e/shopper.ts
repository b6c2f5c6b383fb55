import type { Browser, Page, Response } from 'playwright-core'
import { inject } from 'vitest'
import { newPage, visit } from './browser.ts'

/** What a shopper does in the end-to-end tests: register, fill the cart, go to checkout and pay. */

const baseURL = inject('baseURL')
export const shopperPassword = 'correct horse battery staple'
export const bookA = 'Django Framework'
export const bookB = 'The Future of Design Systems'

const scripts = new WeakMap<Page, boolean>()

export async function newShopper(browser: Browser, javaScriptEnabled: boolean) {
  const page = await newPage(browser, { javaScriptEnabled })
  scripts.set(page, javaScriptEnabled)
  return page
}

export function uniqueEmail(name: string) {
  return `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`
}

/** Runs `act`, which posts a form, and returns the answer; without JavaScript also waits for the page it loads. */
export async function submit(page: Page, act: () => Promise<void>): Promise<Response> {
  const answered = page.waitForResponse((response) => response.request().method() === 'POST')
  const loaded = scripts.get(page) === false ? page.waitForEvent('load') : undefined
  const [response] = await Promise.all([answered, loaded, act()])
  return response
}

export async function register(page: Page, email: string) {
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
  await submit(page, () => page.getByRole('button', { name: 'Register', exact: true }).click())
}

/**
 * Logs in through the login form of the store at `storeUrl` (the shared store by default) and waits to land
 * where the form sends: at `redirectTo` when given, else on the home page.
 */
export async function logIn(
  page: Page,
  account: { email: string; password: string },
  options: { storeUrl?: string; redirectTo?: string } = {},
) {
  const storeUrl = options.storeUrl ?? baseURL
  const query = options.redirectTo ? `?${new URLSearchParams({ redirectTo: options.redirectTo })}` : ''
  await visit(page, `${storeUrl}/login${query}`)
  await page.getByLabel('Email', { exact: true }).fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Login', exact: true }).click()
  await page.waitForURL(`${storeUrl}${options.redirectTo ?? '/'}`)
}

export async function expectBadge(page: Page, count: number) {
  const name = `Cart, ${count} ${count === 1 ? 'book' : 'books'}`
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name, exact: true })
    .waitFor({ timeout: 5_000 })
}

export const bookCard = (page: Page, title: string) => page.getByRole('article').filter({ hasText: title })

export async function addToCart(page: Page, title: string) {
  const card = bookCard(page, title)
  await submit(page, () => card.getByRole('button', { name: 'Add To Cart' }).click())
  await card.getByRole('button', { name: 'Remove Item' }).waitFor()
}

/** From the cart page's 'Checkout' to the checkout page. */
export async function goToCheckout(page: Page) {
  await visit(page, `${baseURL}/cart`)
  await page.getByRole('main').getByRole('link', { name: 'Checkout' }).click()
}

export async function fillCard(page: Page, number: string) {
  await page.getByLabel('Name on card').fill('Ada Reader')
  await page.getByLabel('Card number').fill(number)
  await page.getByLabel('Expiry (MM/YY)').fill('12/34')
  await page.getByLabel('CVC').fill('123')
}

export const payButton = (page: Page) => page.getByRole('button', { name: /^Pay / })

/** A new account that buys `titles` with the test card; ends on the order's confirmation page. */
export async function registerAndBuy(page: Page, email: string, titles: string[]) {
  await visit(page, `${baseURL}/Register`)
  await register(page, email)
  await page.waitForURL(`${baseURL}/`)
  await visit(page, `${baseURL}/AllBooks`)
  for (const title of titles) await addToCart(page, title)
  await goToCheckout(page)
  await fillCard(page, '4242 4242 4242 4242')
  await submit(page, () => payButton(page).click())
  await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
}
