/**
 * Tax at checkout (issue 31, decision 038): the shipped rates, a rate change at midnight in the country's own
 * time, the buyer's country from their billing choice and their IP address (two that agree, or a
 * confirmation), prices with or without tax, reverse charge for an EU business's VAT number checked against a
 * double of VIES, and what the order keeps.
 */
import { asc, eq, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { addToCart, requireUserCart } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { taxLine } from '#app/features/tax/compute-tax.ts'
import { shippedTaxRates } from '#app/features/tax/tax-rates-data.ts'
import { findTaxRate } from '#app/features/tax/tax-rates.server.ts'
import { defaultTaxSettings, getTaxSettings, saveTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import { cachedVatChecker, createViesChecker } from '#app/features/tax/vies.server.ts'
import { action as adminTaxAction, loader as adminTaxLoader } from '#app/routes/admin/tax.tsx'
import { action as checkoutAction, loader as checkoutLoader } from '#app/routes/checkout.tsx'
import { auditLog, orderItems, orders, taxRates } from '#app/server/db/schema/index.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'
import { CookieJar } from '#harness/cookie-jar.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createReader } from '#harness/factories/buyers.ts'
import { testStorage } from '#harness/services.ts'
import { startViesDouble, type ViesDouble } from '#harness/vies-double.ts'

const GERMAN_IP = '85.214.132.117'
const FRENCH_IP = '90.0.0.1'
const AUSTRIAN_IP = '193.154.0.1'
const GOOD_CARD = { name: 'Ada Reader', number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let vies: ViesDouble
let services: StoreServices
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  vies = await startViesDouble()
  services = createStoreServices({
    db: database.db,
    env: parseEnv({}),
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
    storage: testStorage(),
    vatChecker: cachedVatChecker(createViesChecker({ baseUrl: vies.url, timeoutMs: 2000 })),
  })
})
test.afterAll(async () => {
  await vies?.stop()
})

/** A signed-in reader with two books in the cart, and the jar of cookies their browser holds. */
async function buyerWithCart() {
  const reader = await createReader(database.db)
  const cartId = await requireUserCart(database.db, reader.userId)
  for (const book of catalogue.slice(0, 2)) await addToCart(database.db, cartId, book.id)
  return { ...reader, jar: new CookieJar(reader.cookie) }
}

async function openCheckout(jar: CookieJar, clientIp: string) {
  const page = await checkoutLoader(
    routeArgs({ db: database.db, path: '/checkout', cookie: jar.header(), clientIp, services }),
  )
  if (page.step !== 'pay') throw new Error(`expected the payment step, got ${page.step}`)
  return page
}

/** Posts the page's form as a browser would (its hidden fields, the card, `fields` over them). */
async function pay(
  jar: CookieJar,
  clientIp: string,
  page: Awaited<ReturnType<typeof openCheckout>>,
  fields: Record<string, string> = {},
) {
  const result = await checkoutAction(
    routeArgs({
      db: database.db,
      path: '/checkout',
      cookie: jar.header(),
      clientIp,
      services,
      init: {
        method: 'POST',
        body: new URLSearchParams({
          ...GOOD_CARD,
          idempotencyKey: page.checkout.idempotencyKey,
          attemptId: page.checkout.attemptId,
          billingCountry: page.billingCountry,
          pricedCountry: page.billingCountry,
          pricedVatNumber: page.vat?.number ?? '',
          vatNumber: page.vat?.number ?? '',
          ...fields,
        }),
      },
    }),
  )
  if (result instanceof Response) {
    jar.take(result)
    return { status: result.status, location: result.headers.get('Location'), body: null }
  }
  const { data, init } = result as unknown as {
    data: {
      billing?: { field: string; message: string; askConfirmation: boolean }
      invoiceTo?: { name: string; address: string }
      formError?: string
    }
    init: { status: number; headers?: Headers }
  }
  if (init.headers) jar.take(init.headers)
  return { status: init.status, location: null, body: data }
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

describe('the rate table', () => {
  test('the store starts with the rates it ships, country by country and day by day', async () => {
    const rows = await database.db
      .select({
        country: taxRates.country,
        from: taxRates.effectiveFrom,
        ebookBp: taxRates.ebookRateBp,
        standardBp: taxRates.standardRateBp,
      })
      .from(taxRates)
      .where(eq(taxRates.source, 'shipped'))
    const shipped = shippedTaxRates.flatMap((entry) =>
      entry.rates.map((rate) => ({
        country: entry.country,
        from: rate.from,
        ebookBp: rate.ebookBp,
        standardBp: rate.standardBp,
      })),
    )
    const byKey = (row: { country: string; from: string }) => `${row.country} ${row.from}`
    expect(rows.map(byKey).toSorted()).toEqual(shipped.map(byKey).toSorted())
    expect(rows.toSorted((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(
      shipped.toSorted((a, b) => byKey(a).localeCompare(byKey(b))),
    )
  })

  test('a rate changes at midnight in the country’s own time, not in UTC', async () => {
    // Germany's temporary cut began on 1 July 2020: midnight in Berlin (summer time) is 22:00 UTC.
    expect((await findTaxRate(database.db, 'DE', new Date('2020-06-30T21:59:59.999Z')))?.rateBp).toBe(700)
    expect((await findTaxRate(database.db, 'DE', new Date('2020-06-30T22:00:00.000Z')))?.rateBp).toBe(500)
    // …and ended at midnight on 1 January 2021, winter time: 23:00 UTC.
    expect((await findTaxRate(database.db, 'DE', new Date('2020-12-31T22:59:59.999Z')))?.rateBp).toBe(500)
    expect((await findTaxRate(database.db, 'DE', new Date('2020-12-31T23:00:00.000Z')))?.rateBp).toBe(700)
    // Romania from 1 August 2025 (UTC+3).
    expect((await findTaxRate(database.db, 'RO', new Date('2025-07-31T20:59:59Z')))?.rateBp).toBe(500)
    expect((await findTaxRate(database.db, 'RO', new Date('2025-07-31T21:00:00Z')))?.rateBp).toBe(1100)
    // A country the store does not tax in, and a date before a country's first row.
    expect(await findTaxRate(database.db, 'US', new Date())).toBeNull()
    expect(await findTaxRate(database.db, 'CH', new Date('2020-01-01T12:00:00Z'))).toBeNull()
  })
})

describe('checkout taxes the buyer’s country', () => {
  test('a buyer in Germany sees and pays German eBook VAT, included in the price; the order keeps it', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, GERMAN_IP)
    expect(page.billingCountry).toBe('DE')
    const prices = catalogue.slice(0, 2).map((book) => book.priceCents)
    const expected = prices.map((cents) => taxLine(cents, 700, 'inclusive'))
    expect(page.checkout.tax).toMatchObject({
      country: 'DE',
      countryName: 'Germany',
      taxName: 'VAT',
      rateBp: 700,
      pricesIncludeTax: true,
      taxCents: expected.reduce((sum, line) => sum + line.taxCents, 0),
    })
    expect(page.checkout.totalCents).toBe(prices[0]! + prices[1]!)

    const paid = await pay(buyer.jar, GERMAN_IP, page)
    expect(paid.status).toBe(303)
    const order = await orderOf(buyer.userId)
    expect(order).toMatchObject({
      status: 'paid',
      taxCountry: 'DE',
      billingCountry: 'DE',
      ipCountry: 'DE',
      evidenceStatus: 'two-agree',
      pricesIncludeTax: true,
      reverseCharge: false,
      totalCents: prices[0]! + prices[1]!,
      taxCents: expected.reduce((sum, line) => sum + line.taxCents, 0),
    })
    expect(order.netCents + order.taxCents).toBe(order.totalCents)
    for (const line of order.lines) {
      expect(line.taxRateBp).toBe(700)
      const { netCents, taxCents, grossCents } = taxLine(line.priceCents, 700, 'inclusive')
      expect(line).toMatchObject({ netCents, taxCents, grossCents })
      expect(line.grossCents).toBe(line.priceCents)
    }
  })

  test('with prices before tax, the tax is added and charged', async () => {
    await saveTaxSettings(database.db, commandLineActor, { ...defaultTaxSettings, pricesIncludeTax: false })
    try {
      const buyer = await buyerWithCart()
      const page = await openCheckout(buyer.jar, FRENCH_IP)
      const prices = catalogue.slice(0, 2).map((book) => book.priceCents)
      const taxes = prices.map((cents) => taxLine(cents, 550, 'exclusive').taxCents)
      expect(page.checkout.tax).toMatchObject({ country: 'FR', rateBp: 550, pricesIncludeTax: false })
      expect(page.checkout.totalCents).toBe(prices[0]! + prices[1]! + taxes[0]! + taxes[1]!)
      expect((await pay(buyer.jar, FRENCH_IP, page)).status).toBe(303)
      const order = await orderOf(buyer.userId)
      expect(order).toMatchObject({
        pricesIncludeTax: false,
        netCents: prices[0]! + prices[1]!,
        taxCents: taxes[0]! + taxes[1]!,
        totalCents: prices[0]! + prices[1]! + taxes[0]! + taxes[1]!,
      })
      for (const line of order.lines) expect(line.netCents).toBe(line.priceCents)
    } finally {
      await saveTaxSettings(database.db, commandLineActor, defaultTaxSettings)
    }
  })

  test('a rate changed between the page and the payment: nothing is charged, the new tax is shown', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, GERMAN_IP)
    const today = new Date().toISOString().slice(0, 10)
    const [added] = await database.db
      .insert(taxRates)
      .values({ country: 'DE', effectiveFrom: today, ebookRateBp: 1900, standardRateBp: 1900 })
      .returning()
    try {
      const refused = await pay(buyer.jar, GERMAN_IP, page)
      expect(refused.status).toBe(409)
      expect(refused.body?.formError).toMatch(/changed/)
      const again = await openCheckout(buyer.jar, GERMAN_IP)
      expect(again.checkout.tax.rateBp).toBe(1900)
      expect((await pay(buyer.jar, GERMAN_IP, again)).status).toBe(303)
      expect((await orderOf(buyer.userId)).lines.every((line) => line.taxRateBp === 1900)).toBe(true)
    } finally {
      await database.db.delete(taxRates).where(eq(taxRates.id, added!.id))
    }
  })
})

describe('evidence of where the buyer is', () => {
  test('another billing country than the page priced: nothing charged, the page priced for it', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, FRENCH_IP)
    expect(page.billingCountry).toBe('FR')
    const refused = await pay(buyer.jar, FRENCH_IP, page, { billingCountry: 'DE' })
    expect(refused.status).toBe(409)
    expect(refused.body?.billing).toMatchObject({ field: 'billingCountry', askConfirmation: false })
    expect(refused.body?.billing?.message).toMatch(/tax for Germany/)
    const [order] = await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))
    expect(order).toBeUndefined()
    // The choice is remembered: the page is now priced for Germany.
    expect((await openCheckout(buyer.jar, FRENCH_IP)).checkout.tax.country).toBe('DE')
  })

  test('billing country and IP disagree: the buyer is asked to confirm; confirmed, it is recorded so', async () => {
    const buyer = await buyerWithCart()
    buyer.jar.take('billing-country=DE; Path=/')
    const page = await openCheckout(buyer.jar, FRENCH_IP)
    expect(page.billingCountry).toBe('DE')
    const asked = await pay(buyer.jar, FRENCH_IP, page)
    expect(asked.status).toBe(409)
    expect(asked.body?.billing).toMatchObject({ field: 'billingCountry', askConfirmation: true })
    expect(asked.body?.billing?.message).toMatch(/appears to be in France.*billing address is in Germany/)
    expect(await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))).toEqual([])

    const again = await openCheckout(buyer.jar, FRENCH_IP)
    expect((await pay(buyer.jar, FRENCH_IP, again, { confirmCountry: 'yes' })).status).toBe(303)
    expect(await orderOf(buyer.userId)).toMatchObject({
      taxCountry: 'DE',
      billingCountry: 'DE',
      ipCountry: 'FR',
      // A US card (4242…): the third piece of evidence names neither, and is kept for the owner to see.
      cardCountry: 'US',
      evidenceStatus: 'buyer-confirmed',
    })
  })

  test('confirmed, then paid with a card from the billing country: two pieces agree, and that is recorded', async () => {
    const buyer = await buyerWithCart()
    buyer.jar.take('billing-country=DE; Path=/')
    const page = await openCheckout(buyer.jar, FRENCH_IP)
    const germanCard = { number: '4000 0027 6000 0016', confirmCountry: 'yes' }
    expect((await pay(buyer.jar, FRENCH_IP, page, germanCard)).status).toBe(303)
    expect(await orderOf(buyer.userId)).toMatchObject({
      taxCountry: 'DE',
      billingCountry: 'DE',
      ipCountry: 'FR',
      cardCountry: 'DE',
      cardBrand: 'Visa',
      cardLast4: '0016',
      evidenceStatus: 'two-agree',
    })
  })

  test('no tax anywhere in sight (US billing, unknown address): no question asked', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, '127.0.0.1')
    expect(page.billingCountry).toBe('US')
    expect(page.checkout.tax).toMatchObject({ country: null, taxCents: 0 })
    expect((await pay(buyer.jar, '127.0.0.1', page)).status).toBe(303)
    expect(await orderOf(buyer.userId)).toMatchObject({
      taxCountry: null,
      taxCents: 0,
      billingCountry: 'US',
      ipCountry: null,
      evidenceStatus: 'untaxed',
    })
  })

  test('a bad billing country is refused next to the field', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, GERMAN_IP)
    for (const billingCountry of ['', 'XX', 'de', 'Germany']) {
      const refused = await pay(buyer.jar, GERMAN_IP, page, { billingCountry })
      expect(refused.status).toBe(400)
      expect(refused.body?.billing).toMatchObject({
        field: 'billingCountry',
        message: 'Please choose your billing country.',
      })
    }
  })
})

describe('business buyers: reverse charge', () => {
  const SELLER_IN_GERMANY = { ...defaultTaxSettings, sellerCountry: 'DE', sellerVatNumber: 'DE136695976' }

  test('an Austrian business with a valid VAT number pays no VAT; the order says reverse charge', async () => {
    await saveTaxSettings(database.db, commandLineActor, SELLER_IN_GERMANY)
    try {
      const buyer = await buyerWithCart()
      const page = await openCheckout(buyer.jar, AUSTRIAN_IP)
      expect(page.checkout.tax).toMatchObject({ country: 'AT', rateBp: 1000, reverseCharge: false })
      // The number typed: the page is shown again for it before anything is charged.
      const shown = await pay(buyer.jar, AUSTRIAN_IP, page, { vatNumber: 'ATU 1201 1204' })
      expect(shown.status).toBe(409)
      expect(shown.body?.billing?.field).toBe('vatNumber')
      const again = await openCheckout(buyer.jar, AUSTRIAN_IP)
      expect(again.vat).toMatchObject({ number: 'ATU12011204', status: 'reverse-charge' })
      expect(again.checkout.tax).toMatchObject({ reverseCharge: true, rateBp: 0, taxCents: 0 })
      // An invoice to a business names it and its address: asked for beside each field, nothing charged.
      const unnamed = await pay(buyer.jar, AUSTRIAN_IP, again, { billingAddress: 'Ring 1\n1010 Wien' })
      expect(unnamed.status).toBe(400)
      expect(unnamed.body?.billing).toMatchObject({ field: 'billingName' })
      expect(unnamed.body).toMatchObject({ invoiceTo: { name: '', address: 'Ring 1\n1010 Wien' } })
      const unaddressed = await pay(buyer.jar, AUSTRIAN_IP, again, { billingName: 'Wiener Bücher GmbH' })
      expect(unaddressed.body?.billing).toMatchObject({ field: 'billingAddress' })
      expect(await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))).toEqual([])
      const invoiceTo = { billingName: ' Wiener Bücher GmbH ', billingAddress: 'Ring 1\r\n\r\n 1010 Wien ' }
      expect((await pay(buyer.jar, AUSTRIAN_IP, again, invoiceTo)).status).toBe(303)
      const order = await orderOf(buyer.userId)
      expect(order).toMatchObject({
        taxCountry: 'AT',
        reverseCharge: true,
        buyerVatNumber: 'ATU12011204',
        taxCents: 0,
        billingName: 'Wiener Bücher GmbH',
        billingAddress: 'Ring 1\n1010 Wien',
      })
      // The next checkout starts from them.
      const cartId = await requireUserCart(database.db, buyer.userId)
      await addToCart(database.db, cartId, catalogue[3]!.id)
      expect((await openCheckout(buyer.jar, AUSTRIAN_IP)).invoiceTo).toEqual({
        name: 'Wiener Bücher GmbH',
        address: 'Ring 1\n1010 Wien',
      })
      expect(order.lines.every((line) => line.taxRateBp === 0 && line.taxCents === 0)).toBe(true)
      expect(vies.requests.some((request) => request.vatNumber === 'U12011204')).toBe(true)
    } finally {
      await saveTaxSettings(database.db, commandLineActor, defaultTaxSettings)
    }
  })

  test('a number VIES does not know, or cannot check now, is charged VAT and told so', async () => {
    await saveTaxSettings(database.db, commandLineActor, SELLER_IN_GERMANY)
    try {
      for (const [ip, country, number, status] of [
        [FRENCH_IP, 'FR', 'FR40303265045', 'invalid'],
        ['151.1.1.1', 'IT', 'IT00000010215', 'unavailable'],
      ] as const) {
        const buyer = await buyerWithCart()
        buyer.jar.take(`vat-number=${number}; Path=/`)
        const page = await openCheckout(buyer.jar, ip)
        expect(page.billingCountry).toBe(country)
        expect(page.vat).toMatchObject({ number, status })
        expect(page.checkout.tax.reverseCharge).toBe(false)
        expect(page.checkout.tax.rateBp).toBeGreaterThan(0)
        const business = { billingName: 'Entreprise SA', billingAddress: '1 rue de Rivoli\n75001 Paris' }
        expect((await pay(buyer.jar, ip, page, business)).status).toBe(303)
        expect(await orderOf(buyer.userId)).toMatchObject({ reverseCharge: false, buyerVatNumber: null })
      }
    } finally {
      await saveTaxSettings(database.db, commandLineActor, defaultTaxSettings)
    }
  })

  test('a name or address too long is refused beside its field; a consumer needs neither', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, GERMAN_IP)
    const long = await pay(buyer.jar, GERMAN_IP, page, { billingName: 'x'.repeat(201) })
    expect(long.status).toBe(400)
    expect(long.body?.billing).toMatchObject({ field: 'billingName' })
    const lines = await pay(buyer.jar, GERMAN_IP, page, { billingAddress: 'a\nb\nc\nd\ne\nf\ng' })
    expect(lines.body?.billing).toMatchObject({ field: 'billingAddress' })
    expect(lines.body?.billing?.message).toMatch(/at most 6 lines/)
    expect((await pay(buyer.jar, GERMAN_IP, page)).status).toBe(303)
    expect(await orderOf(buyer.userId)).toMatchObject({ billingName: null, billingAddress: null })
  })

  test('a malformed VAT number is refused next to its field, nothing charged', async () => {
    const buyer = await buyerWithCart()
    const page = await openCheckout(buyer.jar, GERMAN_IP)
    const refused = await pay(buyer.jar, GERMAN_IP, page, { vatNumber: 'DE12' })
    expect(refused.status).toBe(400)
    expect(refused.body?.billing).toMatchObject({ field: 'vatNumber' })
    expect(refused.body?.billing?.message).toMatch(/German VAT number/)
    expect(await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))).toEqual([])
  })
})

describe('the back office’s tax page', () => {
  async function postTax(cookie: string, fields: Record<string, string>) {
    try {
      const result = await adminTaxAction(
        routeArgs({
          db: database.db,
          path: '/admin/tax',
          cookie,
          services,
          init: { method: 'POST', body: new URLSearchParams(fields) },
        }),
      )
      const { data, init } = result as unknown as {
        data: { errors: Record<string, string> }
        init: ResponseInit
      }
      return { status: init.status, errors: data.errors, location: null }
    } catch (thrown) {
      if (!(thrown instanceof Response)) throw thrown
      return { status: thrown.status, errors: null, location: thrown.headers.get('Location') }
    }
  }

  test('lists every country with the rate in effect today', async () => {
    const admin = await createAdmin(database.db)
    const page = await adminTaxLoader(
      routeArgs({ db: database.db, path: '/admin/tax', cookie: admin.cookie }),
    )
    const germany = page.table.find((entry) => entry.country === 'DE')!
    expect(germany).toMatchObject({ name: 'Germany', taxName: 'VAT', current: { ebookRateBp: 700 } })
    expect(germany.rows.map((row) => row.effectiveFrom)).toEqual([
      '2021-01-01',
      '2020-07-01',
      '2019-12-18',
      '2016-01-01',
    ])
  })

  test('a rate is validated field by field; a good one is saved, audited and charged', async () => {
    const admin = await createAdmin(database.db)
    const good = {
      intent: 'rate',
      country: 'NL',
      effectiveFrom: '2000-01-02',
      ebookRate: '9',
      standardRate: '21',
    }
    for (const [fields, field, message] of [
      [{ country: 'US' }, 'country', /countries the store charges tax in/],
      [{ effectiveFrom: '2026-02-30' }, 'effectiveFrom', /does not exist/],
      [{ effectiveFrom: '1 May 2026' }, 'effectiveFrom', /YYYY-MM-DD/],
      [{ ebookRate: 'nine' }, 'ebookRate', /percentage/],
      [{ ebookRate: '100.5' }, 'ebookRate', /at most 100/],
      [{ standardRate: '21.555' }, 'standardRate', /two decimals/],
      [{ note: 'x'.repeat(201) }, 'note', /200/],
    ] as const) {
      const refused = await postTax(admin.cookie, { ...good, ...fields })
      expect(refused.status).toBe(400)
      expect(refused.errors?.[field]).toMatch(message)
    }
    const saved = await postTax(admin.cookie, { ...good, ebookRate: '5,5' })
    expect(saved).toMatchObject({ status: 303, location: '/admin/tax?done=rate#rates-NL' })
    const [row] = await database.db
      .select()
      .from(taxRates)
      .where(sql`${taxRates.country} = 'NL' and ${taxRates.effectiveFrom} = '2000-01-02'`)
    expect(row).toMatchObject({ ebookRateBp: 550, standardRateBp: 2100, source: 'owner' })
    const [audit] = await database.db.select().from(auditLog).where(eq(auditLog.entityId, row!.id))
    expect(audit).toMatchObject({ action: 'tax-rate.create', actorEmail: admin.email })
  })

  test('the settings: a seller VAT number is checked for the seller’s country; saved and audited', async () => {
    const admin = await createAdmin(database.db)
    const refused = await postTax(admin.cookie, {
      intent: 'settings',
      pricesIncludeTax: 'inclusive',
      sellerCountry: 'DE',
      sellerVatNumber: 'DE123',
    })
    expect(refused.status).toBe(400)
    expect(refused.errors?.sellerVatNumber).toMatch(/German VAT number/)
    try {
      const saved = await postTax(admin.cookie, {
        intent: 'settings',
        pricesIncludeTax: 'exclusive',
        sellerCountry: 'DE',
        sellerVatNumber: 'de 136 695 976',
      })
      expect(saved.status).toBe(303)
      expect(await getTaxSettings(database.db)).toEqual({
        pricesIncludeTax: false,
        sellerCountry: 'DE',
        sellerVatNumber: 'DE136695976',
      })
    } finally {
      await saveTaxSettings(database.db, commandLineActor, defaultTaxSettings)
    }
  })
})
