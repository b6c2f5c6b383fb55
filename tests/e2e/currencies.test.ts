import { eq } from 'drizzle-orm'
import { expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { bookPrices, books } from '#app/server/db/schema/index.server.ts'
import { expectHealthyPage, newPage, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { testPassword } from '#harness/factories/buyers.ts'
import { bookA, bookB, logIn, submit } from './shopper.ts'

/**
 * Currencies (issue 31, decision 040) in Chromium and over HTTP, on a store of its own that offers USD, EUR and
 * GBP, where two books have a euro price: a buyer in France sees the cart in euros and changes it with the form
 * (JavaScript off); the cart is never served from the page cache to a visitor of another currency, while the
 * book page, in dollars for everyone, is shared.
 */
const FRENCH_IP = '90.0.0.1'
const AMERICAN_IP = '8.8.8.8'
const slug = 'the-future-of-design-systems'

const own = ownStoreWithAdmin(
  async (db) => {
    // The store seeds its catalogue at start; seeded now, the books can have their prices before it starts.
    await seedCatalog(db)
    for (const [bookSlug, euros] of [
      [slug, 4599],
      ['django-framework', 1799],
    ] as const) {
      const [book] = await db.select({ id: books.id }).from(books).where(eq(books.slug, bookSlug))
      await db.insert(bookPrices).values({ bookId: book!.id, currency: 'EUR', priceCents: euros })
    }
  },
  { STORE_CURRENCIES: 'USD,EUR,GBP' },
)

test('JavaScript off: a buyer in France sees the cart in euros, and the currency form changes it', async () => {
  const page = await newPage(own.browser, {
    javaScriptEnabled: false,
    extraHTTPHeaders: { 'X-Forwarded-For': FRENCH_IP },
  })
  await visit(page, `${own.store.url}/books/${slug}`)
  // The book page is the catalogue's: in dollars for everyone.
  expect(await page.getByRole('main').textContent()).toContain('Price: $49')
  await submit(page, () => page.getByRole('button', { name: 'Add To Cart' }).first().click())
  await visit(page, `${own.store.url}/cart`)
  const main = page.getByRole('main')
  expect(await main.getByRole('listitem').filter({ hasText: bookB }).textContent()).toContain('€45.99')
  await main.getByText('Book pages show prices in USD.').waitFor()
  expect(await main.getByLabel('Currency').inputValue()).toBe('EUR')

  await main.getByLabel('Currency').selectOption('GBP')
  await submit(page, () => main.getByRole('button', { name: 'Change' }).click())
  expect(new URL(page.url()).pathname).toBe('/cart')
  await main
    .getByText(`Some books have no GBP price, so your cart is in USD: ${bookB}.`, { exact: true })
    .waitFor()
  expect(await main.getByRole('listitem').filter({ hasText: bookB }).textContent()).toContain('$49')
  await expectHealthyPage(page)
})

test('with JavaScript: the form changes the currency in place, and the cart passes axe in both', async () => {
  const page = await newPage(own.browser, { extraHTTPHeaders: { 'X-Forwarded-For': FRENCH_IP } })
  await visit(page, `${own.store.url}/books/django-framework`)
  await submit(page, () => page.getByRole('button', { name: 'Add To Cart' }).first().click())
  await visit(page, `${own.store.url}/cart`)
  const main = page.getByRole('main')
  await main.getByText('Total€17.99').waitFor()
  await expectHealthyPage(page)
  await main.getByLabel('Currency').selectOption('USD')
  await main.getByRole('button', { name: 'Change' }).click()
  await main.getByText('Total$19').waitFor()
  expect(new URL(page.url()).pathname).toBe('/cart')
  await expectHealthyPage(page)
})

test('the cart is never shared by the page cache between currencies; the book page is', async () => {
  const visitor = async (address: string) => {
    const added = await fetch(`${own.store.url}/cart`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'X-Forwarded-For': address },
      body: new URLSearchParams({ intent: 'add', bookId: await bookIdOf(slug), redirectTo: '/cart' }),
    })
    const cookie = added.headers.get('set-cookie')!.split(';')[0]!
    return (path: string) =>
      fetch(`${own.store.url}${path}`, { headers: { Cookie: cookie, 'X-Forwarded-For': address } })
  }
  // Two visitors with the same book in their carts: the page cache's key for them is the same.
  const french = await visitor(FRENCH_IP)
  const american = await visitor(AMERICAN_IP)
  for (let round = 0; round < 2; round++) {
    const [inFrance, inAmerica] = [await french('/cart'), await american('/cart')]
    expect(inFrance.headers.get('x-page-cache')).not.toBe('hit')
    expect(inAmerica.headers.get('x-page-cache')).not.toBe('hit')
    expect(await inFrance.text()).toContain('€45.99')
    expect(await inAmerica.text()).not.toContain('€')
  }
  const bookInFrance = await french(`/books/${slug}`)
  const bookInAmerica = await american(`/books/${slug}`)
  expect(bookInAmerica.headers.get('x-page-cache')).toBe('hit')
  expect(await bookInAmerica.text()).toBe(await bookInFrance.text())
})

async function bookIdOf(bookSlug: string): Promise<string> {
  const page = await (await fetch(`${own.store.url}/books/${bookSlug}`)).text()
  return /name="bookId" value="([0-9a-f-]{36})"/.exec(page)![1]!
}

test('the owner’s edit page: a price per other currency, a bad one refused beside its field; axe in both themes', async () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    const page = await newPage(own.browser, { colorScheme })
    await logIn(page, { email: own.admin.email, password: testPassword }, { storeUrl: own.store.url })
    await visit(page, `${own.store.url}/admin/books?q=django`)
    await page.getByRole('link', { name: bookA }).click()
    const prices = page.getByRole('group', { name: 'Prices in other currencies' })
    expect(await prices.getByLabel('Price in EUR (optional)').inputValue()).toBe('17.99')
    expect(await prices.getByLabel('Price in GBP (optional)').inputValue()).toBe('')
    await prices.getByLabel('Price in GBP (optional)').fill('100001')
    await submit(page, () => page.getByRole('button', { name: 'Save changes' }).click())
    await prices.getByText('The GBP price is at most 100,000.').waitFor()
    expect(await prices.getByLabel('Price in GBP (optional)').getAttribute('aria-invalid')).toBe('true')
    await expectHealthyPage(page)
    await page.context().close()
  }
})
