import { and, asc, eq, gt, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import {
  addToCart,
  createCart,
  listCartBookIds,
  mergeCarts,
  requireUserCart,
} from '#app/features/cart/cart.server.ts'
import { addBundleToCart } from '#app/features/cart/cart-bundles.server.ts'
import { deleteBook } from '#app/features/catalog/admin-books.server.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { placeOrderWithCard } from '#app/features/orders/card-checkout.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { getOrderForUser } from '#app/features/orders/order-history.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import {
  auditLog,
  books,
  bundleBooks,
  bundles,
  cartBundles,
  cartItems,
  libraryItems,
  orderItems,
} from '#app/server/db/schema/index.server.ts'
import * as adminBundles from '#app/routes/admin/bundles.tsx'
import * as adminBundleEdit from '#app/routes/admin/bundle-edit.tsx'
import * as bundlePage from '#app/routes/bundle.tsx'
import * as cart from '#app/routes/cart.tsx'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs, thrownBy } from '#tests/route-args.ts'

/**
 * Issue 30's bundles through the store's own entrances: the back office makes them (every field checked), a
 * bundle's page prices it for the reader, the cart takes it (its books' own lines leave), checkout spreads its
 * price over its books, paying grants them all, a reader who owns some pays the fair share, a refund takes the
 * whole bundle back.
 */

let database: TestDatabase
let catalogue: { id: string; slug: string; priceCents: number }[]
let admin: Awaited<ReturnType<typeof createReader>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  // Books for sale in dollars (the seed's); each test's reader is new, so bundles may share books.
  catalogue = await database.db
    .select({ id: books.id, slug: books.slug, priceCents: books.priceCents })
    .from(books)
    .where(
      and(
        eq(books.status, 'published'),
        eq(books.available, true),
        eq(books.currency, 'USD'),
        gt(books.priceCents, 100),
      ),
    )
    .orderBy(asc(books.slug))
    .limit(20)
  admin = await createReader(database.db, {
    email: `bundle-admin-${Date.now()}@codebook.test`,
    confirmed: true,
  })
  await database.db.execute(sql`update "user" set role = 'admin' where id = ${admin.userId}`)
})

let nextSlug = 1
const freshSlug = () => `pack-${nextSlug++}-${Date.now() % 100000}`

function adminPost(fields: Record<string, string>, bundleId?: string) {
  const path = bundleId ? `/admin/bundles/${bundleId}` : '/admin/bundles'
  const args = routeArgs({
    db: database.db,
    path,
    cookie: admin.cookie,
    params: bundleId ? { bundleId } : {},
    init: { method: 'POST', body: new URLSearchParams(fields) },
  }) as never
  return answerOf(bundleId ? adminBundleEdit.action(args) : adminBundles.action(args))
}

/** A bundle of these books (the first three of the catalogue by default) at `priceCents`. */
async function makeBundle(priceCents: number, books = catalogue.slice(0, 3)) {
  const slug = freshSlug()
  const answer = await adminPost({
    title: `Pack ${slug}`,
    slug,
    price: (priceCents / 100).toFixed(2),
    books: books.map((book) => book.slug).join('\n'),
    active: 'on',
  })
  expect(answer.status, JSON.stringify(answer.body)).toBe(303)
  const [row] = await database.db.select().from(bundles).where(eq(bundles.slug, slug))
  return row!
}

const sumOf = (books: readonly { priceCents: number }[]) =>
  books.reduce((total, book) => total + book.priceCents, 0)

function cartPost(cookie: string | undefined, fields: Record<string, string>) {
  return answerOf(
    cart.action(
      routeArgs({
        db: database.db,
        path: '/cart',
        cookie,
        dataRequest: true,
        init: { method: 'POST', body: new URLSearchParams(fields) },
      }) as never,
    ),
  )
}

const provider = createTestPaymentProvider()
async function pay(userId: string) {
  const { idempotencyKey, attemptId } = await getCheckout(database.db, userId)
  const number = '4242424242424242'
  return placeOrderWithCard(database.db, {
    userId,
    idempotencyKey,
    attemptId,
    card: { number, brand: cardBrand(number), name: 'Ada Reader', expiry: '12/34', cvc: '123' },
    provider,
    orderUrl: (id) => `http://localhost:3000/orders/${id}`,
  })
}

describe('the back office makes bundles', () => {
  test('every bad field gets its message and nothing is written; a good one is audited', async () => {
    const three = catalogue.slice(0, 3)
    const good = { title: 'Good pack', price: '10', books: three.map((b) => b.slug).join('\n'), active: 'on' }
    const before = (await database.db.select().from(bundles)).length
    const bad: [Record<string, string>, string, RegExp][] = [
      [{ ...good, title: '  ' }, 'title', /Enter a title/],
      [{ ...good, price: '0' }, 'price', /above 0/],
      [{ ...good, price: '-3' }, 'price', /price in dollars/],
      [{ ...good, price: 'ten' }, 'price', /price in dollars/],
      [{ ...good, price: (sumOf(three) / 100).toFixed(2) }, 'price', /must cost less/],
      [{ ...good, books: three[0]!.slug }, 'books', /at least two/],
      [{ ...good, books: `${three[0]!.slug}\nno-such-book` }, 'books', /no-such-book/],
      [{ ...good, slug: 'Not A Slug!' }, 'slug', /Lower-case/],
    ]
    for (const [fields, field, message] of bad) {
      const answer = await adminPost(fields)
      expect(answer.status, JSON.stringify(fields)).toBe(400)
      expect(
        (answer.body as { errors: Record<string, string> }).errors[field],
        JSON.stringify(fields),
      ).toMatch(message)
    }
    expect((await database.db.select().from(bundles)).length).toBe(before)

    const made = await makeBundle(1000)
    expect(made).toMatchObject({ priceCents: 1000, currency: 'USD', active: true })
    const books = await database.db.select().from(bundleBooks).where(eq(bundleBooks.bundleId, made.id))
    expect(books.toSorted((a, b) => a.position - b.position).map((row) => row.bookId)).toEqual(
      three.map((book) => book.id),
    )
    const [audit] = await database.db.select().from(auditLog).where(eq(auditLog.entityId, made.id))
    expect(audit).toMatchObject({ action: 'bundle.create', actorEmail: admin.email })
    // Another bundle cannot take its address; an unknown one cannot be edited.
    expect(
      ((await adminPost({ ...good, slug: made.slug })).body as { errors: { slug: string } }).errors.slug,
    ).toMatch(/Another bundle/)
    expect((await adminPost(good, crypto.randomUUID())).status).toBe(404)
  })
})

describe('a bundle in the cart and at checkout', () => {
  test('its page prices it; the cart takes it, its books’ own lines leave; paying grants every book', async () => {
    const books = catalogue.slice(3, 6)
    const bundle = await makeBundle(sumOf(books) - 500, books)
    const reader = await createReader(database.db)
    const page = await answerOf(
      bundlePage.loader(
        routeArgs({
          db: database.db,
          path: `/bundles/${bundle.slug}`,
          params: { slug: bundle.slug },
          cookie: reader.cookie,
        }) as never,
      ),
    )
    expect(page.body).toMatchObject({
      bundle: {
        priceCents: bundle.priceCents,
        separateCents: sumOf(books),
        yourPriceCents: bundle.priceCents,
        forSale: true,
      },
    })

    const cartId = await requireUserCart(database.db, reader.userId)
    await addToCart(database.db, cartId, books[0]!.id)
    expect(await cartPost(reader.cookie, { intent: 'add-bundle', bundleId: bundle.id })).toMatchObject({
      status: 200,
    })
    // The bundle brings the book that was on its own in the cart.
    expect(await database.db.select().from(cartItems).where(eq(cartItems.cartId, cartId))).toEqual([])
    expect((await listCartBookIds(database.db, cartId)).length).toBe(3)
    // A book it brings cannot be added on its own; the bundle cannot be added twice.
    expect(await cartPost(reader.cookie, { intent: 'add', bookId: books[1]!.id })).toMatchObject({
      status: 400,
      body: { error: /in a bundle/ },
    })
    expect(await cartPost(reader.cookie, { intent: 'add-bundle', bundleId: bundle.id })).toMatchObject({
      status: 400,
      body: { error: /already in your cart/ },
    })

    const checkout = await getCheckout(database.db, reader.userId)
    expect(checkout.totalCents).toBe(bundle.priceCents)
    expect(checkout.lines.map((line) => line.bundle?.id)).toEqual([bundle.id, bundle.id, bundle.id])
    expect(checkout.lines.reduce((total, line) => total + line.listPriceCents, 0)).toBe(bundle.priceCents)

    const paid = await pay(reader.userId)
    expect(paid.outcome).toBe('paid')
    const orderId = (paid as { orderId: string }).orderId
    const items = await database.db.select().from(orderItems).where(eq(orderItems.orderId, orderId))
    expect(items.map((item) => item.bundleId)).toEqual([bundle.id, bundle.id, bundle.id])
    expect(items.reduce((total, item) => total + item.priceCents, 0)).toBe(bundle.priceCents)
    const owned = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId))
    expect(owned.map((row) => row.bookId).toSorted()).toEqual(books.map((book) => book.id).toSorted())
    expect(await database.db.select().from(cartBundles).where(eq(cartBundles.cartId, cartId))).toEqual([])
    const order = await getOrderForUser(database.db, reader.userId, orderId)
    expect(order?.lines.every((line) => 'bundle' in line && line.bundle?.slug === bundle.slug)).toBe(true)

    // Owning them all, the reader cannot add it again; a refund takes the whole bundle back.
    expect(await cartPost(reader.cookie, { intent: 'add-bundle', bundleId: bundle.id })).toMatchObject({
      status: 400,
      body: { error: /own every eBook/ },
    })
    expect(await refundOrder(database.db, orderId)).toBe('refunded')
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId)),
    ).toEqual([])
  })

  test('a reader who owns some books pays the fair share for the rest, and gets only those', async () => {
    const books = catalogue.slice(4, 7)
    const bundle = await makeBundle(sumOf(books) - 300, books)
    const reader = await createReader(database.db)
    const cartId = await requireUserCart(database.db, reader.userId)
    await addToCart(database.db, cartId, books[0]!.id)
    expect((await pay(reader.userId)).outcome).toBe('paid')

    expect((await cartPost(reader.cookie, { intent: 'add-bundle', bundleId: bundle.id })).status).toBe(200)
    const rest = sumOf(books.slice(1))
    const fair = Math.min(
      rest,
      Math.floor((bundle.priceCents * rest * 2 + sumOf(books)) / (sumOf(books) * 2)),
    )
    const checkout = await getCheckout(database.db, reader.userId)
    expect(checkout.totalCents).toBe(fair)
    expect(checkout.lines.map((line) => line.bookId).toSorted()).toEqual(
      books
        .slice(1)
        .map((b) => b.id)
        .toSorted(),
    )
    expect(checkout.lines[0]!.bundle).toMatchObject({ bookCount: 3, ownedCount: 1 })
    const paid = await pay(reader.userId)
    const items = await database.db
      .select()
      .from(orderItems)
      .where(eq(orderItems.orderId, (paid as { orderId: string }).orderId))
    expect(items.map((item) => item.bookId).toSorted()).toEqual(
      books
        .slice(1)
        .map((b) => b.id)
        .toSorted(),
    )
    expect(items.reduce((total, item) => total + item.priceCents, 0)).toBe(fair)
  })

  test('bad and refused bundle forms answer 400 and write nothing', async () => {
    const reader = await createReader(database.db)
    const off = await makeBundle(500, catalogue.slice(0, 2))
    await database.db.update(bundles).set({ active: false }).where(eq(bundles.id, off.id))
    for (const [fields, message] of [
      [{ intent: 'add-bundle', bundleId: 'not-a-uuid' }, /could not find that bundle/],
      [{ intent: 'add-bundle', bundleId: crypto.randomUUID() }, /could not find that bundle/],
      [{ intent: 'add-bundle', bundleId: off.id }, /not available/],
      [{ intent: 'remove-bundle', bundleId: off.id }, /not in your cart/],
    ] as const) {
      expect(await cartPost(reader.cookie, fields), JSON.stringify(fields)).toMatchObject({
        status: 400,
        body: { error: message },
      })
    }
    // Refused before a first cart was made: nothing written.
    expect(
      await database.db
        .execute(sql`select 1 from carts where user_id = ${reader.userId}`)
        .then((result) => (result as { rows: unknown[] }).rows),
    ).toEqual([])
    // A switched-off bundle's page is gone.
    expect(
      await thrownBy(() =>
        bundlePage.loader(
          routeArgs({ db: database.db, path: `/bundles/${off.slug}`, params: { slug: off.slug } }) as never,
        ),
      ),
    ).toMatchObject({ status: 404 })
  })

  test('a signed-out visitor’s bundle joins their account’s cart at sign-in; its books leave the account’s own lines', async () => {
    const books = catalogue.slice(5, 7)
    const bundle = await makeBundle(sumOf(books) - 100, books)
    const reader = await createReader(database.db)
    const account = await requireUserCart(database.db, reader.userId)
    await addToCart(database.db, account, books[0]!.id)
    const anonymous = await createCart(database.db)
    await addBundleToCart(database.db, anonymous, bundle.id)
    await mergeCarts(database.db, anonymous, account)
    expect(
      await database.db
        .select()
        .from(cartBundles)
        .where(and(eq(cartBundles.cartId, account), eq(cartBundles.bundleId, bundle.id))),
    ).toHaveLength(1)
    expect(await database.db.select().from(cartItems).where(eq(cartItems.cartId, account))).toEqual([])
    expect((await getCheckout(database.db, reader.userId)).totalCents).toBe(bundle.priceCents)
  })

  test('a book in a bundle cannot be deleted: the admin is told which bundle holds it', async () => {
    const book = catalogue[1]!
    const [row] = await database.db
      .select({ version: books.version })
      .from(books)
      .where(eq(books.id, book.id))
    const actor = { id: admin.userId, email: admin.email }
    const refused = await deleteBook(database.db, actor, book.id, row!.version)
    expect(refused).toMatchObject({ outcome: 'in-bundle' })
    expect((refused as { bundles: string[] }).bundles.length).toBeGreaterThan(0)
    expect(await database.db.select({ id: books.id }).from(books).where(eq(books.id, book.id))).toHaveLength(
      1,
    )
  })

  test('a bundle whose books the cart and the library bring already is not charged, and says so', async () => {
    const [x, y, z] = catalogue.slice(1, 4)
    const first = await makeBundle(sumOf([x!, y!]) - 100, [x!, y!])
    const second = await makeBundle(sumOf([y!, z!]) - 100, [y!, z!])
    const reader = await createReader(database.db)
    const cartId = await requireUserCart(database.db, reader.userId)
    await addToCart(database.db, cartId, z!.id)
    expect((await pay(reader.userId)).outcome).toBe('paid')
    for (const bundle of [first, second])
      expect((await cartPost(reader.cookie, { intent: 'add-bundle', bundleId: bundle.id })).status).toBe(200)
    const checkout = await getCheckout(database.db, reader.userId)
    // Y comes with the first bundle and Z is theirs: the second brings nothing.
    expect(checkout.totalCents).toBe(first.priceCents)
    expect(checkout.alreadyOwned.map((line) => line.bundle?.id)).toEqual([second.id])
    expect(checkout.lines.map((line) => line.bookId).toSorted()).toEqual([x!.id, y!.id].toSorted())
  })
})
