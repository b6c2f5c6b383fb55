import { and, asc, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { getPricingReport } from '#app/features/analytics/pricing-report.server.ts'
import { addDays, type DayRange } from '#app/features/analytics/range.ts'
import { utcDay } from '#app/features/analytics/visitor.server.ts'
import { addToCart, chooseAmount, requireUserCart, setCartCoupon } from '#app/features/cart/cart.server.ts'
import { addBundleToCart } from '#app/features/cart/cart-bundles.server.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { placeOrderWithCard } from '#app/features/orders/card-checkout.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { checkoutFree } from '#app/features/orders/free-checkout.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { books, bundles, gifts, orders } from '#app/server/db/schema/index.server.ts'
import * as adminBundles from '#app/routes/admin/bundles.tsx'
import * as adminCoupons from '#app/routes/admin/coupons.tsx'
import { loader as analyticsLoader } from '#app/routes/admin/analytics.tsx'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs, servicesFor } from '#tests/route-args.ts'

/**
 * The analytics dashboard's pricing panel (issue 30): orders made and paid through the store's own functions
 * (a coupon, a bundle, a chosen amount), then read back for a range of days. Only orders paid in the range
 * count; revenue is that of orders still paid; gifts count with their order paid or refunded.
 */

let database: TestDatabase
let catalogue: { id: string; slug: string; priceCents: number; title: string }[]
let admin: Awaited<ReturnType<typeof createReader>>
let today: string
/** Yesterday and today: an order moved five days back is outside it. */
let range: DayRange
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await database.db
    .select({ id: books.id, slug: books.slug, priceCents: books.priceCents, title: books.title })
    .from(books)
    .where(
      and(
        eq(books.status, 'published'),
        eq(books.available, true),
        eq(books.currency, 'USD'),
        gt(books.priceCents, 100),
        isNull(books.pwywMinCents),
      ),
    )
    .orderBy(asc(books.slug))
    .limit(7)
  expect(catalogue).toHaveLength(7)
  admin = await createReader(database.db, {
    email: `pricing-admin-${Date.now()}@codebook.test`,
    confirmed: true,
  })
  await database.db.execute(sql`update "user" set role = 'admin' where id = ${admin.userId}`)
  today = utcDay(new Date())
  range = { from: addDays(today, -1), to: today, days: 2 }
})

const provider = createTestPaymentProvider()
async function pay(userId: string): Promise<string> {
  const { idempotencyKey, attemptId } = await getCheckout(database.db, userId)
  const number = '4242424242424242'
  const placed = await placeOrderWithCard(database.db, {
    userId,
    idempotencyKey,
    attemptId,
    card: { number, brand: cardBrand(number), name: 'Ada Reader', expiry: '12/34', cvc: '123' },
    provider,
    orderUrl: (id) => `http://localhost:3000/orders/${id}`,
  })
  expect(placed.outcome).toBe('paid')
  return (placed as { orderId: string }).orderId
}

/** A new reader's order of these books, paid by card; its id. */
async function buy(bookIds: string[], code?: string) {
  const reader = await createReader(database.db)
  const cartId = await requireUserCart(database.db, reader.userId)
  for (const bookId of bookIds) await addToCart(database.db, cartId, bookId)
  if (code) await setCartCoupon(database.db, cartId, code)
  return { ...reader, orderId: await pay(reader.userId) }
}

/** The order as if it had been paid five days ago: outside `range`. */
async function paidFiveDaysAgo(orderId: string) {
  await database.db
    .update(orders)
    .set({ paidAt: sql`${orders.paidAt} - interval '5 days'` })
    .where(eq(orders.id, orderId))
}

function adminPost(route: typeof adminCoupons | typeof adminBundles, path: string, fields: object) {
  return answerOf(
    route.action(
      routeArgs({
        db: database.db,
        path,
        cookie: admin.cookie,
        init: { method: 'POST', body: new URLSearchParams(fields as Record<string, string>) },
      }) as never,
    ),
  )
}

let nextName = 1
const fresh = (prefix: string) => `${prefix}${nextName++}x${Date.now() % 100000}`

describe('revenue by coupon', () => {
  test('paid orders with the code in the range: what they paid and what the coupon took off', async () => {
    const code = fresh('REPORT').toUpperCase()
    const made = await adminPost(adminCoupons, '/admin/coupons', {
      intent: 'create',
      code,
      kind: 'amount',
      value: '2',
    })
    expect(made.status, JSON.stringify(made.body)).toBe(303)
    const [a, b] = catalogue
    await buy([a!.id], code)
    await buy([a!.id, b!.id], code)
    // Not counted: a refunded order, one paid before the range, and an order without the code.
    await refundOrder(database.db, (await buy([b!.id], code)).orderId)
    await paidFiveDaysAgo((await buy([b!.id], code)).orderId)
    await buy([a!.id])

    const report = await getPricingReport(database.db, range)
    expect(report.byCoupon.filter((row) => row.code === code)).toEqual([
      {
        code,
        currency: 'USD',
        orders: 2,
        revenueCents: 2 * a!.priceCents + b!.priceCents - 400,
        discountCents: 400,
      },
    ])
    // The order paid five days ago is in a range that reaches back to it.
    const week = await getPricingReport(database.db, { from: addDays(today, -6), to: today, days: 7 })
    expect(week.byCoupon.find((row) => row.code === code)).toMatchObject({ orders: 3, discountCents: 600 })
    // A range before any of them has none.
    const before = await getPricingReport(database.db, {
      from: addDays(today, -30),
      to: addDays(today, -10),
      days: 21,
    })
    expect(before.byCoupon.find((row) => row.code === code)).toBeUndefined()
  })
})

describe('revenue by bundle', () => {
  test('the paid prices of the lines bought in it, by order; the same books bought alone are not in it', async () => {
    const books = catalogue.slice(4, 7)
    const separate = books.reduce((total, book) => total + book.priceCents, 0)
    const slug = fresh('report-pack-')
    const made = await adminPost(adminBundles, '/admin/bundles', {
      title: `Report pack ${slug}`,
      slug,
      price: ((separate - 300) / 100).toFixed(2),
      books: books.map((book) => book.slug).join('\n'),
      active: 'on',
    })
    expect(made.status, JSON.stringify(made.body)).toBe(303)
    const [bundle] = await database.db.select().from(bundles).where(eq(bundles.slug, slug))
    async function buyBundle(ownedFirst?: string) {
      const reader = await createReader(database.db)
      if (ownedFirst) {
        await addToCart(database.db, await requireUserCart(database.db, reader.userId), ownedFirst)
        await pay(reader.userId)
      }
      await addBundleToCart(database.db, await requireUserCart(database.db, reader.userId), bundle!.id)
      return pay(reader.userId)
    }
    await buyBundle()
    // A reader who owned one of its books paid the fair share for the other two.
    const share = await buyBundle(books[0]!.id)
    const shareCents = await database.db
      .select({ totalCents: orders.totalCents })
      .from(orders)
      .where(eq(orders.id, share))
    expect(shareCents[0]!.totalCents).toBeLessThan(bundle!.priceCents)
    await refundOrder(database.db, await buyBundle())
    await buy(books.map((book) => book.id))

    const report = await getPricingReport(database.db, range)
    expect(report.byBundle.filter((row) => row.bundleId === bundle!.id)).toEqual([
      {
        bundleId: bundle!.id,
        title: bundle!.title,
        slug,
        currency: 'USD',
        orders: 2,
        revenueCents: bundle!.priceCents + shareCents[0]!.totalCents,
      },
    ])
  })
})

describe('pay what you want', () => {
  test('the average of the amounts paid for the book on its own, its minimum and suggested price', async () => {
    const book = catalogue[3]!
    await database.db.update(books).set({ pwywMinCents: 0 }).where(eq(books.id, book.id))
    for (const cents of [300, 550]) {
      const reader = await createReader(database.db)
      await chooseAmount(database.db, await requireUserCart(database.db, reader.userId), book.id, cents)
      await pay(reader.userId)
    }
    // A chosen 0 is an order too: it counts, and brings the average down.
    const free = await createReader(database.db)
    await chooseAmount(database.db, await requireUserCart(database.db, free.userId), book.id, 0)
    const checkout = await getCheckout(database.db, free.userId)
    expect(
      await checkoutFree(servicesFor(database.db), {
        userId: free.userId,
        idempotencyKey: checkout.idempotencyKey,
        attemptId: checkout.attemptId,
      }),
    ).toMatchObject({ outcome: 'order' })
    // Not counted: paid before the range.
    const early = await createReader(database.db)
    await chooseAmount(database.db, await requireUserCart(database.db, early.userId), book.id, 5000)
    await paidFiveDaysAgo(await pay(early.userId))

    const report = await getPricingReport(database.db, range)
    expect(report.payWhatYouWant.filter((row) => row.bookId === book.id)).toEqual([
      {
        bookId: book.id,
        title: book.title,
        slug: book.slug,
        currency: 'USD',
        copies: 3,
        averageCents: 283, // (300 + 550 + 0) / 3, rounded
        minimumCents: 0,
        suggestedCents: book.priceCents,
      },
    ])
    // A book at a fixed price is not in the table, though it sold in the range.
    expect(report.payWhatYouWant.map((row) => row.bookId)).not.toContain(catalogue[0]!.id)
  })
})

describe('gifts', () => {
  test('bought, sent, claimed and taken back, by their order paid (or refunded) in the range', async () => {
    const before = (await getPricingReport(database.db, range)).gifts
    const book = catalogue[2]!
    async function giftOf(order: { userId: string; orderId: string } | null, state: object) {
      const buyer = order ?? (await createReader(database.db))
      await database.db.insert(gifts).values({
        buyerId: buyer.userId,
        bookId: book.id,
        recipientEmail: `friend-${nextName++}@codebook.test`,
        deliverOn: new Date(),
        orderId: order?.orderId ?? null,
        ...state,
      })
    }
    const now = new Date()
    await giftOf(await buy([book.id]), { sentAt: now, claimedAt: now })
    await giftOf(await buy([book.id]), { sentAt: now })
    await giftOf(await buy([book.id]), { deliverOn: new Date(Date.now() + 7 * 86_400_000) })
    const refunded = await buy([book.id])
    await giftOf(refunded, { sentAt: now, revokedAt: now })
    expect(await refundOrder(database.db, refunded.orderId)).toBe('refunded')
    // Not counted: a gift whose checkout made no order yet, and one paid before the range.
    await giftOf(null, {})
    const early = await buy([book.id])
    await giftOf(early, { sentAt: now, claimedAt: now })
    await paidFiveDaysAgo(early.orderId)

    const after = (await getPricingReport(database.db, range)).gifts
    expect({
      bought: after.bought - before.bought,
      sent: after.sent - before.sent,
      claimed: after.claimed - before.claimed,
      revoked: after.revoked - before.revoked,
    }).toEqual({ bought: 4, sent: 3, claimed: 1, revoked: 1 })
  })
})

describe('the analytics page', () => {
  test('shows the panel for the chosen days; a bad range shows none', async () => {
    async function page(query: string) {
      return answerOf(
        analyticsLoader(
          routeArgs({ db: database.db, path: `/admin/analytics?${query}`, cookie: admin.cookie }) as never,
        ),
      )
    }
    const week = await page('range=7')
    expect(week.status).toBe(200)
    const direct = await getPricingReport(database.db, { from: addDays(today, -6), to: today, days: 7 })
    expect((week.body as { pricing: unknown }).pricing).toEqual(direct)
    expect(direct.byCoupon.length).toBeGreaterThan(0)
    expect(direct.byBundle.length).toBeGreaterThan(0)
    // Ten to twenty days ago: none of this file's orders.
    const old = await page(`range=custom&from=${addDays(today, -20)}&to=${addDays(today, -10)}`)
    const oldCodes = (old.body as { pricing: Awaited<ReturnType<typeof getPricingReport>> }).pricing.byCoupon
    expect(oldCodes.filter((row) => row.code.startsWith('REPORT'))).toEqual([])
    const bad = await page('range=custom&from=2024-02-30&to=2024-03-01')
    expect(bad).toMatchObject({ status: 400, body: { pricing: null } })
  })

  test('each table holds at most its 20 largest rows', async () => {
    const [a] = catalogue
    // 21 coupons, each used once on the same book: 21 rows of the same revenue, cut to 20.
    const codes: string[] = []
    for (let index = 0; index < 21; index++) {
      const code = fresh('MANY').toUpperCase()
      codes.push(code)
      await adminPost(adminCoupons, '/admin/coupons', { intent: 'create', code, kind: 'amount', value: '1' })
    }
    for (const code of codes) await buy([a!.id], code)
    const report = await getPricingReport(database.db, range)
    expect(report.byCoupon).toHaveLength(20)
    const many = await database.db
      .select({ code: orders.couponCode })
      .from(orders)
      .where(and(inArray(orders.couponCode, codes), eq(orders.status, 'paid')))
    expect(many).toHaveLength(21)
  })
})
