import { eq } from 'drizzle-orm'
import { beforeEach, describe, expect } from 'vitest'
import {
  createCart,
  deleteAbandonedCarts,
  listCartBookIds,
  mergeCarts,
  addToCart,
  moveUserCart,
  requireUserCart,
} from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { cartAddedMiddleware } from '#app/features/cart/added-notice.server.ts'
import { loader as rootLoader } from '#app/root.tsx'
import { visitorKey } from '#app/visitor-key.server.ts'
import { action as cartAction, loader as cartLoader } from '#app/routes/cart.tsx'
import { action as loginAction } from '#app/routes/login.tsx'
import { books, carts, user } from '#app/server/db/schema/index.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'

let database: TestDatabase
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  bookIds = (await listBooks(database.db)).map((book) => book.id)
})

type ActionResult =
  { data?: unknown; init?: { status?: number; headers?: Record<string, string> } } | Response

/** Posts the cart form as a browser would, with JavaScript (a fetcher) or without (a document POST). */
async function postCart(
  fields: Record<string, string>,
  options: { cookie?: string; javascript?: boolean } = {},
) {
  const result = (await cartAction(
    routeArgs({
      db: database.db,
      path: '/cart',
      cookie: options.cookie,
      dataRequest: options.javascript ?? true,
      init: { method: 'POST', body: new URLSearchParams(fields) },
    }),
  )) as ActionResult
  if (result instanceof Response) {
    return {
      status: result.status,
      location: result.headers.get('Location'),
      setCookie: result.headers.get('Set-Cookie'),
    }
  }
  return {
    status: result.init?.status ?? 200,
    body: result.data as { error?: string; ok?: boolean },
    setCookie: result.init?.headers?.['Set-Cookie'] ?? null,
  }
}

async function cartOf(cookie: string) {
  const data = await rootLoader(routeArgs({ db: database.db, path: '/', cookie }))
  return data.cartBookIds
}

describe('the cart action', () => {
  let cookie: string
  beforeEach(async () => {
    const first = await postCart({ intent: 'add', bookId: bookIds[0]! })
    expect(first.status).toBe(200)
    expect(first.setCookie).toMatch(/^cb_cart=.+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/)
    cookie = cookieHeader(first.setCookie ?? undefined)
    expect(await cartOf(cookie)).toEqual([bookIds[0]])
  })

  test('adds and removes books; the cart is the same for every later request with the cookie', async () => {
    expect((await postCart({ intent: 'add', bookId: bookIds[1]! }, { cookie })).status).toBe(200)
    expect(await cartOf(cookie)).toEqual([bookIds[0], bookIds[1]])
    expect((await postCart({ intent: 'remove', bookId: bookIds[0]! }, { cookie })).status).toBe(200)
    expect(await cartOf(cookie)).toEqual([bookIds[1]])
    const page = await cartLoader(routeArgs({ db: database.db, path: '/cart', cookie }))
    expect(page.lines.map((line) => line.bookId)).toEqual([bookIds[1]])
  })

  test.each([
    ['a malformed book id', { intent: 'add', bookId: "1' or 1=1 --" }, 'We could not find that eBook'],
    [
      'an unknown book id',
      { intent: 'add', bookId: '00000000-0000-4000-8000-000000000000' },
      'We could not find that eBook',
    ],
    ['an unknown intent', { intent: 'buy-everything', bookId: 'x' }, 'Unknown cart action'],
    ['no fields at all', {}, 'Unknown cart action'],
  ])('%s gets a clear message and leaves the cart unchanged', async (_, fields, message) => {
    const result = await postCart(fields as Record<string, string>, { cookie })
    expect(result.status).toBe(400)
    expect(result.body?.error).toContain(message)
    expect(await cartOf(cookie)).toEqual([bookIds[0]])
  })

  test('adding a book already there, or removing one that is not, is refused with a message', async () => {
    const again = await postCart({ intent: 'add', bookId: bookIds[0]! }, { cookie })
    expect(again).toMatchObject({ status: 400, body: { error: 'This eBook is already in your cart.' } })
    const absent = await postCart({ intent: 'remove', bookId: bookIds[2]! }, { cookie })
    expect(absent).toMatchObject({ status: 400, body: { error: 'This eBook is not in your cart.' } })
    expect(await cartOf(cookie)).toEqual([bookIds[0]])
  })

  test('an unavailable book cannot be added', async () => {
    await database.db.update(books).set({ available: false }).where(eq(books.id, bookIds[3]!))
    try {
      const result = await postCart({ intent: 'add', bookId: bookIds[3]! }, { cookie })
      expect(result).toMatchObject({
        status: 400,
        body: { error: 'This eBook is not available for purchase right now.' },
      })
      expect(await cartOf(cookie)).toEqual([bookIds[0]])
    } finally {
      await database.db.update(books).set({ available: true }).where(eq(books.id, bookIds[3]!))
    }
  })

  test('two tabs adding the same book at once make one line', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => postCart({ intent: 'add', bookId: bookIds[5]! }, { cookie })),
    )
    expect(results.map((result) => result.status).sort()).toEqual([200, 400, 400, 400, 400])
    expect(await cartOf(cookie)).toEqual([bookIds[0], bookIds[5]])
  })

  test('with JavaScript off it redirects back to the page, at the book; never off the site', async () => {
    const back = await postCart(
      { intent: 'add', bookId: bookIds[1]!, redirectTo: '/AllBooks?x=1' },
      { cookie, javascript: false },
    )
    expect(back).toMatchObject({ status: 303, location: `/AllBooks?x=1#book-${bookIds[1]}` })
    const offsite = await postCart(
      { intent: 'remove', bookId: bookIds[1]!, redirectTo: '//evil.example/' },
      { cookie, javascript: false },
    )
    expect(offsite).toMatchObject({ status: 303, location: `/cart#book-${bookIds[1]}` })
  })

  test('a forged or tampered cookie is no key to anyone’s cart', async () => {
    const [name, value] = cookie.split('=')
    const tampered = `${name}=${value!.slice(0, -3)}abc`
    expect(await cartOf(tampered)).toEqual([])
    const forged = `cb_cart=${Buffer.from(JSON.stringify(cookie)).toString('base64')}`
    expect(await cartOf(forged)).toEqual([])
  })
})

describe('Added to your cart', () => {
  const noticeOf = async (cookie: string) =>
    (await rootLoader(routeArgs({ db: database.db, path: '/AllBooks', cookie }))).cartAddedBookId

  test('with JavaScript the answer names the book added; a removal names none', async () => {
    const added = await postCart({ intent: 'add', bookId: bookIds[2]! })
    expect(added).toMatchObject({ status: 200, body: { ok: true, added: bookIds[2] } })
    const cookie = cookieHeader(added.setCookie ?? undefined)
    const removed = await postCart({ intent: 'remove', bookId: bookIds[2]! }, { cookie })
    expect(removed).toMatchObject({ status: 200, body: { ok: true, added: null } })
  })

  test('without JavaScript the redirect leaves a notice the next page reads once, outside the page cache', async () => {
    const first = await postCart({ intent: 'add', bookId: bookIds[2]! })
    const cookie = cookieHeader(first.setCookie ?? undefined)
    // A form on the catalogue page, posted without JavaScript: back to that page.
    const postFromPage = async (intent: 'add' | 'remove') =>
      (await cartAction(
        routeArgs({
          db: database.db,
          path: '/cart',
          cookie,
          init: {
            method: 'POST',
            body: new URLSearchParams({ intent, bookId: bookIds[3]!, redirectTo: '/AllBooks' }),
          },
        }),
      )) as Response
    const back = await postFromPage('add')
    expect(back.status).toBe(303)
    expect(back.headers.get('Location')).toBe(`/AllBooks#book-${bookIds[3]}`)
    const notice = back.headers.getSetCookie().find((header) => header.startsWith('cb_cart_added='))
    expect(notice).toBe(`cb_cart_added=${bookIds[3]}; Max-Age=60; Path=/; HttpOnly; SameSite=Lax`)

    const withNotice = `${cookie}; cb_cart_added=${bookIds[3]}`
    expect(await noticeOf(withNotice)).toBe(bookIds[3])
    expect(await noticeOf(cookie)).toBeNull()
    expect(await noticeOf(`${cookie}; cb_cart_added=%3Cscript%3E`)).toBeNull()

    // Read once: the answer to the page that carried it deletes it; other answers set nothing.
    const answer = (cookie: string) =>
      cartAddedMiddleware(
        {
          request: new Request('http://localhost:3000/AllBooks', { headers: { Cookie: cookie } }),
        } as Parameters<typeof cartAddedMiddleware>[0],
        () => Promise.resolve(new Response('the page')),
      ) as Promise<Response>
    expect((await answer(withNotice)).headers.getSetCookie()).toEqual(['cb_cart_added=; Max-Age=0; Path=/'])
    expect((await answer(cookie)).headers.getSetCookie()).toEqual([])

    // The shared page cache neither serves nor keeps a page asked for with the notice.
    const keyOf = (cookie: string) =>
      visitorKey(new Request('http://store/', { headers: { Cookie: cookie } }), servicesFor(database.db))
    expect(await keyOf(cookie)).toBeDefined()
    expect(await keyOf(withNotice)).toBeUndefined()

    // A removal leaves no notice.
    const removed = await postFromPage('remove')
    expect(removed.status).toBe(303)
    expect(removed.headers.getSetCookie().some((header) => header.startsWith('cb_cart_added='))).toBe(false)
  })
})

test('a refused change by a visitor without a cart makes no cart and sets no cookie (found by drill:fuzz)', async () => {
  const cartsBefore = (await database.db.select({ id: carts.id }).from(carts)).length
  const unknown = await postCart({ intent: 'add', bookId: '00000000-0000-4000-8000-000000000000' })
  expect(unknown).toMatchObject({ status: 400, setCookie: null })
  const removal = await postCart({ intent: 'remove', bookId: bookIds[0]! })
  expect(removal).toMatchObject({ status: 400, body: { error: 'This eBook is not in your cart.' } })
  expect(removal.setCookie).toBeNull()
  expect((await database.db.select({ id: carts.id }).from(carts)).length).toBe(cartsBefore)
})

test('a first-time visitor has an empty cart and gets no cookie from a page view', async () => {
  expect(await cartOf('')).toEqual([])
  const page = await cartLoader(routeArgs({ db: database.db, path: '/cart' }))
  expect(page.lines).toEqual([])
})

test('merging carts is a union without duplicates, and removes the merged cart', async () => {
  const anonymous = await createCart(database.db)
  const account = await createCart(database.db)
  for (const id of [bookIds[0]!, bookIds[1]!]) await addToCart(database.db, anonymous, id)
  for (const id of [bookIds[1]!, bookIds[2]!]) await addToCart(database.db, account, id)
  await mergeCarts(database.db, anonymous, account)
  expect(new Set(await listCartBookIds(database.db, account))).toEqual(
    new Set([bookIds[0], bookIds[1], bookIds[2]]),
  )
  expect(await database.db.select().from(carts).where(eq(carts.id, anonymous))).toEqual([])
})

describe('books the reader owns never join their cart', () => {
  test('added while signed out, they are dropped when the reader logs in; the badge counts the rest', async () => {
    const buyer = await createBuyer(database.db, [bookIds[0]!])
    // Signed out (another device, or after logging out), the store cannot know the book is owned.
    const added = await postCart({ intent: 'add', bookId: bookIds[0]! })
    const anonymous = cookieHeader(added.setCookie ?? undefined)
    expect((await postCart({ intent: 'add', bookId: bookIds[1]! }, { cookie: anonymous })).status).toBe(200)
    expect(await cartOf(anonymous)).toEqual([bookIds[0], bookIds[1]])

    const login = await loginAction(
      routeArgs({
        db: database.db,
        path: '/login',
        cookie: anonymous,
        clientIp: '192.0.2.77',
        init: {
          method: 'POST',
          body: new URLSearchParams({ email: buyer.email, password: testPassword, redirectTo: '/cart' }),
        },
      }),
    )
    expect(login).toBeInstanceOf(Response)
    const session = cookieHeader(login as Response)
    expect(await cartOf(session)).toEqual([bookIds[1]])
    const page = await cartLoader(routeArgs({ db: database.db, path: '/cart', cookie: session }))
    expect(page.lines.map((line) => line.bookId)).toEqual([bookIds[1]])
  })

  test('a cart whose every book is owned leaves nothing behind, whichever way it joins the account', async () => {
    const buyer = await createBuyer(database.db, [bookIds[2]!, bookIds[3]!])
    const anonymous = await createCart(database.db)
    await addToCart(database.db, anonymous, bookIds[2]!)
    const accountCart = await requireUserCart(database.db, buyer.userId)
    await mergeCarts(database.db, anonymous, accountCart)
    expect(await listCartBookIds(database.db, accountCart)).toEqual([])

    // A guest's cart moving to the account (the guest logs in to the account that owns the book).
    await database.db.insert(user).values({ id: 'guest-with-owned', name: 'Guest', email: 'g@example.com' })
    const guestCart = await requireUserCart(database.db, 'guest-with-owned')
    await addToCart(database.db, guestCart, bookIds[3]!)
    await addToCart(database.db, guestCart, bookIds[4]!)
    await moveUserCart(database.db, 'guest-with-owned', buyer.userId)
    expect(await listCartBookIds(database.db, accountCart)).toEqual([bookIds[4]])
  })
})

test('anonymous carts idle for 30 days are deleted; recent and account carts stay', async () => {
  const now = new Date()
  const day = 24 * 60 * 60 * 1000
  await database.db.insert(user).values({ id: 'cart-owner', name: 'Owner', email: 'owner@example.com' })
  const stale = await createCart(database.db)
  const recent = await createCart(database.db)
  const owned = await createCart(database.db, 'cart-owner')
  await database.db
    .update(carts)
    .set({ updatedAt: new Date(now.getTime() - 31 * day) })
    .where(eq(carts.id, stale))
  await database.db
    .update(carts)
    .set({ updatedAt: new Date(now.getTime() - 29 * day) })
    .where(eq(carts.id, recent))
  await database.db
    .update(carts)
    .set({ updatedAt: new Date(now.getTime() - 90 * day) })
    .where(eq(carts.id, owned))
  await addToCart(database.db, stale, bookIds[0]!)
  await database.db
    .update(carts)
    .set({ updatedAt: new Date(now.getTime() - 31 * day) })
    .where(eq(carts.id, stale))
  expect(await deleteAbandonedCarts(database.db, now)).toBeGreaterThanOrEqual(1)
  const left = (await database.db.select({ id: carts.id }).from(carts)).map((cart) => cart.id)
  expect(left).not.toContain(stale)
  expect(left).toContain(recent)
  expect(left).toContain(owned)
})
