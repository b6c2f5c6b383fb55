import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { addToCart, requireUserCart } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { tombstoneEmail } from '#app/features/identity/account-deletion.server.ts'
import { saveReview, toggleHelpfulVote } from '#app/features/reviews/reviews.server.ts'
import { action as deleteAction, loader as deleteLoader } from '#app/routes/account-delete.tsx'
import { loader as exportLoader } from '#app/routes/account-export.ts'
import {
  account,
  books,
  carts,
  emailOutbox,
  libraryItems,
  orderItems,
  orders,
  reviews,
  session,
  user,
} from '#app/server/db/schema/index.server.ts'
import { createBuyer, createReader, testPassword } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'
import { deliverOutboxOverSmtp } from '#tests/smtp.ts'

let database: TestDatabase
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  bookIds = (await listBooks(database.db)).map((book) => book.id)
})

function postDelete(cookie: string, fields: Record<string, string>) {
  return deleteAction(
    routeArgs({
      db: database.db,
      path: '/account/delete',
      cookie,
      init: { method: 'POST', body: new URLSearchParams(fields) },
    }),
  )
}

type DataAnswer = { data: { fieldErrors?: { password?: string }; formError?: string }; init?: ResponseInit }

describe('deleting my account', () => {
  test('the page asks for the password; signed out, it sends to the login page', async () => {
    const reader = await createReader(database.db)
    const page = await deleteLoader(
      routeArgs({ db: database.db, path: '/account/delete', cookie: reader.cookie }),
    )
    expect(page).toMatchObject({ email: reader.email, hasPassword: true })
    const signedOut = (await thrownBy(() =>
      deleteLoader(routeArgs({ db: database.db, path: '/account/delete' })),
    )) as Response
    expect(signedOut.status).toBe(302)
    expect(signedOut.headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Fdelete')
  })

  test('a wrong or missing password is refused with 400 next to the field, and nothing is deleted', async () => {
    const reader = await createReader(database.db)
    const wrong = (await postDelete(reader.cookie, {
      intent: 'delete',
      password: 'not my password',
    })) as DataAnswer
    expect(wrong.init?.status).toBe(400)
    expect(wrong.data.fieldErrors?.password).toBe('That password is not right.')
    const missing = (await postDelete(reader.cookie, { intent: 'delete' })) as DataAnswer
    expect(missing.init?.status).toBe(400)
    expect(missing.data.fieldErrors?.password).toBe('Enter your password to confirm.')
    const [still] = await database.db.select().from(user).where(eq(user.id, reader.userId))
    expect(still?.email).toBe(reader.email)
  })

  test('after 5 attempts in 15 minutes: 429 with Retry-After, even with the right password', async () => {
    const reader = await createReader(database.db)
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = (await postDelete(reader.cookie, {
        intent: 'delete',
        password: `guess ${attempt}`,
      })) as DataAnswer
      expect(wrong.init?.status).toBe(400)
    }
    const limited = (await postDelete(reader.cookie, {
      intent: 'delete',
      password: testPassword,
    })) as DataAnswer
    expect(limited.init?.status).toBe(429)
    expect(Number(new Headers(limited.init?.headers).get('Retry-After'))).toBeGreaterThan(0)
    expect(limited.data.formError).toMatch(/Too many attempts/)
    expect(await database.db.select().from(session).where(eq(session.userId, reader.userId))).not.toEqual([])
  })

  test('removes sessions, sign-in, cart, library and personal data; keeps the orders under a tombstone; mails the old address', async () => {
    const buyer = await createBuyer(database.db, [bookIds[0]!])
    const cartId = await requireUserCart(database.db, buyer.userId)
    await addToCart(database.db, cartId, bookIds[1]!)
    // Their review of the book, and their helpful vote on another buyer's review of it.
    const other = await createBuyer(database.db, [bookIds[0]!])
    const input = { rating: 5, title: 'Mine', body: 'Personal words.' }
    await saveReview(database.db, { userId: buyer.userId, bookId: bookIds[0]!, input })
    const theirs = await saveReview(database.db, { userId: other.userId, bookId: bookIds[0]!, input })
    await toggleHelpfulVote(database.db, buyer.userId, theirs.id)
    const answer = (await postDelete(buyer.cookie, { intent: 'delete', password: testPassword })) as Response
    expect(answer.status).toBe(303)
    expect(answer.headers.get('Location')).toBe('/login?deleted=1')
    // The browser is signed out: the session cookie is cleared.
    expect(answer.headers.getSetCookie().some((cookie) => /session_token=;/.test(cookie))).toBe(true)

    const [tombstone] = await database.db.select().from(user).where(eq(user.id, buyer.userId))
    expect(tombstone).toMatchObject({ email: tombstoneEmail(buyer.userId), name: '', emailVerified: false })
    expect(await database.db.select().from(session).where(eq(session.userId, buyer.userId))).toEqual([])
    expect(await database.db.select().from(account).where(eq(account.userId, buyer.userId))).toEqual([])
    expect(await database.db.select().from(reviews).where(eq(reviews.userId, buyer.userId))).toEqual([])
    const [left] = await database.db.select().from(reviews).where(eq(reviews.id, theirs.id))
    expect(left).toMatchObject({ helpfulCount: 0 })
    const [book] = await database.db
      .select({ count: books.ratingCount })
      .from(books)
      .where(eq(books.id, bookIds[0]!))
    expect(book?.count).toBe(1)
    expect(await database.db.select().from(carts).where(eq(carts.userId, buyer.userId))).toEqual([])
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, buyer.userId)),
    ).toEqual([])
    const kept = await database.db.select().from(orders).where(eq(orders.userId, buyer.userId))
    expect(kept.map((order) => order.id)).toEqual([buyer.orderId])
    expect(
      await database.db.select().from(orderItems).where(eq(orderItems.orderId, buyer.orderId)),
    ).toHaveLength(1)
    // The old session no longer works; the old password signs nobody in.
    expect(
      await servicesFor(database.db).auth.api.getSession({ headers: new Headers({ Cookie: buyer.cookie }) }),
    ).toBeNull()
    await expect(
      servicesFor(database.db).auth.api.signInEmail({ body: { email: buyer.email, password: testPassword } }),
    ).rejects.toMatchObject({ statusCode: 401, body: { code: 'INVALID_EMAIL_OR_PASSWORD' } })

    // The confirmation goes to the address the account had, through a real SMTP server.
    const queued = await database.db
      .select()
      .from(emailOutbox)
      .where(eq(emailOutbox.subjectKey, buyer.userId))
    expect(queued.map((mail) => [mail.kind, mail.to])).toEqual([['account-deleted', buyer.email]])
    const mail = (await deliverOutboxOverSmtp(database.db)).find(
      (received) => received.envelope.to[0] === buyer.email && received.parsed.subject?.includes('deleted'),
    )
    expect(mail?.parsed.subject).toBe('Your CodeBook account has been deleted')
    expect(mail?.parsed.text).toContain('Your orders are kept for our accounts')

    // The email is free again: a new account can be made with it.
    const again = await createReader(database.db, { email: buyer.email })
    expect(again.userId).not.toBe(buyer.userId)
  })
})

describe('exporting my data', () => {
  test('a JSON download of the profile, orders, library and sign-in methods; no tokens or card numbers', async () => {
    const buyer = await createBuyer(database.db, [bookIds[2]!])
    await saveReview(database.db, {
      userId: buyer.userId,
      bookId: bookIds[2]!,
      input: { rating: 4, title: 'Good', body: 'Clear chapters.' },
    })
    const response = await exportLoader(
      routeArgs({ db: database.db, path: '/account/export.json', cookie: buyer.cookie }),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/json; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="codebook-data-\d{4}-\d{2}-\d{2}\.json"$/,
    )
    expect(response.headers.get('Cache-Control')).toBe('private, no-store')
    const text = await response.text()
    const body = JSON.parse(text)
    expect(body.profile).toMatchObject({ email: buyer.email, name: buyer.email, emailVerified: false })
    expect(body.signInMethods.map((method: { method: string }) => method.method)).toEqual(['password'])
    expect(body.orders).toHaveLength(1)
    expect(body.orders[0]).toMatchObject({
      number: buyer.orderNumber,
      status: 'paid',
      payment: { provider: 'test', cardBrand: 'Visa', cardLast4: '4242' },
    })
    expect(body.orders[0].lines).toHaveLength(1)
    expect(body.library).toHaveLength(1)
    expect(body.library[0]).toMatchObject({ downloadCount: 0 })
    expect(body.reviews).toEqual([
      expect.objectContaining({ rating: 4, title: 'Good', body: 'Clear chapters.', shown: true }),
    ])
    expect(text).not.toMatch(/4242424242424242|password"\s*:\s*"|token|argon2/i)
  })

  test('signed out: to the login page, and back here after', async () => {
    const answer = (await thrownBy(() =>
      exportLoader(routeArgs({ db: database.db, path: '/account/export.json' })),
    )) as Response
    expect(answer.status).toBe(302)
    expect(answer.headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Fexport.json')
  })
})
