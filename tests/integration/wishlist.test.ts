import { eq, sql } from 'drizzle-orm'
import { beforeEach, describe, expect } from 'vitest'
import { getAdminBook, bookToFormValues } from '#app/features/catalog/admin-books.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { deleteAccount, exportAccountData } from '#app/features/identity/account-deletion.server.ts'
import { queuePriceDropMails, queueCouponMails } from '#app/features/wishlist/wishlist-mail.server.ts'
import {
  addToWishlist,
  createWishlist,
  deleteAbandonedWishlists,
  moveUserWishlist,
  requireUserWishlist,
} from '#app/features/wishlist/wishlist.server.ts'
import { loader as rootLoader } from '#app/root.tsx'
import * as accountWishlist from '#app/routes/account-wishlist.tsx'
import * as adminBookEdit from '#app/routes/admin/book-edit.tsx'
import * as adminCoupons from '#app/routes/admin/coupons.tsx'
import { action as loginAction } from '#app/routes/login.tsx'
import * as sharedWishlist from '#app/routes/shared-wishlist.tsx'
import * as unsubscribe from '#app/routes/wishlist-unsubscribe.tsx'
import { action as wishlistAction } from '#app/routes/wishlist.tsx'
import {
  books,
  coupons,
  emailOutbox,
  user,
  wishlistItems,
  wishlists,
} from '#app/server/db/schema/index.server.ts'
import { visitorKey } from '#app/visitor-key.server.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createGuestCookie, createReader, testPassword } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs, servicesFor } from '#tests/route-args.ts'
import { deliverOutboxOverSmtp, type ReceivedMail } from '#tests/smtp.ts'

let database: TestDatabase
let bookIds: string[]
let admin: Awaited<ReturnType<typeof createAdmin>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  // The seed's 7 books, then this file's own, so that each test can change one's price or status.
  await database.db.insert(books).values(
    Array.from({ length: 12 }, (_, n) => ({
      slug: `wished-book-${n}`,
      title: `Wished Book ${n}`,
      author: 'Wish Author',
      description: 'A book made for the wishlist tests.',
      priceCents: 2000 + n * 100,
      coverPath: '/covers/django-framework.svg',
      coverAlt: `Cover of Wished Book ${n}`,
      rating: 4,
      fileSizeBytes: 1_000_000,
      status: 'published' as const,
      createdAt: new Date(Date.now() + (n + 1) * 1000),
    })),
  )
  bookIds = (await listBooks(database.db)).map((book) => book.id)
  expect(bookIds.length).toBeGreaterThanOrEqual(19)
  admin = await createAdmin(database.db)
})

const UNKNOWN_BOOK = '00000000-0000-4000-8000-000000000000'
let nextIp = 1
const freshIp = () => `192.0.2.${nextIp++}`

/** Posts the heart's form as a browser would: a fetcher (JavaScript on) or a plain form post. */
async function postHeart(
  fields: Record<string, string>,
  options: { cookie?: string; javascript?: boolean } = {},
) {
  const result = await answerOf(
    wishlistAction(
      routeArgs({
        db: database.db,
        path: '/wishlist',
        cookie: options.cookie,
        dataRequest: options.javascript ?? true,
        init: { method: 'POST', body: new URLSearchParams(fields) },
      }) as never,
    ),
  )
  return { ...result, setCookie: result.headers.get('Set-Cookie'), location: result.headers.get('Location') }
}

async function wishedBy(cookie: string) {
  const data = await rootLoader(routeArgs({ db: database.db, path: '/', cookie }))
  return data.wishlistBookIds
}

/** Every wishlist row and item: for 'nothing changed'. */
async function snapshot() {
  return {
    wishlists: await database.db.select().from(wishlists).orderBy(wishlists.id),
    items: await database.db
      .select()
      .from(wishlistItems)
      .orderBy(wishlistItems.wishlistId, wishlistItems.bookId),
  }
}

async function settings(cookie: string, intent: string) {
  return answerOf(
    accountWishlist.action(
      routeArgs({
        db: database.db,
        path: '/account/wishlist',
        cookie,
        init: { method: 'POST', body: new URLSearchParams({ intent }) },
      }) as never,
    ),
  )
}

async function accountPage(cookie?: string) {
  return accountWishlist.loader(routeArgs({ db: database.db, path: '/account/wishlist', cookie }) as never)
}

describe('the heart, signed out', () => {
  test('adds a book into a cookie wishlist and takes it off again; the root tells every page', async () => {
    const added = await postHeart({ intent: 'add', bookId: bookIds[0]! })
    expect(added.status).toBe(200)
    expect(added.setCookie).toMatch(/^cb_wishlist=.+; Max-Age=7776000; Path=\/; HttpOnly; SameSite=Lax$/)
    const cookie = cookieHeader(added.setCookie ?? undefined)
    expect(await wishedBy(cookie)).toEqual([bookIds[0]])
    expect((await postHeart({ intent: 'add', bookId: bookIds[1]! }, { cookie })).status).toBe(200)
    expect(new Set(await wishedBy(cookie))).toEqual(new Set([bookIds[0], bookIds[1]]))
    expect((await postHeart({ intent: 'remove', bookId: bookIds[0]! }, { cookie })).status).toBe(200)
    expect(await wishedBy(cookie)).toEqual([bookIds[1]])
    // The account page shows a signed-out visitor their cookie's list, without the account's settings.
    const page = await accountPage(cookie)
    expect(page.lines.map((line) => line.bookId)).toEqual([bookIds[1]])
    expect(page.account).toBeNull()
  })

  test('without JavaScript the form is sent back to its page, at the book; a foreign target is not followed', async () => {
    const plain = await postHeart(
      { intent: 'add', bookId: bookIds[2]!, redirectTo: '/AllBooks?page=2' },
      { javascript: false },
    )
    expect(plain.status).toBe(303)
    expect(plain.location).toBe(`/AllBooks?page=2#book-${bookIds[2]}`)
    expect(plain.setCookie).toMatch(/^cb_wishlist=/)
    const foreign = await postHeart(
      { intent: 'add', bookId: bookIds[3]!, redirectTo: 'https://evil.example/' },
      { javascript: false },
    )
    expect(foreign.location).toBe(`/account/wishlist#book-${bookIds[3]}`)
  })

  test('the page cache keys on the wishlist: two visitors with different hearts never share a page', async () => {
    const keyOf = (cookie: string) =>
      visitorKey(new Request('http://store/', { headers: { Cookie: cookie } }), servicesFor(database.db))
    const first = cookieHeader(
      (await postHeart({ intent: 'add', bookId: bookIds[4]! })).setCookie ?? undefined,
    )
    const second = cookieHeader(
      (await postHeart({ intent: 'add', bookId: bookIds[5]! })).setCookie ?? undefined,
    )
    expect(await keyOf(first)).toBeDefined()
    expect(await keyOf(first)).not.toBe(await keyOf(second))
    expect(await keyOf('')).not.toBe(await keyOf(first))
  })
})

describe('every bad heart is refused with its status and message, and changes nothing', () => {
  let cookie: string
  beforeEach(async () => {
    cookie = cookieHeader((await postHeart({ intent: 'add', bookId: bookIds[6]! })).setCookie ?? undefined)
  })

  test.each([
    [
      'a book id that is not a uuid',
      { intent: 'add', bookId: 'not-a-uuid' },
      400,
      /could not find that eBook/,
    ],
    ['an unknown book', { intent: 'add', bookId: UNKNOWN_BOOK }, 400, /could not find that eBook/],
    ['an unknown intent', { intent: 'steal', bookId: 'BOOK0' }, 400, /Unknown wishlist action/],
    ['no book at all', { intent: 'add' }, 400, /could not find that eBook/],
    ['a book already wished', { intent: 'add', bookId: 'WISHED' }, 409, /already on your wishlist/],
    ['a book not on it', { intent: 'remove', bookId: 'BOOK7' }, 409, /not on your wishlist/],
    ['removing an unknown book', { intent: 'remove', bookId: UNKNOWN_BOOK }, 400, /could not find/],
  ])('%s', async (_what, fields, status, message) => {
    const body = Object.fromEntries(
      Object.entries(fields).map(([key, value]) => [
        key,
        value === 'WISHED'
          ? bookIds[6]!
          : value.startsWith('BOOK')
            ? bookIds[Number(value.slice(4))]!
            : value,
      ]),
    )
    const before = await snapshot()
    const refused = await postHeart(body, { cookie })
    expect(refused.status).toBe(status)
    expect(refused.body).toMatchObject({ error: expect.stringMatching(message) })
    expect(await snapshot()).toEqual(before)
    // A plain form gets the same status, with the message on the page.
    const plain = await postHeart(body, { cookie, javascript: false })
    expect(plain.status).toBe(status)
    expect(await snapshot()).toEqual(before)
  })

  test('a visitor with no wishlist who is refused gets no wishlist and no cookie', async () => {
    const before = await snapshot()
    for (const fields of [
      { intent: 'add', bookId: UNKNOWN_BOOK },
      { intent: 'remove', bookId: bookIds[0]! },
      { intent: 'add', bookId: 'x' },
    ]) {
      const refused = await postHeart(fields)
      expect(refused.status).toBeGreaterThanOrEqual(400)
      expect(refused.setCookie).toBeNull()
    }
    expect(await snapshot()).toEqual(before)
  })

  test('a draft or archived book cannot be wished for; an owned one neither', async () => {
    const [draft] = await database.db
      .update(books)
      .set({ status: 'archived' })
      .where(eq(books.id, bookIds[8]!))
      .returning({ id: books.id })
    try {
      const refused = await postHeart({ intent: 'add', bookId: draft!.id }, { cookie })
      expect(refused).toMatchObject({ status: 400, body: { error: /not in the store/ } })
    } finally {
      await database.db.update(books).set({ status: 'published' }).where(eq(books.id, bookIds[8]!))
    }
    const buyer = await createBuyer(database.db, [bookIds[5]!])
    const before = await snapshot()
    const owned = await postHeart({ intent: 'add', bookId: bookIds[5]! }, { cookie: buyer.cookie })
    expect(owned).toMatchObject({ status: 409, body: { error: /already own/ } })
    expect(await snapshot()).toEqual(before)
  })
})

describe('signing in joins the wishlists', () => {
  test('a signed-out visitor logs in: the union is the account’s, the cookie wishlist and cookie go', async () => {
    const reader = await createReader(database.db)
    expect((await postHeart({ intent: 'add', bookId: bookIds[0]! }, { cookie: reader.cookie })).status).toBe(
      200,
    )
    const anonymous = cookieHeader(
      (await postHeart({ intent: 'add', bookId: bookIds[1]! })).setCookie ?? undefined,
    )
    expect((await postHeart({ intent: 'add', bookId: bookIds[0]! }, { cookie: anonymous })).status).toBe(200)
    const [anonymousRow] = await database.db
      .select({ id: wishlists.id })
      .from(wishlists)
      .innerJoin(wishlistItems, eq(wishlistItems.wishlistId, wishlists.id))
      .where(sql`${wishlists.userId} is null and ${wishlistItems.bookId} = ${bookIds[1]!}`)
      .orderBy(sql`${wishlists.createdAt} desc`)
      .limit(1)

    const login = await loginAction(
      routeArgs({
        db: database.db,
        path: '/login',
        cookie: anonymous,
        clientIp: freshIp(),
        init: {
          method: 'POST',
          body: new URLSearchParams({ email: reader.email, password: testPassword, redirectTo: '/' }),
        },
      }),
    )
    expect(login).toBeInstanceOf(Response)
    const setCookies = (login as Response).headers.getSetCookie()
    expect(setCookies).toContain('cb_wishlist=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax')
    const session = cookieHeader(login as Response)
    expect(new Set(await wishedBy(session))).toEqual(new Set([bookIds[0], bookIds[1]]))
    expect(await database.db.select().from(wishlists).where(eq(wishlists.id, anonymousRow!.id))).toEqual([])
  })

  test('a guest who logs in brings their wishlist', async () => {
    const reader = await createReader(database.db)
    const guest = await createGuestCookie(database.db)
    expect((await postHeart({ intent: 'add', bookId: bookIds[2]! }, { cookie: guest })).status).toBe(200)
    const login = await loginAction(
      routeArgs({
        db: database.db,
        path: '/login',
        cookie: guest,
        clientIp: freshIp(),
        init: {
          method: 'POST',
          body: new URLSearchParams({ email: reader.email, password: testPassword, redirectTo: '/' }),
        },
      }),
    )
    expect(await wishedBy(cookieHeader(login as Response))).toEqual([bookIds[2]])
  })

  test('moving a guest’s wishlist keeps the lower price the reader knew of a book on both', async () => {
    const [from, into] = [await createReader(database.db), await createReader(database.db)]
    const fromList = await requireUserWishlist(database.db, from.userId)
    const intoList = await requireUserWishlist(database.db, into.userId)
    await addToWishlist(database.db, fromList, bookIds[3]!)
    await addToWishlist(database.db, intoList, bookIds[3]!)
    await database.db
      .update(wishlistItems)
      .set({ seenPriceCents: 1 })
      .where(eq(wishlistItems.wishlistId, fromList))
    await moveUserWishlist(database.db, from.userId, into.userId)
    const rows = await database.db.select().from(wishlistItems).where(eq(wishlistItems.wishlistId, intoList))
    expect(rows.map((row) => [row.bookId, row.seenPriceCents])).toEqual([[bookIds[3], 1]])
    expect(await database.db.select().from(wishlists).where(eq(wishlists.id, fromList))).toEqual([])
  })
})

describe('the account’s wishlist page: sharing', () => {
  test('share shows a public link with the books and nothing private; stop makes it 404; sharing again, a new link', async () => {
    const reader = await createReader(database.db)
    await postHeart({ intent: 'add', bookId: bookIds[4]! }, { cookie: reader.cookie })
    expect((await accountPage(reader.cookie)).account).toMatchObject({ shareUrl: null, notify: false })
    expect(await settings(reader.cookie, 'share')).toMatchObject({ status: 303 })
    const shareUrl = (await accountPage(reader.cookie)).account!.shareUrl!
    expect(shareUrl).toMatch(/^http:\/\/localhost:3000\/wishlists\/[A-Za-z0-9_-]{22}$/)
    const token = shareUrl.split('/').pop()!

    const shared = async (value: string) =>
      answerOf(
        sharedWishlist.loader(
          routeArgs({ db: database.db, path: `/wishlists/${value}`, params: { token: value } }) as never,
        ),
      )
    const page = await shared(token)
    expect(page.status).toBe(200)
    expect(JSON.stringify(page.body)).not.toContain(reader.email)
    expect((page.body as { lines: Array<{ bookId: string }> }).lines.map((line) => line.bookId)).toEqual([
      bookIds[4],
    ])
    // Sharing twice keeps the one link.
    await settings(reader.cookie, 'share')
    expect((await accountPage(reader.cookie)).account!.shareUrl).toBe(shareUrl)

    await settings(reader.cookie, 'stop-sharing')
    expect(await shared(token)).toMatchObject({ status: 404 })
    await settings(reader.cookie, 'share')
    const again = (await accountPage(reader.cookie)).account!.shareUrl!
    expect(again).not.toBe(shareUrl)
    expect(await shared(again.split('/').pop()!)).toMatchObject({ status: 200 })
  })

  test('an unknown or malformed token is a 404', async () => {
    for (const token of ['AAAAAAAAAAAAAAAAAAAAAA', 'nope', '../../etc', 'x'.repeat(500)])
      expect(
        await answerOf(
          sharedWishlist.loader(
            routeArgs({ db: database.db, path: '/wishlists/x', params: { token } }) as never,
          ),
        ),
      ).toMatchObject({ status: 404 })
  })

  test('the shared page is never indexed, cached or referred', () => {
    const meta = sharedWishlist.meta({ matches: [] } as never)
    expect(meta).toContainEqual({ name: 'robots', content: 'noindex' })
    const headers = sharedWishlist.headers({
      actionHeaders: new Headers(),
      parentHeaders: new Headers(),
    } as never) as Headers
    expect(headers.get('Cache-Control')).toBe('no-store')
    expect(headers.get('Referrer-Policy')).toBe('no-referrer')
  })

  test('settings need an account: signed out or a guest 403, an unknown intent 400, nothing changes', async () => {
    const guest = await createGuestCookie(database.db)
    const reader = await createReader(database.db)
    const before = await snapshot()
    expect(await settings('', 'share')).toMatchObject({ status: 403, body: { error: /Log in or register/ } })
    expect(await settings(guest, 'share')).toMatchObject({ status: 403 })
    expect(await settings(reader.cookie, 'publish')).toMatchObject({
      status: 400,
      body: { error: /Unknown/ },
    })
    // The mails go only to a confirmed address.
    expect(await settings(reader.cookie, 'notify-on')).toMatchObject({
      status: 409,
      body: { error: /Confirm/ },
    })
    expect(await snapshot()).toEqual(before)
  })
})

/** The wishlist mails the outbox holds for this address, sent through a real SMTP server. */
async function mailsTo(email: string): Promise<ReceivedMail[]> {
  const received = await deliverOutboxOverSmtp(database.db)
  return received.filter(
    (mail) => mail.envelope.to.includes(email) && mail.parsed.text?.includes('/wishlist/unsubscribe/'),
  )
}

async function setPrice(bookId: string, price: string) {
  const book = (await getAdminBook(database.db, bookId))!
  const answer = await answerOf(
    adminBookEdit.action(
      routeArgs({
        db: database.db,
        path: `/admin/books/${bookId}`,
        cookie: admin.cookie,
        params: { bookId },
        init: {
          method: 'POST',
          body: new URLSearchParams({
            ...bookToFormValues(book),
            price,
            version: String(book.version),
            intent: 'save',
          }),
        },
      }) as never,
    ),
  )
  expect(answer.status).toBe(303)
}

/** A confirmed reader with these books wished and the price mails on. */
async function notifiedReader(wished: string[]) {
  const reader = await createReader(database.db, { confirmed: true })
  for (const bookId of wished)
    expect((await postHeart({ intent: 'add', bookId }, { cookie: reader.cookie })).status).toBe(200)
  expect(await settings(reader.cookie, 'notify-on')).toMatchObject({ status: 303 })
  return reader
}

describe('the price-drop mail', () => {
  test('an admin lowers a wished book’s price: one mail names it, with the unsubscribe link; the price told is remembered', async () => {
    const bookId = bookIds[10]!
    const reader = await notifiedReader([bookId, bookIds[11]!])
    const unconfirmed = await createReader(database.db)
    await postHeart({ intent: 'add', bookId }, { cookie: unconfirmed.cookie })
    const book = (await getAdminBook(database.db, bookId))!
    const lower = ((book.priceCents - 151) / 100).toFixed(2)

    await setPrice(bookId, lower)
    const mails = await mailsTo(reader.email)
    expect(mails).toHaveLength(1)
    const mail = mails[0]!.parsed
    expect(mail.subject).toContain(book.title)
    expect(mail.text).toContain(`$${lower}`)
    const link = /http:\/\/localhost:3000\/wishlist\/unsubscribe\/([A-Za-z0-9_-]{22})/.exec(mail.text ?? '')
    expect(link).not.toBeNull()
    expect(mail.html).toContain(link![0])
    expect(await mailsTo(unconfirmed.email)).toEqual([])
    const [item] = await database.db
      .select()
      .from(wishlistItems)
      .innerJoin(wishlists, eq(wishlists.id, wishlistItems.wishlistId))
      .where(sql`${wishlists.userId} = ${reader.userId} and ${wishlistItems.bookId} = ${bookId}`)
    expect(item!.wishlist_items.seenPriceCents).toBe(book.priceCents - 151)

    // Lower again within the day: no second mail now; the hourly sweep sends it a day later.
    const lowest = ((book.priceCents - 277) / 100).toFixed(2)
    await setPrice(bookId, lowest)
    expect(await mailsTo(reader.email)).toEqual([])
    const tomorrow = new Date(Date.now() + 25 * 60 * 60 * 1000)
    await queuePriceDropMails(database.db, { publicUrl: new URL('http://localhost:3000'), now: tomorrow })
    await database.db.update(emailOutbox).set({ nextAttemptAt: new Date() })
    const later = await mailsTo(reader.email)
    expect(later).toHaveLength(1)
    expect(later[0]!.parsed.text).toContain(`$${lowest}`)

    // A higher price is no news.
    await setPrice(bookId, ((book.priceCents + 500) / 100).toFixed(2))
    expect(
      await queuePriceDropMails(database.db, {
        publicUrl: new URL('http://localhost:3000'),
        now: new Date(Date.now() + 50 * 60 * 60 * 1000),
      }),
    ).toBe(0)

    // The unsubscribe link: a GET only asks; the POST (signed out) stops the mails; an unknown token is a 404.
    const token = link![1]!
    const args = (method: string, value = token) =>
      routeArgs({
        db: database.db,
        path: `/wishlist/unsubscribe/${value}`,
        params: { token: value },
        init: { method },
      }) as never
    expect(await unsubscribe.loader(args('GET'))).toEqual({ subscribed: true })
    expect(await unsubscribe.action(args('POST'))).toEqual({ done: true })
    expect(await unsubscribe.loader(args('GET'))).toEqual({ subscribed: false })
    expect((await accountPage(reader.cookie)).account!.notify).toBe(false)
    for (const bad of ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-token']) {
      expect(await answerOf(unsubscribe.loader(args('GET', bad)))).toMatchObject({ status: 404 })
      expect(await answerOf(unsubscribe.action(args('POST', bad)))).toMatchObject({ status: 404 })
    }
  })

  test('two instances queueing at once send one mail', async () => {
    const bookId = bookIds[12]!
    const reader = await notifiedReader([bookId])
    await database.db
      .update(wishlistItems)
      .set({ seenPriceCents: 99_999 })
      .where(eq(wishlistItems.bookId, bookId))
    const options = { publicUrl: new URL('http://localhost:3000'), bookIds: [bookId] }
    const counts = await Promise.all([
      queuePriceDropMails(database.db, options),
      queuePriceDropMails(database.db, options),
      queuePriceDropMails(database.db, options),
    ])
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(1)
    expect(await mailsTo(reader.email)).toHaveLength(1)
  })
})

describe('the coupon mail', () => {
  async function makeCoupon(fields: Record<string, string>) {
    return answerOf(
      adminCoupons.action(
        routeArgs({
          db: database.db,
          path: '/admin/coupons',
          cookie: admin.cookie,
          init: { method: 'POST', body: new URLSearchParams({ intent: 'create', ...fields }) },
        }) as never,
      ),
    )
  }

  test('a coupon on a wished book mails its code once; one on other books mails nothing', async () => {
    const reader = await notifiedReader([bookIds[13]!])
    const [wished, other] = await Promise.all(
      [bookIds[13]!, bookIds[14]!].map(async (id) => (await getAdminBook(database.db, id))!),
    )
    const code = `WISH${Date.now() % 100000}`
    expect(
      await makeCoupon({
        code: `NOPE${Date.now() % 100000}`,
        kind: 'percent',
        value: '10',
        books: other!.slug,
      }),
    ).toMatchObject({ status: 303 })
    expect(await mailsTo(reader.email)).toEqual([])
    expect(await makeCoupon({ code, kind: 'percent', value: '25', books: wished!.slug })).toMatchObject({
      status: 303,
    })
    const mails = await mailsTo(reader.email)
    expect(mails).toHaveLength(1)
    expect(mails[0]!.parsed.subject).toContain(code)
    expect(mails[0]!.parsed.text).toContain(wished!.title)
    expect(mails[0]!.parsed.text).toContain('25 % off')
    expect(mails[0]!.parsed.text).toMatch(/\/wishlist\/unsubscribe\/[A-Za-z0-9_-]{22}/)

    // Once per coupon and wishlist, even a day later.
    const [coupon] = await database.db.select({ id: coupons.id }).from(coupons).where(eq(coupons.code, code))
    expect(
      await queueCouponMails(database.db, coupon!.id, {
        publicUrl: new URL('http://localhost:3000'),
        now: new Date(Date.now() + 30 * 60 * 60 * 1000),
      }),
    ).toBe(0)
  })
})

describe('the account’s end and the data export', () => {
  test('the export lists the wishlist; deleting the account deletes it', async () => {
    const reader = await createReader(database.db)
    await postHeart({ intent: 'add', bookId: bookIds[0]! }, { cookie: reader.cookie })
    const exported = await exportAccountData(database.db, reader.userId)
    expect(exported.wishlist).toMatchObject({
      shared: false,
      priceMails: false,
      books: [{ slug: expect.any(String) }],
    })
    await deleteAccount(servicesFor(database.db) as never, { userId: reader.userId, email: reader.email })
    expect(await database.db.select().from(wishlists).where(eq(wishlists.userId, reader.userId))).toEqual([])
    expect(await database.db.select().from(user).where(eq(user.id, reader.userId))).toHaveLength(1)
  })
})

test('anonymous wishlists idle for 90 days are deleted; recent and account ones stay', async () => {
  const reader = await createReader(database.db)
  const stale = await createWishlist(database.db)
  const recent = await createWishlist(database.db)
  const owned = await requireUserWishlist(database.db, reader.userId)
  const long = new Date(Date.now() - 91 * 24 * 60 * 60 * 1000)
  await database.db.execute(
    sql`update wishlists set updated_at = ${long.toISOString()}::timestamptz where id in (${stale}, ${owned})`,
  )
  expect(await deleteAbandonedWishlists(database.db)).toBeGreaterThanOrEqual(1)
  const left = (await database.db.select({ id: wishlists.id }).from(wishlists)).map((row) => row.id)
  expect(left).not.toContain(stale)
  expect(left).toEqual(expect.arrayContaining([recent, owned]))
})
