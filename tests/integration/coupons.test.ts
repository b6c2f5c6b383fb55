import { eq, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { addToCart, requireUserCart, setCartCoupon } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { placeOrderWithCard } from '#app/features/orders/card-checkout.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { checkoutFree } from '#app/features/orders/free-checkout.server.ts'
import { getOrderForUser } from '#app/features/orders/order-history.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import { couponMessages, couponGuesses } from '#app/features/pricing/coupons.server.ts'
import {
  auditLog,
  couponRedemptions,
  coupons,
  emailOutbox,
  libraryItems,
  orders,
} from '#app/server/db/schema/index.server.ts'
import * as adminCoupons from '#app/routes/admin/coupons.tsx'
import * as cart from '#app/routes/cart.tsx'
import * as couponLink from '#app/routes/coupon-link.ts'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs, servicesFor } from '#tests/route-args.ts'

/**
 * Issue 30's coupons through the store's own entrances: the back office makes them (every field checked), the
 * cart takes a code or a link, checkout prices and claims it, and the order keeps each line's list price,
 * discount and paid price. The race for the last use is run on both databases (npm run test:postgres).
 */

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let admin: Awaited<ReturnType<typeof createReader>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  admin = await createReader(database.db, {
    email: `coupon-admin-${Date.now()}@codebook.test`,
    confirmed: true,
  })
  await database.db.execute(sql`update "user" set role = 'admin' where id = ${admin.userId}`)
})

let nextCode = 1
const freshCode = (prefix = 'SAVE') => `${prefix}${nextCode++}X${Date.now() % 100000}`
let nextIp = 1
const freshIp = () => `10.30.0.${nextIp++}`

async function makeCoupon(fields: Record<string, string>) {
  const answer = await answerOf(
    adminCoupons.action(
      routeArgs({
        db: database.db,
        path: '/admin/coupons',
        cookie: admin.cookie,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'create', ...fields }) },
      }) as never,
    ),
  )
  return answer
}

async function couponRow(code: string) {
  const [row] = await database.db.select().from(coupons).where(eq(coupons.code, code.toUpperCase()))
  return row
}

const provider = createTestPaymentProvider()
const card = (number = '4242424242424242') => ({
  number,
  brand: cardBrand(number),
  name: 'Ada Reader',
  expiry: '12/34',
  cvc: '123',
})

/** A signed-in reader with these books in their cart and the code on it. */
async function readerWithCart(bookIds: string[], code?: string) {
  const reader = await createReader(database.db)
  const cartId = await requireUserCart(database.db, reader.userId)
  for (const bookId of bookIds) await addToCart(database.db, cartId, bookId)
  if (code) await setCartCoupon(database.db, cartId, code.toUpperCase())
  return { ...reader, cartId }
}

async function pay(userId: string, number?: string) {
  const { idempotencyKey, attemptId } = await getCheckout(database.db, userId)
  return placeOrderWithCard(database.db, {
    userId,
    idempotencyKey,
    attemptId,
    card: card(number),
    provider,
    orderUrl: (id) => `http://localhost:3000/orders/${id}`,
  })
}

describe('the back office makes coupons', () => {
  test('every bad field gets its message, nothing is written; a good one is audited', async () => {
    const before = (await database.db.select().from(coupons)).length
    const bad: [Record<string, string>, string, RegExp][] = [
      [{ code: 'x', kind: 'percent', value: '10' }, 'code', /3 to 32 letters/],
      [{ code: 'BAD CODE!', kind: 'percent', value: '10' }, 'code', /3 to 32 letters/],
      [{ code: freshCode(), kind: 'percent', value: '0' }, 'value', /1 to 100/],
      [{ code: freshCode(), kind: 'percent', value: '101' }, 'value', /1 to 100/],
      [{ code: freshCode(), kind: 'amount', value: '-5' }, 'value', /above 0/],
      [{ code: freshCode(), kind: 'amount', value: '99999999' }, 'value', /above 0/],
      [{ code: freshCode(), kind: 'bogus', value: '5' }, 'kind', /percentage or an amount/],
      [
        { code: freshCode(), kind: 'percent', value: '10', maxRedemptions: '0' },
        'maxRedemptions',
        /whole number/,
      ],
      [
        { code: freshCode(), kind: 'percent', value: '10', perAccountLimit: '1.5' },
        'perAccountLimit',
        /whole/,
      ],
      [{ code: freshCode(), kind: 'percent', value: '10', minOrder: 'ten' }, 'minOrder', /amount in dollars/],
      [{ code: freshCode(), kind: 'percent', value: '10', startsOn: '2026-02-30' }, 'startsOn', /YYYY-MM-DD/],
      [
        { code: freshCode(), kind: 'percent', value: '10', startsOn: '2027-01-02', endsOn: '2027-01-01' },
        'endsOn',
        /after the first/,
      ],
      [{ code: freshCode(), kind: 'percent', value: '10', books: 'no-such-book' }, 'books', /no-such-book/],
      [
        { code: freshCode(), kind: 'percent', value: '10', topics: 'no-such-topic' },
        'topics',
        /no-such-topic/,
      ],
    ]
    for (const [fields, field, message] of bad) {
      const answer = await makeCoupon(fields)
      expect([400, 409], JSON.stringify(fields)).toContain(answer.status)
      const errors = (answer.body as { errors: Record<string, string> }).errors
      expect(errors[field], JSON.stringify(fields)).toMatch(message)
    }
    expect((await database.db.select().from(coupons)).length).toBe(before)

    const code = freshCode('spring')
    const made = await makeCoupon({ code, kind: 'amount', value: '4.99', perAccountLimit: '1' })
    expect(made.status).toBe(303)
    expect(await couponRow(code)).toMatchObject({ code: code.toUpperCase(), kind: 'amount', value: 499 })
    const [audit] = await database.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.entityId, (await couponRow(code))!.id))
    expect(audit).toMatchObject({ action: 'coupon.create', actorEmail: admin.email })
    // The same code in another case is the same code.
    const again = await makeCoupon({ code: code.toLowerCase(), kind: 'percent', value: '10' })
    expect(again.status).toBe(409)
    expect((again.body as { errors: Record<string, string> }).errors.code).toMatch(/exists already/)
  })
})

describe('the cart takes a code', () => {
  test('typed in any case, or from a /c/ link; a wrong one gets a message and guessing is limited', async () => {
    const code = freshCode()
    await makeCoupon({ code, kind: 'percent', value: '25' })
    const book = catalogue[0]!
    const reader = await readerWithCart([book.id])
    const post = (fields: Record<string, string>, clientIp = freshIp()) =>
      answerOf(
        cart.action(
          routeArgs({
            db: database.db,
            path: '/cart',
            cookie: reader.cookie,
            clientIp,
            init: { method: 'POST', body: new URLSearchParams(fields) },
          }) as never,
        ),
      )
    const unknown = await post({ intent: 'apply-coupon', couponCode: 'NOPE-NOPE' })
    expect(unknown).toMatchObject({ status: 400, body: { couponError: couponMessages.unknown } })
    expect((await post({ intent: 'apply-coupon', couponCode: ` ${code.toLowerCase()} ` })).status).toBe(200)
    const page = await answerOf(
      cart.loader(routeArgs({ db: database.db, path: '/cart', cookie: reader.cookie }) as never),
    )
    const discount = Math.floor((book.priceCents * 25 + 50) / 100)
    expect(page.body).toMatchObject({
      pricing: { listCents: book.priceCents, discountCents: discount },
      coupon: { code: code.toUpperCase(), applied: true, message: null },
    })

    const ip = freshIp()
    for (let guess = 0; guess < couponGuesses.limit; guess++)
      expect((await post({ intent: 'apply-coupon', couponCode: `GUESS${guess}` }, ip)).status).toBe(400)
    // Once the guesses are used up, every code is refused alike: a right guess cannot be told from a wrong one.
    for (const next of [code, 'GUESS-MORE'])
      expect(await post({ intent: 'apply-coupon', couponCode: next }, ip)).toMatchObject({
        status: 429,
        body: { couponError: couponMessages['too-many-tries'] },
      })

    // A link puts it on an anonymous visitor's cart (made for them, with its cookie).
    const link = await answerOf(
      couponLink.loader(
        routeArgs({ db: database.db, path: `/c/${code}`, clientIp: freshIp(), params: { code } }) as never,
      ),
    )
    expect(link.status).toBe(303)
    expect(link.headers.get('Location')).toBe('/cart#coupon')
    expect(link.headers.get('Set-Cookie')).toMatch(/cb_cart=/)
    const expired = freshCode()
    await makeCoupon({
      code: expired,
      kind: 'percent',
      value: '10',
      startsOn: '2020-01-01',
      endsOn: '2020-02-01',
    })
    const refused = await answerOf(
      couponLink.loader(
        routeArgs({
          db: database.db,
          path: `/c/${expired}`,
          clientIp: freshIp(),
          params: { code: expired },
        }) as never,
      ),
    )
    expect(refused.headers.get('Location')).toBe('/cart?couponError=expired#coupon')
  })
})

describe('checkout with a coupon', () => {
  test('the order keeps each line’s list price, discount and paid price; the receipt shows them', async () => {
    const code = freshCode()
    await makeCoupon({ code, kind: 'amount', value: '5' })
    const [a, b] = catalogue
    const reader = await readerWithCart([a!.id, b!.id], code)
    const placed = await pay(reader.userId)
    expect(placed.outcome).toBe('paid')
    const order = (await getOrderForUser(
      database.db,
      reader.userId,
      (placed as { orderId: string }).orderId,
    ))!
    expect(order).toMatchObject({
      discountCents: 500,
      couponCode: code.toUpperCase(),
      totalCents: a!.priceCents + b!.priceCents - 500,
    })
    for (const line of order.lines) expect(line.priceCents + line.discountCents).toBe(line.listPriceCents)
    expect(order.lines.reduce((sum, line) => sum + line.discountCents, 0)).toBe(500)
    expect((await couponRow(code))!.redeemed).toBe(1)
    const [receipt] = await database.db.select().from(emailOutbox).where(eq(emailOutbox.subjectKey, order.id))
    expect(receipt!.text).toContain(`Coupon ${code.toUpperCase()}: −$5`)
  })

  test('its rules: per account, first purchase, minimum order, books; each with its message', async () => {
    const [a, b] = catalogue
    const once = freshCode()
    await makeCoupon({ code: once, kind: 'percent', value: '10', perAccountLimit: '1' })
    const reader = await readerWithCart([a!.id], once)
    expect((await pay(reader.userId)).outcome).toBe('paid')
    await addToCart(database.db, reader.cartId, b!.id)
    await setCartCoupon(database.db, reader.cartId, once.toUpperCase())
    const second = await getCheckout(database.db, reader.userId)
    expect(second).toMatchObject({
      discountCents: 0,
      coupon: { applied: false, message: couponMessages['per-account'] },
    })

    const first = freshCode()
    await makeCoupon({ code: first, kind: 'percent', value: '10', firstPurchaseOnly: 'on' })
    await setCartCoupon(database.db, reader.cartId, first.toUpperCase())
    expect((await getCheckout(database.db, reader.userId)).coupon?.message).toBe(
      couponMessages['first-purchase'],
    )

    const minimum = freshCode()
    await makeCoupon({ code: minimum, kind: 'percent', value: '10', minOrder: '1000' })
    await setCartCoupon(database.db, reader.cartId, minimum.toUpperCase())
    expect((await getCheckout(database.db, reader.userId)).coupon?.message).toBe(
      'This coupon needs an order of at least $1,000.',
    )

    const onlyA = freshCode()
    await makeCoupon({ code: onlyA, kind: 'percent', value: '10', books: a!.slug })
    await setCartCoupon(database.db, reader.cartId, onlyA.toUpperCase())
    expect((await getCheckout(database.db, reader.userId)).coupon?.message).toBe(
      'This coupon is not for the books in your cart.',
    )
  })

  test('a declined card gives the coupon’s use back', async () => {
    const code = freshCode()
    await makeCoupon({ code, kind: 'percent', value: '10', maxRedemptions: '1' })
    const reader = await readerWithCart([catalogue[0]!.id], code)
    expect((await pay(reader.userId, '4000000000000002')).outcome).toBe('declined')
    expect((await couponRow(code))!.redeemed).toBe(0)
    expect(
      await database.db.select().from(couponRedemptions).where(eq(couponRedemptions.userId, reader.userId)),
    ).toEqual([])
    expect((await pay(reader.userId)).outcome).toBe('paid')
    expect((await couponRow(code))!.redeemed).toBe(1)
  })

  test('100 % off completes the order without a payment, and the books are in the library', async () => {
    const code = freshCode()
    await makeCoupon({ code, kind: 'percent', value: '100' })
    const book = catalogue[1]!
    const reader = await readerWithCart([book.id], code)
    const checkout = await getCheckout(database.db, reader.userId)
    expect(checkout.totalCents).toBe(0)
    const result = await checkoutFree(
      { ...servicesFor(database.db) },
      { userId: reader.userId, idempotencyKey: checkout.idempotencyKey, attemptId: checkout.attemptId },
    )
    expect(result.outcome).toBe('order')
    const [order] = await database.db.select().from(orders).where(eq(orders.userId, reader.userId))
    expect(order).toMatchObject({
      status: 'paid',
      totalCents: 0,
      paymentProvider: 'none',
      discountCents: book.priceCents,
    })
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId)),
    ).toHaveLength(1)
  })

  test('the free form cannot buy a cart that costs something', async () => {
    const reader = await readerWithCart([catalogue[2]!.id])
    const checkout = await getCheckout(database.db, reader.userId)
    const result = await checkoutFree(
      { ...servicesFor(database.db) },
      { userId: reader.userId, idempotencyKey: checkout.idempotencyKey, attemptId: checkout.attemptId },
    )
    expect(result).toMatchObject({ outcome: 'refused', reason: 'cart-changed' })
    expect(await database.db.select().from(orders).where(eq(orders.userId, reader.userId))).toEqual([])
  })

  test('two buyers race for the last use: one order, one clear message, the count never past the maximum', async () => {
    const code = freshCode()
    await makeCoupon({ code, kind: 'percent', value: '50', maxRedemptions: '1' })
    const [first, second] = await Promise.all([
      readerWithCart([catalogue[0]!.id], code),
      readerWithCart([catalogue[0]!.id], code),
    ])
    const [a, b] = await Promise.all([pay(first.userId), pay(second.userId)])
    const outcomes = [a.outcome, b.outcome].toSorted()
    expect(outcomes).toEqual(['coupon-used-up', 'paid'])
    expect((await couponRow(code))!.redeemed).toBe(1)
    const loser = a.outcome === 'paid' ? second : first
    expect(await database.db.select().from(orders).where(eq(orders.userId, loser.userId))).toEqual([])
    // Its page, loaded again, shows the full price and why.
    expect(await getCheckout(database.db, loser.userId)).toMatchObject({
      discountCents: 0,
      coupon: { message: couponMessages['used-up'] },
    })
  })
})
