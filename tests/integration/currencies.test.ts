/**
 * Currencies (issue 31, decision 040): the owner sets a book's prices in the other currencies the store offers
 * (STORE_CURRENCIES); a buyer's cart, checkout, order, receipt and Stripe lines are in the currency they chose,
 * else their country's, else the base — all of it, or, when a book has no price in it, none of it, and the cart
 * says so. The catalogue's shared pages stay in the base currency; the cart and the checkout are never shared.
 */
import { asc, and, eq, inArray } from 'drizzle-orm'
import Stripe from 'stripe'
import { describe, expect } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { addToCart, chooseAmount, requireUserCart, setCartCoupon } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { writeBookPrices } from '#app/features/currency/book-prices.server.ts'
import type { InvoiceDocument } from '#app/features/invoices/invoice-document.ts'
import { createStripePaymentProvider } from '#app/features/orders/stripe.server.ts'
import { readEditableStoreSettings, saveStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { taxLine } from '#app/features/tax/compute-tax.ts'
import { defaultTaxSettings, saveTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import { action as editAction, loader as editLoader } from '#app/routes/admin/book-edit.tsx'
import { action as booksAction } from '#app/routes/admin/books.tsx'
import { loader as accountsLoader } from '#app/routes/admin/accounts.tsx'
import { action as adminOrderAction } from '#app/routes/admin/order.tsx'
import { loader as bookLoader } from '#app/routes/book.tsx'
import * as cart from '#app/routes/cart.tsx'
import { action as checkoutAction, loader as checkoutLoader } from '#app/routes/checkout.tsx'
import { action as currencyAction } from '#app/routes/currency.ts'
import {
  bookPrices,
  books,
  coupons,
  emailOutbox,
  invoices,
  orderItems,
  orderRefunds,
  orders,
  revenueDaily,
} from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { PageCache } from '#server/page-cache.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import { visitorKey } from '#app/visitor-key.server.ts'
import { CookieJar } from '#harness/cookie-jar.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs } from '#tests/route-args.ts'

const FRENCH_IP = '90.0.0.1'
const GERMAN_IP = '85.214.132.117'
const AMERICAN_IP = '8.8.8.8'
const GOOD_CARD = { name: 'Ada Reader', number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }
const STORE_CURRENCIES = 'USD,EUR,GBP'
const secret = 'test-secret-that-is-long-enough-0123456789'

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let admin: Awaited<ReturnType<typeof createAdmin>>
let services: StoreServices
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  admin = await createAdmin(database.db)
  services = createStoreServices({
    db: database.db,
    env: parseEnv({ STORE_CURRENCIES }),
    authSecret: secret,
    logger: createLogger('silent'),
  })
})

/** The seed's books by title, so that a failure names them. */
const book = (title: string) => catalogue.find((candidate) => candidate.title.startsWith(title))!

async function setPrices(bookId: string, prices: Record<string, number | null>) {
  await database.db.transaction((tx) => writeBookPrices(tx, bookId, prices))
}

/** A signed-in reader with these books in the cart. */
async function readerWithCart(bookIds: string[]) {
  const reader = await createReader(database.db)
  const cartId = await requireUserCart(database.db, reader.userId)
  for (const bookId of bookIds) await addToCart(database.db, cartId, bookId)
  return { ...reader, cartId, jar: new CookieJar(reader.cookie) }
}

function openCart(cookie: string, clientIp: string, with_ = services) {
  return cart.loader(routeArgs({ db: database.db, path: '/cart', cookie, clientIp, services: with_ }))
}

async function openCheckout(cookie: string, clientIp: string, with_ = services) {
  const page = await checkoutLoader(
    routeArgs({ db: database.db, path: '/checkout', cookie, clientIp, services: with_ }),
  )
  if (page.step !== 'pay') throw new Error(`expected the payment step, got ${page.step}`)
  return page
}

/** Posts the checkout's form as the page rendered it, with the test card. */
async function pay(
  jar: CookieJar,
  clientIp: string,
  page: Awaited<ReturnType<typeof openCheckout>>,
  with_ = services,
) {
  const answer = await answerOf(
    checkoutAction(
      routeArgs({
        db: database.db,
        path: '/checkout',
        cookie: jar.header(),
        clientIp,
        services: with_,
        init: {
          method: 'POST',
          body: new URLSearchParams({
            ...(with_.payments.kind === 'redirect' ? {} : GOOD_CARD),
            idempotencyKey: page.checkout.idempotencyKey,
            attemptId: page.checkout.attemptId,
            billingCountry: page.billingCountry,
            pricedCountry: page.billingCountry,
            pricedVatNumber: '',
            vatNumber: '',
          }),
        },
      }),
    ),
  )
  jar.take(answer.headers)
  return answer
}

async function orderOf(userId: string) {
  const [order] = await database.db.select().from(orders).where(eq(orders.userId, userId))
  const lines = await database.db
    .select()
    .from(orderItems)
    .where(eq(orderItems.orderId, order!.id))
    .orderBy(asc(orderItems.title))
  return { ...order!, lines }
}

describe('the owner sets prices in other currencies', () => {
  const editArgs = (init?: RequestInit) =>
    routeArgs({
      db: database.db,
      path: `/admin/books/${book('Django').id}`,
      cookie: admin.cookie,
      params: { bookId: book('Django').id },
      services,
      init,
    })

  async function save(prices: Record<string, string>, overrides: Record<string, string> = {}) {
    const page = await editLoader(editArgs())
    const body = new URLSearchParams({
      ...(page.values as Record<string, string>),
      version: String(page.version),
      intent: 'save',
      ...overrides,
    })
    for (const [currency, typed] of Object.entries(prices)) body.set(`price-${currency}`, typed)
    return answerOf(editAction(editArgs({ method: 'POST', body })))
  }

  test('a price per other currency offered, each refused beside its field like the price; nothing saved or lost', async () => {
    const page = await editLoader(editArgs())
    // The book is in USD: its other prices are EUR and GBP, none set yet.
    expect(page.prices).toEqual([
      { currency: 'EUR', value: '' },
      { currency: 'GBP', value: '' },
    ])
    const refused = await save({ EUR: '-3', GBP: '12.345' }, { title: 'Django, Renamed' })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      priceErrors: {
        EUR: 'The EUR price cannot be negative.',
        GBP: 'A price has at most 2 decimals, like 29.99.',
      },
      prices: { EUR: '-3', GBP: '12.345' },
      values: { title: 'Django, Renamed' },
    })
    expect((await save({ EUR: '17,99' })).body).toMatchObject({
      priceErrors: { EUR: 'The EUR price is an amount, like 29.99.' },
    })
    expect((await save({ GBP: '100001' })).body).toMatchObject({
      priceErrors: { GBP: 'The GBP price is at most 100,000.' },
    })
    // The book's own currency has its price above: typed here too, it is refused, not dropped silently.
    expect((await save({ EUR: '18' }, { currency: 'EUR' })).body).toMatchObject({
      priceErrors: { EUR: 'EUR is the book’s own currency: its price is the price above.' },
    })
    const [row] = await database.db
      .select()
      .from(books)
      .where(eq(books.id, book('Django').id))
    expect(row!.title).toBe(book('Django').title)
    expect(await database.db.select().from(bookPrices).where(eq(bookPrices.bookId, row!.id))).toEqual([])
  })

  test('saved with the book and audited with it; emptied, the book is no longer sold in that currency', async () => {
    const saved = await save({ EUR: '17.99', GBP: '15' })
    expect(saved.status).toBe(303)
    expect((await editLoader(editArgs())).prices).toEqual([
      { currency: 'EUR', value: '17.99' },
      { currency: 'GBP', value: '15.00' },
    ])
    const [entry] = (await listAuditLog(database.db, { entity: { type: 'book', id: book('Django').id } }))
      .rows
    expect(entry).toMatchObject({
      action: 'book.update',
      actorId: admin.userId,
      before: { prices: {} },
      after: { prices: { EUR: 1799, GBP: 1500 } },
    })

    await save({ EUR: '' })
    expect((await editLoader(editArgs())).prices).toEqual([
      { currency: 'EUR', value: '' },
      { currency: 'GBP', value: '15.00' },
    ])
    const [latest] = (await listAuditLog(database.db, { entity: { type: 'book', id: book('Django').id } }))
      .rows
    expect(latest).toMatchObject({ before: { prices: { EUR: 1799 } }, after: { prices: { GBP: 1500 } } })
    await setPrices(book('Django').id, { GBP: null })
  })
  test('the bulk fill: every dollar book priced in pounds at the owner’s rate, rounded to .99; prices set are kept unless replaced', async () => {
    const fill = (fields: Record<string, string>) =>
      answerOf(
        booksAction(
          routeArgs({
            db: database.db,
            path: '/admin/books',
            cookie: admin.cookie,
            services,
            init: { method: 'POST', body: new URLSearchParams({ intent: 'fill-prices', ...fields }) },
          }),
        ),
      )
    const pricesInGbp = async () =>
      Object.fromEntries(
        (
          await database.db
            .select({ slug: books.slug, cents: bookPrices.priceCents })
            .from(bookPrices)
            .innerJoin(books, eq(books.id, bookPrices.bookId))
            .where(eq(bookPrices.currency, 'GBP'))
        ).map((row) => [row.slug, row.cents]),
      )
    await database.db.delete(bookPrices).where(eq(bookPrices.currency, 'GBP'))
    expect((await fill({ currency: 'USD', rate: '0.8' })).body).toMatchObject({
      errors: { currency: 'Please choose one of the currencies the store offers besides its own.' },
    })
    const badRate = await fill({ currency: 'GBP', rate: '0,8' })
    expect(badRate).toMatchObject({ status: 400, body: { values: { rate: '0,8' } } })
    expect(await pricesInGbp()).toEqual({})

    await setPrices(book('Django').id, { GBP: 1234 })
    const filled = await fill({ currency: 'GBP', rate: '0.8' })
    expect(filled.body).toMatchObject({
      notice: 'GBP prices set for 6 books at 0.8 × USD, rounded to .99; 1 book kept the GBP price it had.',
    })
    // $99 × 0.8 = 79.20 → 78.99; $49 → 39.20 → 38.99; $19 → 15.20 → 14.99; the owner's 12.34 kept.
    expect(await pricesInGbp()).toMatchObject({
      'basics-to-advanced-in-react': 7899,
      'the-future-of-design-systems': 3899,
      'build-a-blockchain-from-scratch-in-go': 1499,
      'django-framework': 1234,
    })
    await fill({ currency: 'GBP', rate: '0.8', replace: 'on' })
    expect((await pricesInGbp())['django-framework']).toBe(1499)
    const [entry] = (await listAuditLog(database.db, { entity: { type: 'book-prices', id: 'GBP' } })).rows
    expect(entry).toMatchObject({
      action: 'book-prices.fill',
      actorId: admin.userId,
      after: { from: 'USD', currency: 'GBP', rate: 0.8, replace: true, filled: 7, kept: 0 },
    })
    await database.db.delete(bookPrices).where(
      and(
        eq(bookPrices.currency, 'GBP'),
        inArray(
          bookPrices.bookId,
          catalogue.map((b) => b.id),
        ),
      ),
    )
  })
})

describe('the buyer’s currency', () => {
  test('a buyer in France sees euros in the cart and the checkout, and pays an order in euros, lines and receipt', async () => {
    await setPrices(book('Basics To Advanced In React').id, { EUR: 8999 })
    await setPrices(book('The Future of Design Systems').id, { EUR: 4599 })
    const reader = await readerWithCart([
      book('Basics To Advanced In React').id,
      book('The Future of Design Systems').id,
    ])

    const cartPage = await openCart(reader.jar.header(), FRENCH_IP)
    expect(cartPage.lines.map((line) => `${line.priceCents} ${line.currency}`)).toEqual([
      '8999 EUR',
      '4599 EUR',
    ])
    expect(cartPage.currency).toMatchObject({ chosen: 'EUR', fallback: null })
    expect(cartPage.currency.options.map((option) => option.code)).toEqual(['USD', 'EUR', 'GBP'])

    const page = await openCheckout(reader.jar.header(), FRENCH_IP)
    expect(page.checkout).toMatchObject({ currency: 'EUR', totalCents: 8999 + 4599 })
    expect(page.checkout.lines.every((line) => line.currency === 'EUR')).toBe(true)

    const paid = await pay(reader.jar, FRENCH_IP, page)
    expect(paid.status).toBe(303)
    const order = await orderOf(reader.userId)
    expect(order).toMatchObject({ status: 'paid', currency: 'EUR', totalCents: 8999 + 4599 })
    expect(order.lines.map((line) => `${line.priceCents} ${line.currency}`)).toEqual(['8999 EUR', '4599 EUR'])
    const [receipt] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'receipt'), eq(emailOutbox.subjectKey, order.id)))
    expect(receipt!.text).toContain('€135.98')
  })

  test('the same cart from an American address is in dollars; a chosen currency wins over the country', async () => {
    await setPrices(book('Basics To Advanced In React').id, { EUR: 8999, GBP: 7999 })
    const reader = await readerWithCart([book('Basics To Advanced In React').id])
    expect((await openCart(reader.jar.header(), AMERICAN_IP)).lines[0]).toMatchObject({
      priceCents: 9900,
      currency: 'USD',
    })

    // The form, as posted without JavaScript: the choice is remembered and the buyer is back on the page.
    const chosen = await currencyAction(
      routeArgs({
        db: database.db,
        path: '/currency',
        cookie: reader.jar.header(),
        services,
        init: { method: 'POST', body: new URLSearchParams({ currency: 'GBP', redirectTo: '/checkout' }) },
      }),
    )
    expect(chosen).toBeInstanceOf(Response)
    expect((chosen as Response).status).toBe(303)
    expect((chosen as Response).headers.get('Location')).toBe('/checkout')
    reader.jar.take(chosen as Response)
    expect((await openCart(reader.jar.header(), FRENCH_IP)).lines[0]).toMatchObject({
      priceCents: 7999,
      currency: 'GBP',
    })
    expect((await openCheckout(reader.jar.header(), FRENCH_IP)).checkout.currency).toBe('GBP')

    // A currency the store does not offer is refused; a redirect off the site goes to the cart.
    const refused = await answerOf(
      currencyAction(
        routeArgs({
          db: database.db,
          path: '/currency',
          services,
          init: { method: 'POST', body: new URLSearchParams({ currency: 'CHF' }) },
        }),
      ),
    )
    expect(refused.status).toBe(400)
    const offSite = (await currencyAction(
      routeArgs({
        db: database.db,
        path: '/currency',
        services,
        init: {
          method: 'POST',
          body: new URLSearchParams({ currency: 'EUR', redirectTo: 'https://evil.example/' }),
        },
      }),
    )) as Response
    expect(offSite.headers.get('Location')).toBe('/cart')
  })

  test('a book without a euro price keeps the whole cart in dollars, and the cart and the checkout say so', async () => {
    await setPrices(book('Basics To Advanced In React').id, { EUR: 8999 })
    await setPrices(book('Build a Blockchain').id, { EUR: null })
    const reader = await readerWithCart([
      book('Basics To Advanced In React').id,
      book('Build a Blockchain').id,
    ])

    const cartPage = await openCart(reader.jar.header(), FRENCH_IP)
    expect(cartPage.lines.map((line) => `${line.priceCents} ${line.currency}`)).toEqual([
      '9900 USD',
      '1900 USD',
    ])
    expect(cartPage.currency.fallback).toBe(
      'Some books have no EUR price, so your cart is in USD: Build a Blockchain from Scratch in Go.',
    )
    const page = await openCheckout(reader.jar.header(), FRENCH_IP)
    expect(page.checkout.currency).toBe('USD')
    expect(page.currency.fallback).toBe(cartPage.currency.fallback)

    expect((await pay(reader.jar, FRENCH_IP, page)).status).toBe(303)
    const order = await orderOf(reader.userId)
    expect(order.currency).toBe('USD')
    expect(order.lines.map((line) => line.currency)).toEqual(['USD', 'USD'])
  })

  test('an amount its reader chose for a pay-what-you-want book is in the book’s own currency', async () => {
    const react = book('Basics To Advanced In React')
    await setPrices(react.id, { EUR: 8999 })
    await database.db.update(books).set({ pwywMinCents: 500 }).where(eq(books.id, react.id))
    try {
      const reader = await readerWithCart([])
      await chooseAmount(database.db, reader.cartId, react.id, 1200)
      const cartPage = await openCart(reader.jar.header(), FRENCH_IP)
      expect(cartPage.lines[0]).toMatchObject({ priceCents: 1200, currency: 'USD' })
      expect(cartPage.currency.fallback).toMatch(/^Some books have no EUR price, so your cart is in USD/)
    } finally {
      await database.db.update(books).set({ pwywMinCents: null }).where(eq(books.id, react.id))
    }
  })

  test('coupons: a dollar amount or a dollar minimum takes nothing off a euro cart; a percentage does', async () => {
    await setPrices(book('The Future of Design Systems').id, { EUR: 4599 })
    await database.db.insert(coupons).values([
      { code: 'FIVEDOLLARS', kind: 'amount', value: 500, currency: 'USD' },
      { code: 'TENPERCENT', kind: 'percent', value: 10 },
      { code: 'TENOVERTWENTY', kind: 'percent', value: 10, minOrderCents: 2000, currency: 'USD' },
    ])
    const reader = await readerWithCart([book('The Future of Design Systems').id])
    const priced = async (code: string) => {
      await setCartCoupon(database.db, reader.cartId, code)
      return openCart(reader.jar.header(), FRENCH_IP)
    }
    expect(await priced('FIVEDOLLARS')).toMatchObject({
      pricing: { discountCents: 0, currency: 'EUR' },
      coupon: { applied: false, message: 'This coupon is not for the currency of your cart.' },
    })
    expect((await priced('TENOVERTWENTY')).coupon).toMatchObject({ applied: false, reason: 'other-currency' })
    expect(await priced('TENPERCENT')).toMatchObject({ pricing: { discountCents: 460, currency: 'EUR' } })
    // In dollars, from an American address, the dollar coupon applies as before.
    await setCartCoupon(database.db, reader.cartId, 'FIVEDOLLARS')
    expect((await openCart(reader.jar.header(), AMERICAN_IP)).pricing).toMatchObject({
      discountCents: 500,
      currency: 'USD',
    })
  })

  test('Stripe is asked for euro lines', async () => {
    const stripe = stripeServices()
    await setPrices(book('The Future of Design Systems').id, { EUR: 4599 })
    const reader = await readerWithCart([book('The Future of Design Systems').id])
    const page = await openCheckout(reader.jar.header(), FRENCH_IP, stripe.services)
    const sent = await pay(reader.jar, FRENCH_IP, page, stripe.services)
    expect(sent.headers.get('Location')).toBe('https://checkout.stripe.com/c/pay/cs_test_currencies')
    expect(stripe.requests[0]!.get('line_items[0][price_data][currency]')).toBe('eur')
    expect(stripe.requests[0]!.get('line_items[0][price_data][unit_amount]')).toBe('4599')
    expect((await orderOf(reader.userId)).currency).toBe('EUR')
  })
})

/** The store with Stripe (a fake of its API, answering every session it is asked for) and what it was asked. */
function stripeServices() {
  const requests: URLSearchParams[] = []
  // Each store its own session id: an order's payment reference is unique.
  const sessionId = `cs_test_${crypto.randomUUID()}`
  const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init)
    requests.push(new URLSearchParams(await request.text()))
    return Response.json({
      id: sessionId,
      object: 'checkout.session',
      status: 'open',
      url: 'https://checkout.stripe.com/c/pay/cs_test_currencies',
    })
  }
  const stripeEnv = { STRIPE_SECRET_KEY: 'sk_test_codebook', STRIPE_WEBHOOK_SECRET: 'whsec_codebook' }
  const withStripe = createStoreServices({
    db: database.db,
    env: parseEnv({ STORE_CURRENCIES, ...stripeEnv }),
    authSecret: secret,
    logger: createLogger('silent'),
    payments: createStripePaymentProvider({
      secretKey: stripeEnv.STRIPE_SECRET_KEY,
      webhookSecret: stripeEnv.STRIPE_WEBHOOK_SECRET,
      httpClient: Stripe.createFetchHttpClient(fetchFn as typeof fetch),
    }),
  })
  return { services: withStripe, requests }
}

describe('tax, invoices and the accounts in the order’s currency (decisions 038 and 039)', () => {
  const react = () => book('Basics To Advanced In React')
  const design = () => book('The Future of Design Systems')

  /** The seller's legal identity, so that a paid order is invoiced (decision 037). */
  async function sellerIsSet() {
    const { settings, version } = await readEditableStoreSettings(database.db)
    const { logo: _logo, ...edited } = settings
    await saveStoreSettings(database.db, admin.actor, version, {
      ...edited,
      legalName: 'CodeBook GmbH',
      postalAddress: 'Hauptstraße 1\n10115 Berlin',
      contactEmail: 'billing@codebook.example',
    })
    await saveTaxSettings(database.db, admin.actor, { ...defaultTaxSettings, sellerCountry: 'DE' })
  }

  /** Today's money in `currency`, as the triggers keep it (revenue_daily: UTC days). */
  async function moneyToday(currency: string) {
    const [row] = await database.db
      .select()
      .from(revenueDaily)
      .where(
        and(eq(revenueDaily.day, new Date().toISOString().slice(0, 10)), eq(revenueDaily.currency, currency)),
      )
    const {
      day: _day,
      currency: _currency,
      ...figures
    } = row ?? {
      day: '',
      currency,
      orders: 0,
      grossCents: 0,
      netCents: 0,
      taxCents: 0,
      refunds: 0,
      refundCents: 0,
      refundNetCents: 0,
      refundTaxCents: 0,
    }
    return figures
  }
  const minus = <T extends Record<string, number>>(after: T, before: T) =>
    Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - before[key]!]))

  test('a buyer in Germany pays a euro cart taxed line by line on its euro prices; its invoice, a refund’s credit note and the day’s money are in euros', async () => {
    await sellerIsSet()
    await setPrices(react().id, { EUR: 8999 })
    await setPrices(design().id, { EUR: 4599 })
    const [eurBefore, usdBefore] = [await moneyToday('EUR'), await moneyToday('USD')]
    const reader = await readerWithCart([react().id, design().id])

    const page = await openCheckout(reader.jar.header(), GERMAN_IP)
    expect(page.billingCountry).toBe('DE')
    // Germany's 7 % on eBooks, included in the price: each euro price taxed on its own, in cents.
    const expected = [8999, 4599].map((cents) => taxLine(cents, 700, 'inclusive'))
    const taxCents = expected[0]!.taxCents + expected[1]!.taxCents
    expect(page.checkout).toMatchObject({ currency: 'EUR', totalCents: 8999 + 4599 })
    expect(page.checkout.tax).toMatchObject({ country: 'DE', rateBp: 700, lines: expected, taxCents })

    expect((await pay(reader.jar, GERMAN_IP, page)).status).toBe(303)
    const order = await orderOf(reader.userId)
    expect(order).toMatchObject({
      status: 'paid',
      currency: 'EUR',
      taxCountry: 'DE',
      totalCents: 8999 + 4599,
      taxCents,
      netCents: 8999 + 4599 - taxCents,
    })
    // By title: React, then Design Systems, as `expected`.
    expect(
      order.lines.map(({ currency, priceCents, netCents, taxCents, grossCents, taxRateBp }) => ({
        currency,
        priceCents,
        netCents,
        taxCents,
        grossCents,
        taxRateBp,
      })),
    ).toEqual(
      expected.map(({ rateBp, ...line }, index) => ({
        currency: 'EUR',
        priceCents: [8999, 4599][index],
        ...line,
        taxRateBp: rateBp,
      })),
    )

    // The invoice, issued at payment, is in the order's currency, as each of its lines.
    const [invoice] = await database.db.select().from(invoices).where(eq(invoices.orderId, order.id))
    expect(invoice).toMatchObject({ kind: 'invoice', currency: 'EUR', totalCents: 8999 + 4599, taxCents })
    expect((invoice!.document as InvoiceDocument).currency).toBe('EUR')

    // The back office refunds the React book: its refund, its credit note and its mail are in euros.
    const reactLine = order.lines.find((line) => line.bookId === react().id)!
    const refunded = await answerOf(
      adminOrderAction(
        routeArgs({
          db: database.db,
          path: `/admin/orders/${order.id}`,
          cookie: admin.cookie,
          params: { orderId: order.id },
          services,
          init: {
            method: 'POST',
            body: new URLSearchParams({
              confirm: 'yes',
              key: crypto.randomUUID(),
              scope: 'lines',
              line: reactLine.bookId,
              reason: 'Bought twice',
            }),
          },
        }),
      ),
    )
    expect(refunded.status).toBe(302)
    const [refund] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.id))
    expect(refund).toMatchObject({
      status: 'confirmed',
      currency: 'EUR',
      amountCents: reactLine.grossCents,
      taxCents: reactLine.taxCents,
    })
    const [creditNote] = await database.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.orderId, order.id), eq(invoices.kind, 'credit_note')))
    expect(creditNote).toMatchObject({ currency: 'EUR', totalCents: 8999, taxCents: reactLine.taxCents })
    expect((creditNote!.document as InvoiceDocument).currency).toBe('EUR')
    const [mail] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'refund'), eq(emailOutbox.to, reader.email)))
    expect(mail!.text).toContain('€89.99 is on its way back to you')

    // The day's money: this order and its refund in euros, nothing in dollars.
    expect(minus(await moneyToday('EUR'), eurBefore)).toEqual({
      orders: 1,
      grossCents: 8999 + 4599,
      netCents: 8999 + 4599 - taxCents,
      taxCents,
      refunds: 1,
      refundCents: 8999,
      refundNetCents: reactLine.netCents,
      refundTaxCents: reactLine.taxCents,
    })
    expect(await moneyToday('USD')).toEqual(usdBefore)

    // The accounts page: euros apart from dollars, and Germany's 7 % in euros in the tax table.
    const accounts = await accountsLoader(
      routeArgs({ db: database.db, path: '/admin/accounts', cookie: admin.cookie, services }),
    )
    if (!('money' in accounts) || accounts.errors) throw new Error('expected the accounts of this month')
    expect(accounts.money.map((money) => money.currency)).toContain('EUR')
    expect(accounts.taxReturn).toContainEqual(
      expect.objectContaining({ kind: 'taxed', country: 'DE', rateBp: 700, currency: 'EUR' }),
    )
  })

  test('prices before tax: the tax is added to each euro price, and Stripe is asked for each line at its gross in euros', async () => {
    await saveTaxSettings(database.db, admin.actor, { ...defaultTaxSettings, pricesIncludeTax: false })
    try {
      const stripe = stripeServices()
      await setPrices(react().id, { EUR: 8999 })
      await setPrices(design().id, { EUR: 4599 })
      const reader = await readerWithCart([react().id, design().id])
      const page = await openCheckout(reader.jar.header(), GERMAN_IP, stripe.services)
      const expected = [8999, 4599].map((cents) => taxLine(cents, 700, 'exclusive'))
      const gross = expected.map((line) => line.grossCents)
      expect(gross).toEqual([9629, 4921])
      expect(page.checkout).toMatchObject({ currency: 'EUR', totalCents: gross[0]! + gross[1]! })

      const sent = await pay(reader.jar, GERMAN_IP, page, stripe.services)
      expect(sent.headers.get('Location')).toBe('https://checkout.stripe.com/c/pay/cs_test_currencies')
      const asked = [0, 1].map((index) => [
        stripe.requests[0]!.get(`line_items[${index}][price_data][currency]`),
        Number(stripe.requests[0]!.get(`line_items[${index}][price_data][unit_amount]`)),
      ])
      expect(asked.toSorted()).toEqual(gross.map((cents) => ['eur', cents]).toSorted())
      expect(await orderOf(reader.userId)).toMatchObject({
        status: 'pending',
        currency: 'EUR',
        totalCents: gross[0]! + gross[1]!,
      })
    } finally {
      await saveTaxSettings(database.db, admin.actor, { ...defaultTaxSettings, sellerCountry: 'DE' })
    }
  })

  test('another currency chosen between the page and the payment changes the checkout’s key: nothing charged, the page priced again', async () => {
    await setPrices(design().id, { EUR: 4599 })
    const reader = await readerWithCart([design().id])
    const inEuros = await openCheckout(reader.jar.header(), GERMAN_IP)
    expect(inEuros.checkout.currency).toBe('EUR')

    const chosen = (await currencyAction(
      routeArgs({
        db: database.db,
        path: '/currency',
        cookie: reader.jar.header(),
        services,
        init: { method: 'POST', body: new URLSearchParams({ currency: 'USD', redirectTo: '/checkout' }) },
      }),
    )) as Response
    reader.jar.take(chosen)
    const inDollars = await openCheckout(reader.jar.header(), GERMAN_IP)
    // The same cart, the same tax country and rate: only the currency differs, and so does the key.
    expect(inDollars.checkout).toMatchObject({ currency: 'USD', totalCents: 4900 })
    expect(inDollars.checkout.tax).toMatchObject({ country: 'DE', rateBp: 700 })
    expect(inDollars.checkout.idempotencyKey).not.toBe(inEuros.checkout.idempotencyKey)

    const refused = await pay(reader.jar, GERMAN_IP, inEuros)
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ formError: expect.stringMatching(/changed/) })
    expect(await database.db.select().from(orders).where(eq(orders.userId, reader.userId))).toEqual([])

    expect((await pay(reader.jar, GERMAN_IP, inDollars)).status).toBe(303)
    expect(await orderOf(reader.userId)).toMatchObject({ status: 'paid', currency: 'USD', totalCents: 4900 })
  })
})

describe('pages shared by visitors', () => {
  test('the cart and the checkout are never kept in the shared page cache; a book page is the same in any currency', async () => {
    await setPrices(book('The Future of Design Systems').id, { EUR: 4599 })
    // Two visitors without an account whose carts hold the same book: the page cache's key is the same.
    const visitor = async () => {
      const jar = new CookieJar()
      const added = await cart.action(
        routeArgs({
          db: database.db,
          path: '/cart',
          services,
          init: {
            method: 'POST',
            body: new URLSearchParams({ intent: 'add', bookId: book('The Future of Design Systems').id }),
          },
        }),
      )
      jar.take(added as Response)
      return jar
    }
    const [french, american] = [await visitor(), await visitor()]
    const keyOf = (jar: CookieJar) =>
      visitorKey(new Request('http://localhost/cart', { headers: { Cookie: jar.header() } }), services)
    expect(await keyOf(french)).toBe(await keyOf(american))

    const inFrance = await openCart(french.header(), FRENCH_IP)
    const inAmerica = await openCart(american.header(), AMERICAN_IP)
    expect(inFrance.lines[0]!.currency).toBe('EUR')
    expect(inAmerica.lines[0]!.currency).toBe('USD')
    // So the cart's answer says it is this visitor's alone, and the cache does not keep it.
    const pageCache = new PageCache({
      ttlMs: 60_000,
      maxEntries: 10,
      maxBytes: 1024 * 1024,
      visitorKey: (request) => visitorKey(request, services),
      policy: () => "script-src 'self'",
    })
    for (const headersOf of [cart.headers, (await import('#app/routes/checkout.tsx')).headers]) {
      const headers = new Headers(
        headersOf({
          actionHeaders: new Headers(),
          parentHeaders: new Headers(),
          loaderHeaders: new Headers(),
          errorHeaders: undefined,
        } as never) as HeadersInit,
      )
      headers.set('Content-Type', 'text/html; charset=utf-8')
      const rendered = new Response('<p>€45.99</p>', { headers })
      expect(pageCache.store('cart-key', rendered, '<p>€45.99</p>', 'n0nce', [])).toBeUndefined()
    }

    // A book page reads nothing of the visitor's currency: the same data in France and in America.
    const bookPage = (clientIp: string, cookie: string) =>
      bookLoader(
        routeArgs({
          db: database.db,
          path: '/books/the-future-of-design-systems',
          params: { slug: book('The Future of Design Systems').slug },
          cookie,
          clientIp,
          services,
        }),
      )
    const [a, b] = [
      await bookPage(FRENCH_IP, `${french.header()}; currency=EUR`),
      await bookPage(AMERICAN_IP, american.header()),
    ]
    expect(a.book).toEqual(b.book)
    expect(a.book).toMatchObject({ priceCents: 4900, currency: 'USD' })
  })
})
