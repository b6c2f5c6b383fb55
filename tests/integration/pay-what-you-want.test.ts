import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import {
  chooseAmount,
  createCart,
  getCartCoupon,
  listCartLines,
  mergeCarts,
  requireUserCart,
} from '#app/features/cart/cart.server.ts'
import { parseBookForm } from '#app/features/catalog/book-form.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { checkoutFree } from '#app/features/orders/free-checkout.server.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { placeOrderWithCard } from '#app/features/orders/card-checkout.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import {
  books,
  cartItems,
  libraryItems,
  orderItems,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import * as bookEdit from '#app/routes/admin/book-edit.tsx'
import * as bookPage from '#app/routes/book.tsx'
import * as cart from '#app/routes/cart.tsx'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs, servicesFor } from '#tests/route-args.ts'

/**
 * Issue 30's pay what you want: the owner sets a minimum in the book form; the reader's amount is checked on
 * the server (a refused one goes back to the book's form with the reason, nothing written); a chosen 0 is a
 * free order with a library entry and no payment.
 */

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let pwyw: (typeof catalogue)[number]
let fixed: (typeof catalogue)[number]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  pwyw = catalogue[0]!
  fixed = catalogue[1]!
  await database.db.update(books).set({ pwywMinCents: 0 }).where(eq(books.id, pwyw.id))
})

const bookForm = (fields: Record<string, string>) => {
  const form = new FormData()
  const base = {
    title: 'A Book',
    author: 'An Author',
    description: 'About it.',
    price: '20',
    currency: 'USD',
    level: 'none',
    status: 'draft',
  }
  for (const [name, value] of Object.entries({ ...base, ...fields })) form.set(name, value)
  return parseBookForm(form)
}

describe('the book form', () => {
  test('empty is a fixed price; an amount up to the price is the minimum; anything else is refused', () => {
    expect(bookForm({ pwywMin: '' })).toMatchObject({ ok: true, input: { pwywMinCents: null } })
    expect(bookForm({ pwywMin: '0' })).toMatchObject({ ok: true, input: { pwywMinCents: 0 } })
    expect(bookForm({ pwywMin: '4.5' })).toMatchObject({ ok: true, input: { pwywMinCents: 450 } })
    expect(bookForm({ pwywMin: '25' })).toMatchObject({
      ok: false,
      fieldErrors: { pwywMin: expect.stringMatching(/cannot be above the price/) },
    })
    for (const bad of ['-1', 'free', '1.234'])
      expect(bookForm({ pwywMin: bad })).toMatchObject({
        ok: false,
        fieldErrors: { pwywMin: expect.stringMatching(/amount in dollars/) },
      })
  })
})

describe('choosing an amount', () => {
  async function choose(reader: { cookie: string }, fields: Record<string, string>) {
    return answerOf(
      cart.action(
        routeArgs({
          db: database.db,
          path: '/cart',
          cookie: reader.cookie,
          init: { method: 'POST', body: new URLSearchParams({ intent: 'choose-price', ...fields }) },
        }) as never,
      ),
    )
  }

  test('every bad amount goes back to the book with its reason, and nothing is written', async () => {
    const reader = await createReader(database.db)
    const cases: [Record<string, string>, string][] = [
      [{ bookId: pwyw.id, amount: '' }, 'missing'],
      [{ bookId: pwyw.id, amount: '-5' }, 'format'],
      [{ bookId: pwyw.id, amount: 'a lot' }, 'format'],
      [{ bookId: pwyw.id, amount: '1.999' }, 'format'],
      [{ bookId: pwyw.id, amount: '99999999' }, 'format'],
      [{ bookId: pwyw.id, amount: '5000' }, 'above-maximum'],
      [{ bookId: fixed.id, amount: '1' }, 'fixed-price'],
    ]
    for (const [fields, problem] of cases) {
      const answer = await choose(reader, fields)
      expect(answer.status, JSON.stringify(fields)).toBe(303)
      const location = new URL(answer.headers.get('Location')!, 'http://localhost')
      expect(location.searchParams.get('pwywError'), JSON.stringify(fields)).toBe(problem)
    }
    // A forged book id is a 400 with a message.
    expect(await choose(reader, { bookId: 'not-a-book', amount: '5' })).toMatchObject({ status: 400 })
    const cartId = await requireUserCart(database.db, reader.userId)
    expect(await listCartLines(database.db, cartId)).toEqual([])

    // The book page says why, next to the field, with what was typed.
    const page = await answerOf(
      bookPage.loader(
        routeArgs({
          db: database.db,
          path: `/books/${pwyw.slug}?pwywError=above-maximum&amount=5000`,
          params: { slug: pwyw.slug },
        }) as never,
      ),
    )
    expect(page.body).toMatchObject({
      pwyw: { error: 'At most $1,000, please: thank you all the same!', typed: '5000' },
    })
  })

  test('a good amount puts the book in the cart at that price; choosing again changes it', async () => {
    const reader = await createReader(database.db)
    const added = await choose(reader, { bookId: pwyw.id, amount: '12.50' })
    expect(added.status).toBe(303)
    expect(added.headers.get('Location')).toBe(`/cart#book-${pwyw.id}`)
    const cartId = await requireUserCart(database.db, reader.userId)
    expect((await listCartLines(database.db, cartId)).map((line) => line.priceCents)).toEqual([1250])
    await choose(reader, { bookId: pwyw.id, amount: '$3' })
    expect((await listCartLines(database.db, cartId)).map((line) => line.priceCents)).toEqual([300])
    expect(await getCartCoupon(database.db, cartId)).toBeNull()

    // Paid as chosen: the order's line is the amount.
    const { idempotencyKey, attemptId } = await getCheckout(database.db, reader.userId)
    const placed = await placeOrderWithCard(database.db, {
      userId: reader.userId,
      idempotencyKey,
      attemptId,
      card: {
        number: '4242424242424242',
        brand: cardBrand('4242424242424242'),
        name: 'A',
        expiry: '12/34',
        cvc: '123',
      },
      provider: createTestPaymentProvider(),
      orderUrl: (id) => `http://localhost:3000/orders/${id}`,
    })
    expect(placed.outcome).toBe('paid')
    const [line] = await database.db
      .select()
      .from(orderItems)
      .innerJoin(orders, eq(orders.id, orderItems.orderId))
      .where(eq(orders.userId, reader.userId))
    expect(line!.order_items).toMatchObject({ priceCents: 300, listPriceCents: 300, discountCents: 0 })
    expect(line!.orders.totalCents).toBe(300)
  })

  test('a chosen 0 is an order and a library entry without a payment', async () => {
    const reader = await createReader(database.db)
    await choose(reader, { bookId: pwyw.id, amount: '0' })
    const checkout = await getCheckout(database.db, reader.userId)
    expect(checkout.totalCents).toBe(0)
    const result = await checkoutFree(servicesFor(database.db), {
      userId: reader.userId,
      idempotencyKey: checkout.idempotencyKey,
      attemptId: checkout.attemptId,
    })
    expect(result.outcome).toBe('order')
    const [order] = await database.db.select().from(orders).where(eq(orders.userId, reader.userId))
    expect(order).toMatchObject({ status: 'paid', totalCents: 0, paymentProvider: 'none' })
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId)),
    ).toHaveLength(1)
    expect(
      await database.db
        .select()
        .from(cartItems)
        .innerJoin(books, eq(books.id, cartItems.bookId))
        .where(eq(books.id, pwyw.id)),
    ).toHaveLength(0)
  })

  test('an amount chosen signed out comes along when the cart joins the account’s', async () => {
    const reader = await createReader(database.db)
    const accountCart = await requireUserCart(database.db, reader.userId)
    await chooseAmount(database.db, accountCart, pwyw.id, 900)
    const signedOut = await createCart(database.db)
    await chooseAmount(database.db, signedOut, pwyw.id, 250)
    await mergeCarts(database.db, signedOut, accountCart)
    expect((await listCartLines(database.db, accountCart)).map((line) => line.priceCents)).toEqual([250])
  })

  test('the back office shows what readers paid on average for the book', async () => {
    const admin = await createReader(database.db, {
      email: `pwyw-admin-${Date.now()}@codebook.test`,
      confirmed: true,
    })
    await database.db.update(user).set({ role: 'admin' }).where(eq(user.id, admin.userId))
    const page = await answerOf(
      bookEdit.loader(
        routeArgs({
          db: database.db,
          path: `/admin/books/${pwyw.id}`,
          cookie: admin.cookie,
          params: { bookId: pwyw.id },
        }) as never,
      ),
    )
    // Earlier tests of this file paid $3 and $0 for it.
    expect(page.body).toMatchObject({ paid: { orders: 2, averageCents: 150, currency: 'USD' } })
    const fixedPage = await answerOf(
      bookEdit.loader(
        routeArgs({
          db: database.db,
          path: `/admin/books/${fixed.id}`,
          cookie: admin.cookie,
          params: { bookId: fixed.id },
        }) as never,
      ),
    )
    expect(fixedPage.body).toMatchObject({ paid: null })
  })
})
