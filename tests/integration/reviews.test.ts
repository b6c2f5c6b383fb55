import { and, eq } from 'drizzle-orm'
import { createElement, Fragment } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub, Meta, Outlet } from 'react-router'
import type { Book as SchemaBook, Review as SchemaReview } from 'schema-dts'
import { beforeAll, describe, expect } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { listBooks, type BookCard } from '#app/features/catalog/catalog.server.ts'
import { readAllBooks } from '#app/features/catalog/catalog-cache.server.ts'
import { BookCard as BookCardView } from '#app/features/catalog/components/book-card.tsx'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import { refundOrder, refundOrderAsAdmin } from '#app/features/orders/refunds.server.ts'
import { setReviewHidden } from '#app/features/reviews/moderation.server.ts'
import {
  REVIEW_REACTIONS_PER_ACCOUNT,
  REVIEW_WRITES_PER_ACCOUNT,
  bookRatingsOf,
  deleteOwnReview,
  saveReview,
} from '#app/features/reviews/reviews.server.ts'
import { action as moderationAction, loader as moderationLoader } from '#app/routes/admin/reviews.tsx'
import BookDetails, {
  action as bookAction,
  loader as bookLoader,
  meta as bookMeta,
} from '#app/routes/book.tsx'
import { books, libraryItems, rateLimits, reviews, user } from '#app/server/db/schema/index.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'

let database: TestDatabase
let catalogue: BookCard[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
})

/**
 * A book of its own for each test (a copy of a seed book under a new slug), so that no test sees another's
 * reviews in its book's aggregate.
 */
const made: BookCard[] = []
function book(index: number): BookCard {
  const found = made[index]
  if (!found) throw new Error(`book ${index} was not made`)
  return found
}
beforeAll(async () => {
  const [seed] = await database.db.select().from(books).where(eq(books.id, catalogue[0]!.id))
  for (let index = 0; index < 18; index++) {
    const {
      id: _id,
      createdAt: _created,
      updatedAt: _updated,
      featured: _f,
      featuredPosition: _p,
      ...rest
    } = seed!
    const [row] = await database.db
      .insert(books)
      .values({ ...rest, slug: `reviewed-book-${index}`, title: `Reviewed book ${index}`, rating: 3 })
      .returning({ id: books.id })
    made.push({
      ...catalogue[0]!,
      id: row!.id,
      slug: `reviewed-book-${index}`,
      title: `Reviewed book ${index}`,
      rating: 3,
    })
  }
})

type ActionAnswer = { status: number; data: Record<string, unknown>; headers: Headers }

/** What an action answered: a redirect (Response) or a `data()` with its status. */
function unwrap(answer: unknown): ActionAnswer {
  if (answer instanceof Response) return { status: answer.status, data: {}, headers: answer.headers }
  const { data, init } = answer as { data: Record<string, unknown>; init?: ResponseInit }
  return { status: init?.status ?? 200, data, headers: new Headers(init?.headers) }
}

async function post(slug: string, cookie: string | undefined, fields: Record<string, string>, search = '') {
  const args = routeArgs({
    db: database.db,
    path: `/books/${slug}${search}`,
    cookie,
    params: { slug },
    init: {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    },
  })
  try {
    return unwrap(await bookAction(args as never))
  } catch (thrown) {
    return unwrap(thrown)
  }
}

async function page(slug: string, cookie?: string, search = '') {
  return bookLoader(
    routeArgs({ db: database.db, path: `/books/${slug}${search}`, cookie, params: { slug } }) as never,
  )
}

/** The book page as the server renders it from this loader data. */
function render(loaderData: Awaited<ReturnType<typeof page>>, slug: string) {
  // The JSON-LD is in the page's <head>, from the route's `meta` (features/seo/meta.ts), which <Meta> renders.
  const Stub = createRoutesStub([
    {
      id: 'root',
      path: '/',
      Component: () => createElement(Fragment, null, createElement(Meta), createElement(Outlet)),
      children: [
        { id: 'book', path: 'books/:slug', Component: BookDetails as never, meta: bookMeta as never },
      ],
    },
  ])
  return renderToString(
    createElement(Stub, {
      initialEntries: [`/books/${slug}`],
      hydrationData: { loaderData: { root: { publicOrigin: 'http://localhost:3000' }, book: loaderData } },
    }),
  )
}

function jsonLdOf(html: string): SchemaBook & Record<string, unknown> {
  const match = /<script type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/.exec(html)
  if (!match) throw new Error('no JSON-LD on the page')
  return JSON.parse(match[1]!) as SchemaBook & Record<string, unknown>
}

describe('writing a review', () => {
  test('an owner reviews: shown as a verified purchase, the book’s average and histogram follow, the card shows it', async () => {
    const target = book(0)
    const buyer = await createBuyer(database.db, [target.id])
    const other = await createBuyer(database.db, [target.id])
    const before = await bookRatingsOf(database.db, target.id)
    expect(before).toMatchObject({ ratingCount: 0, ratingSum: 0, ratingHistogram: [0, 0, 0, 0, 0] })

    const posted = await post(target.slug, buyer.cookie, {
      intent: 'review',
      rating: '4',
      title: 'Clear and practical',
      body: 'First paragraph.\r\n\r\nSecond paragraph.',
    })
    expect(posted.status).toBe(303)
    expect(posted.headers.get('Location')).toBe(`/books/${target.slug}#reviews`)
    expect(
      (await post(target.slug, other.cookie, { intent: 'review', rating: '5', title: '', body: '' })).status,
    ).toBe(303)

    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({
      ratingCount: 2,
      ratingSum: 9,
      ratingHistogram: [0, 0, 0, 1, 1],
    })
    const loaded = await page(target.slug, buyer.cookie)
    expect(loaded.rating).toEqual({ value: 4.5, count: 2 })
    expect(loaded.viewer).toMatchObject({
      kind: 'owner',
      ownReview: { rating: 4, title: 'Clear and practical' },
    })
    const html = render(loaded, target.slug)
    expect(html).toContain('Verified purchase')
    expect(html).toContain('<p class="review-text">First paragraph.</p>')
    expect(html).toContain('<p class="review-text">Second paragraph.</p>')
    expect(html).toContain('aria-label="Rated 4.5 out of 5 from 2 ratings"')
    // The histogram's numbers are text a screen reader reads, not only bars.
    const text = html.replace(/<!-- -->/g, '').replace(/<[^>]+>/g, '')
    expect(text).toContain('4 stars:1 rating, (50%)')
    expect(text).toContain('3 stars:0 ratings, (0%)')
    // The author is never named by email.
    expect(html).not.toContain(buyer.email)

    // The store's card, read through the catalogue cache the action cleared.
    const card = (await readAllBooks(database.db)).find((entry) => entry.id === target.id)!
    expect(card).toMatchObject({ ratingCount: 2, ratingSum: 9 })
  })

  test('a second review by the same reader updates the first', async () => {
    const target = book(1)
    const buyer = await createBuyer(database.db, [target.id])
    await post(target.slug, buyer.cookie, { intent: 'review', rating: '2', title: 'Meh', body: '' })
    await post(target.slug, buyer.cookie, { intent: 'review', rating: '5', title: 'Grew on me', body: '' })
    const rows = await database.db.select().from(reviews).where(eq(reviews.userId, buyer.userId))
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ rating: 5, title: 'Grew on me' })
    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({
      ratingCount: 1,
      ratingSum: 5,
      ratingHistogram: [0, 0, 0, 0, 1],
    })
  })

  test('delete one’s own review: gone, and the aggregate with it; the seed’s prior shows again', async () => {
    const target = book(2)
    const buyer = await createBuyer(database.db, [target.id])
    await post(target.slug, buyer.cookie, { intent: 'review', rating: '1', title: '', body: '' })
    expect((await page(target.slug)).rating).toEqual({ value: 1, count: 1 })
    expect((await post(target.slug, buyer.cookie, { intent: 'delete-review' })).status).toBe(303)
    expect(await database.db.select().from(reviews).where(eq(reviews.userId, buyer.userId))).toEqual([])
    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({ ratingCount: 0, ratingSum: 0 })
    expect((await page(target.slug)).rating).toEqual({ value: target.rating, count: 0 })
  })

  test('not an owner → 403 with the reason, nothing saved; signed out → sent to log in', async () => {
    const target = book(3)
    const reader = await createReader(database.db)
    const refused = await post(target.slug, reader.cookie, {
      intent: 'review',
      rating: '5',
      title: '',
      body: '',
    })
    expect(refused.status).toBe(403)
    expect(refused.data.formError).toMatch(/Only readers who bought this book can review it/)
    expect(await database.db.select().from(reviews).where(eq(reviews.userId, reader.userId))).toEqual([])
    expect((await page(target.slug, reader.cookie)).viewer).toEqual({ kind: 'not-owner' })
    const html = render(await page(target.slug, reader.cookie), target.slug)
    expect(html).toContain('Only readers who bought this book can review it')

    const anonymous = await post(target.slug, undefined, { intent: 'review', rating: '5' })
    expect(anonymous.status).toBe(302)
    expect(anonymous.headers.get('Location')).toMatch(/^\/login\?redirectTo=/)
  })

  test('script tags and Markdown show as text, on the page and inside the JSON-LD', async () => {
    const target = book(4)
    const buyer = await createBuyer(database.db, [target.id])
    const attack = '<script>alert("x")</script> **bold** </script><img src=x onerror=alert(1)>'
    await post(target.slug, buyer.cookie, {
      intent: 'review',
      rating: '3',
      title: '<b>Title</b>',
      body: attack,
    })
    const html = render(await page(target.slug), target.slug)
    expect(html).not.toContain('<script>alert')
    expect(html).not.toContain('<img src=x')
    expect(html).not.toContain('<b>Title</b>')
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; **bold**')
    expect(html).toContain('&lt;b&gt;Title&lt;/b&gt;')
    // Inside the JSON-LD every `<` is \u003c: the review cannot close the script element.
    const script = /<script type="application\/ld\+json"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!
    expect(script).not.toContain('<')
    const [review] = jsonLdOf(html).review as SchemaReview[]
    expect(review).toMatchObject({ name: '<b>Title</b>' })
  })

  test('over-long title or text, or no stars → 400 with the message next to each field, what was typed kept', async () => {
    const target = book(5)
    const buyer = await createBuyer(database.db, [target.id])
    const answer = await post(target.slug, buyer.cookie, {
      intent: 'review',
      rating: '9',
      title: 't'.repeat(121),
      body: 'b'.repeat(5001),
    })
    expect(answer.status).toBe(400)
    expect(answer.data).toMatchObject({
      fieldErrors: {
        rating: 'Please choose from 1 to 5 stars.',
        title: 'A title has at most 120 characters.',
        body: 'A review has at most 5,000 characters.',
      },
      values: { title: 't'.repeat(121), body: 'b'.repeat(5001) },
    })
    expect(await database.db.select().from(reviews).where(eq(reviews.userId, buyer.userId))).toEqual([])
    // Exactly at the limits is fine.
    const fits = await post(target.slug, buyer.cookie, {
      intent: 'review',
      rating: '5',
      title: 't'.repeat(120),
      body: 'b'.repeat(5000),
    })
    expect(fits.status).toBe(303)
  })

  test('too many writes in an hour → 429 with Retry-After, nothing saved', async () => {
    const target = book(6)
    const buyer = await createBuyer(database.db, [target.id])
    for (let write = 1; write <= REVIEW_WRITES_PER_ACCOUNT.limit; write++) {
      const answer = await post(target.slug, buyer.cookie, {
        intent: 'review',
        rating: String((write % 5) + 1),
        title: `Take ${write}`,
        body: '',
      })
      expect(answer.status).toBe(303)
    }
    const refused = await post(target.slug, buyer.cookie, {
      intent: 'review',
      rating: '1',
      title: 'Spam',
      body: '',
    })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(refused.data.formError).toMatch(/Too many attempts/)
    const [row] = await database.db.select().from(reviews).where(eq(reviews.userId, buyer.userId))
    expect(row!.title).toBe(`Take ${REVIEW_WRITES_PER_ACCOUNT.limit}`)
    await database.db.delete(rateLimits).where(eq(rateLimits.key, `review-writes:${buyer.userId}`))
  })
})

describe('reading reviews', () => {
  test('too many votes and reports in an hour → 429 with Retry-After', async () => {
    const target = book(14)
    const author = await createBuyer(database.db, [target.id])
    await post(target.slug, author.cookie, { intent: 'review', rating: '4', title: 'Fine', body: '' })
    const [review] = await database.db.select().from(reviews).where(eq(reviews.userId, author.userId))
    const voter = await createReader(database.db)
    for (let vote = 1; vote <= REVIEW_REACTIONS_PER_ACCOUNT.limit; vote++)
      expect(
        (await post(target.slug, voter.cookie, { intent: 'helpful', reviewId: review!.id })).status,
      ).toBe(303)
    const refused = await post(target.slug, voter.cookie, {
      intent: 'report',
      reviewId: review!.id,
      reason: '',
    })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    const [after] = await database.db.select().from(reviews).where(eq(reviews.id, review!.id))
    // An even number of toggles: no vote left, and the refused report was not recorded.
    expect([after!.helpfulCount, after!.reportCount]).toEqual([0, 0])
  })

  test('helpful votes: one per reader (a second click withdraws it), never on one’s own; the order follows', async () => {
    const target = book(7)
    const author = await createBuyer(database.db, [target.id])
    const second = await createBuyer(database.db, [target.id])
    await post(target.slug, author.cookie, { intent: 'review', rating: '2', title: 'First', body: '' })
    await post(target.slug, second.cookie, { intent: 'review', rating: '5', title: 'Second', body: '' })
    const [first] = await database.db.select().from(reviews).where(eq(reviews.userId, author.userId))
    const voter = await createReader(database.db)

    expect((await post(target.slug, voter.cookie, { intent: 'helpful', reviewId: first!.id })).status).toBe(
      303,
    )
    const helpfulFirst = await page(target.slug, voter.cookie, '?sort=helpful')
    expect(
      helpfulFirst.reviews.map((review) => [review.title, review.helpfulCount, review.votedHelpful]),
    ).toEqual([
      ['First', 1, true],
      ['Second', 0, false],
    ])
    await post(target.slug, voter.cookie, { intent: 'helpful', reviewId: first!.id })
    expect((await page(target.slug, voter.cookie)).reviews.find((r) => r.title === 'First')).toMatchObject({
      helpfulCount: 0,
      votedHelpful: false,
    })
    const own = await post(target.slug, author.cookie, { intent: 'helpful', reviewId: first!.id })
    expect(own.status).toBe(400)

    expect((await page(target.slug, undefined, '?sort=lowest')).reviews.map((r) => r.title)).toEqual([
      'First',
      'Second',
    ])
    expect((await page(target.slug, undefined, '?sort=highest')).reviews.map((r) => r.title)).toEqual([
      'Second',
      'First',
    ])
    // A bad sort or page is ignored.
    const odd = await page(target.slug, undefined, '?sort=%3Cx%3E&page=-3')
    expect([odd.sort, odd.page]).toEqual(['newest', 1])
  })

  test('report: one per reader, with an optional reason; listed for the moderators', async () => {
    const target = book(8)
    const author = await createBuyer(database.db, [target.id])
    await post(target.slug, author.cookie, {
      intent: 'review',
      rating: '1',
      title: 'Buy my course',
      body: '',
    })
    const [review] = await database.db.select().from(reviews).where(eq(reviews.userId, author.userId))
    const reader = await createReader(database.db)
    for (let time = 0; time < 2; time++) {
      const answer = await post(target.slug, reader.cookie, {
        intent: 'report',
        reviewId: review!.id,
        reason: 'Spam',
      })
      expect(answer.status).toBe(303)
    }
    const [reported] = await database.db.select().from(reviews).where(eq(reviews.id, review!.id))
    expect(reported!.reportCount).toBe(1)
    expect((await page(target.slug, reader.cookie)).reviews[0]).toMatchObject({ reported: true })
    const tooLong = await post(target.slug, reader.cookie, {
      intent: 'report',
      reviewId: review!.id,
      reason: 'x'.repeat(501),
    })
    expect(tooLong.status).toBe(400)

    const admin = await createAdmin(database.db)
    const listed = await moderationLoader(
      routeArgs({ db: database.db, path: '/admin/reviews?filter=reported', cookie: admin.cookie }) as never,
    )
    expect(listed.reviews.find((row) => row.id === review!.id)).toMatchObject({
      reportCount: 1,
      reasons: ['Spam'],
      authorEmail: author.email,
    })
  })

  test('pages: ten a page, the page count from the book’s own total', async () => {
    const target = book(9)
    const buyers = await Promise.all(Array.from({ length: 12 }, () => createBuyer(database.db, [target.id])))
    for (const [index, buyer] of buyers.entries())
      await post(target.slug, buyer.cookie, { intent: 'review', rating: '3', title: `R${index}`, body: '' })
    const first = await page(target.slug)
    expect([first.reviews.length, first.pages]).toEqual([10, 2])
    const second = await page(target.slug, undefined, '?page=2')
    expect(second.reviews.map((r) => r.title).sort()).toEqual(['R0', 'R1'])
    // Past the last page: the last page.
    expect((await page(target.slug, undefined, '?page=99')).page).toBe(2)
  })

  test('a signed-out visitor’s pages, kept in memory by version, show every change on the next view', async () => {
    const target = book(15)
    const [first, second] = await Promise.all([
      createBuyer(database.db, [target.id]),
      createBuyer(database.db, [target.id]),
    ])
    await post(target.slug, first.cookie, { intent: 'review', rating: '2', title: 'Early', body: '' })
    await post(target.slug, second.cookie, { intent: 'review', rating: '4', title: 'Later', body: '' })
    const shown = async () =>
      (await page(target.slug)).reviews.map((review) => [review.title, review.author, review.helpfulCount])
    expect(await shown()).toEqual([
      ['Later', expect.any(String), 0],
      ['Early', expect.any(String), 0],
    ])

    // Rewritten by its author, voted helpful, edited by hand in the database, its author's email changed:
    await post(target.slug, first.cookie, { intent: 'review', rating: '2', title: 'Rewritten', body: '' })
    const [early] = await database.db.select().from(reviews).where(eq(reviews.userId, first.userId))
    await post(target.slug, (await createReader(database.db)).cookie, {
      intent: 'helpful',
      reviewId: early!.id,
    })
    await database.db.update(reviews).set({ body: 'Edited by hand.' }).where(eq(reviews.id, early!.id))
    await database.db
      .update(user)
      .set({ email: `zed-${first.userId}@example.com` })
      .where(eq(user.id, first.userId))
    const loaded = await page(target.slug)
    expect(
      loaded.reviews.map((review) => [review.title, review.body, review.author, review.helpfulCount]),
    ).toEqual([
      ['Later', '', expect.any(String), 0],
      ['Rewritten', 'Edited by hand.', 'Z. (verified buyer)', 1],
    ])

    // The second buyer refunded (their library item gone): their review leaves the page.
    await database.db
      .delete(libraryItems)
      .where(and(eq(libraryItems.userId, second.userId), eq(libraryItems.bookId, target.id)))
    expect((await page(target.slug)).reviews.map((review) => review.title)).toEqual(['Rewritten'])
  })
})

describe('when the buyer no longer owns the book', () => {
  test('a refund (plain, or an admin’s) hides the review and takes it out of the average; buying again shows it', async () => {
    const target = book(10)
    const kept = await createBuyer(database.db, [target.id])
    const refunded = await createBuyer(database.db, [target.id])
    const adminRefunded = await createBuyer(database.db, [target.id])
    await post(target.slug, kept.cookie, { intent: 'review', rating: '5', title: 'Kept', body: '' })
    await post(target.slug, refunded.cookie, { intent: 'review', rating: '1', title: 'Refunded', body: '' })
    await post(target.slug, adminRefunded.cookie, { intent: 'review', rating: '2', title: 'Admin', body: '' })
    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({ ratingCount: 3, ratingSum: 8 })

    expect(await refundOrder(database.db, refunded.orderId)).toBe('refunded')
    const admin = await createAdmin(database.db)
    const outcome = await refundOrderAsAdmin(database.db, {
      orderId: adminRefunded.orderId,
      actor: admin.actor,
      reason: 'asked',
      provider: createTestPaymentProvider(),
      orderUrl: 'http://localhost:3000/orders/x',
    })
    expect(outcome).toEqual({ outcome: 'refunded' })

    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({
      ratingCount: 1,
      ratingSum: 5,
      ratingHistogram: [0, 0, 0, 0, 1],
    })
    expect((await page(target.slug)).reviews.map((r) => r.title)).toEqual(['Kept'])
    const [hidden] = await database.db.select().from(reviews).where(eq(reviews.userId, refunded.userId))
    expect(hidden).toMatchObject({ unowned: true, visible: false })
    // The refunded reader may not write again, and is told why.
    expect((await page(target.slug, refunded.cookie)).viewer).toEqual({ kind: 'not-owner' })
    expect(
      (await post(target.slug, refunded.cookie, { intent: 'review', rating: '5', title: '', body: '' }))
        .status,
    ).toBe(403)
    // Owning it again (here a library row put back by hand) shows the review again.
    await database.db
      .insert(libraryItems)
      .values({ userId: refunded.userId, bookId: target.id, orderId: refunded.orderId })
    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({ ratingCount: 2, ratingSum: 6 })
  })
})

describe('stars that say whose they are (issue 34)', () => {
  /** A card as the store renders it (the grid's card, without the cart button). */
  const cardHtml = (card: BookCard) =>
    renderToString(
      createElement(
        createRoutesStub([
          { path: '/', Component: () => createElement(BookCardView, { book: card, headingLevel: 2 }) },
        ]),
      ),
    )
  const unescaped = (html: string) => html.replace(/&#x27;/g, "'").replace(/<!-- -->/g, '')

  test('no reader has rated: the stars are labelled the editors’ rating, on the page and the card, and are not in the JSON-LD; a refund of the only review brings that label back', async () => {
    const target = book(17)
    const unrated = unescaped(render(await page(target.slug), target.slug))
    expect(unrated).toContain('aria-label="Editors\' rating: 3 out of 5"')
    expect(unrated).toContain(">Editors' rating</span>")
    expect(unrated).not.toContain('aria-label="Rated 3 out of 5"')
    expect(jsonLdOf(render(await page(target.slug), target.slug))).not.toHaveProperty('aggregateRating')
    const card = () => readAllBooks(database.db).then((all) => all.find((entry) => entry.id === target.id)!)
    expect(unescaped(cardHtml(await card()))).toContain('aria-label="Editors\' rating: 3 out of 5"')

    const buyer = await createBuyer(database.db, [target.id])
    await post(target.slug, buyer.cookie, { intent: 'review', rating: '5', title: 'Only one', body: '' })
    const rated = unescaped(render(await page(target.slug), target.slug))
    expect(rated).toContain('aria-label="Rated 5 out of 5 from 1 rating"')
    expect(rated).toContain('>5 · 1 rating</span>')
    expect(rated).not.toContain("Editors' rating")
    // Whose review it is says 'verified' once, not 'A. (verified buyer) · Verified purchase'.
    const meta = /<p class="review-meta">([\s\S]*?)<\/p>/.exec(rated)![1]!.replace(/<[^>]+>/g, '')
    expect(meta.match(/verified/gi)).toHaveLength(1)
    expect(meta).toMatch(/^[A-Z]\. \(verified buyer\) · /)
    expect(jsonLdOf(rated).aggregateRating).toMatchObject({ ratingValue: '5', ratingCount: 1 })

    // The only review is hidden by the refund: the editors' stars come back, labelled as theirs.
    expect(await refundOrder(database.db, buyer.orderId)).toBe('refunded')
    const refunded = unescaped(render(await page(target.slug), target.slug))
    expect(refunded).toContain('aria-label="Editors\' rating: 3 out of 5"')
    expect(refunded).toContain(">Editors' rating</span>")
    expect(refunded).toContain('No reader has reviewed this book yet')
    expect(jsonLdOf(refunded)).not.toHaveProperty('aggregateRating')
  })
})

describe('moderation in the back office', () => {
  test('an admin hides and restores a review: audited before/after, the aggregate follows', async () => {
    const target = book(11)
    const buyer = await createBuyer(database.db, [target.id])
    await post(target.slug, buyer.cookie, { intent: 'review', rating: '1', title: 'Rude', body: '' })
    const [review] = await database.db.select().from(reviews).where(eq(reviews.userId, buyer.userId))
    const admin = await createAdmin(database.db)
    const moderate = async (intent: string) => {
      const args = routeArgs({
        db: database.db,
        path: '/admin/reviews?filter=all',
        cookie: admin.cookie,
        init: {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ intent, reviewId: review!.id }).toString(),
        },
      })
      return unwrap(await moderationAction(args as never).catch((thrown: unknown) => thrown))
    }
    const hidden = await moderate('hide')
    expect(hidden.status).toBe(303)
    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({ ratingCount: 0 })
    expect((await page(target.slug)).reviews).toEqual([])
    expect((await page(target.slug, buyer.cookie)).viewer).toMatchObject({
      ownReview: { hiddenByModerator: true },
    })
    expect((await moderate('hide')).status).toBe(409)
    expect((await moderate('restore')).status).toBe(303)
    expect(await bookRatingsOf(database.db, target.id)).toMatchObject({ ratingCount: 1, ratingSum: 1 })
    expect((await moderate('bogus')).status).toBe(400)

    const { rows } = await listAuditLog(database.db, { entity: { type: 'review', id: review!.id } })
    expect(rows.map((row) => row.action).sort()).toEqual(['review.hide', 'review.restore'])
    const hideEntry = rows.find((row) => row.action === 'review.hide')!
    expect(hideEntry).toMatchObject({
      actorId: admin.userId,
      before: { visible: true, hiddenAt: null },
      after: { visible: false, hiddenAt: expect.any(String) },
    })
  })

  test('the catalogue’s cards follow every change of ratings, whoever makes it (not only the routes)', async () => {
    const target = book(16)
    const buyer = await createBuyer(database.db, [target.id])
    const admin = await createAdmin(database.db)
    const card = async () => (await readAllBooks(database.db)).find((entry) => entry.id === target.id)!
    // Read once, so that the cache holds the card from before each change.
    expect(await card()).toMatchObject({ ratingCount: 0 })
    const input = { rating: 2, title: '', body: '' }
    const saved = await saveReview(database.db, { userId: buyer.userId, bookId: target.id, input })
    expect(await card()).toMatchObject({ ratingCount: 1, ratingSum: 2 })
    const { actor } = admin
    expect(await setReviewHidden(database.db, { reviewId: saved.id, hidden: true, actor })).toBe(true)
    expect(await card()).toMatchObject({ ratingCount: 0 })
    expect(await setReviewHidden(database.db, { reviewId: saved.id, hidden: false, actor })).toBe(true)
    expect(await card()).toMatchObject({ ratingCount: 1, ratingSum: 2 })
    expect(await deleteOwnReview(database.db, buyer.userId, target.id)).toBe(true)
    expect(await card()).toMatchObject({ ratingCount: 0 })
  })

  test('the moderation list pages through every review once, rows of the same millisecond included', async () => {
    const target = book(13)
    const buyers = await Promise.all(Array.from({ length: 3 }, () => createReader(database.db)))
    const stamp = new Date()
    // 60 reviews written at the same instant: the cursor must tell them apart by id, not lose any.
    for (let index = 0; index < 60; index++) {
      const author = index < 3 ? buyers[index]!.userId : (await createReader(database.db)).userId
      await database.db
        .insert(reviews)
        .values({ bookId: target.id, userId: author, rating: 3, createdAt: stamp })
    }
    const admin = await createAdmin(database.db)
    const seen: string[] = []
    let search = '?filter=all'
    for (let pageNumber = 0; pageNumber < 10; pageNumber++) {
      const listed = await moderationLoader(
        routeArgs({ db: database.db, path: `/admin/reviews${search}`, cookie: admin.cookie }) as never,
      )
      seen.push(...listed.reviews.map((row) => row.id))
      if (!listed.next) break
      search = `?filter=all&after=${encodeURIComponent(listed.next)}`
    }
    const all = await database.db.select({ id: reviews.id }).from(reviews)
    expect(seen.length).toBe(all.length)
    expect(new Set(seen).size).toBe(all.length)
  })

  test('the moderation page and its action are a 404 for anyone but an admin', async () => {
    const reader = await createReader(database.db)
    for (const cookie of [undefined, reader.cookie]) {
      const thrown = await thrownBy(() =>
        moderationLoader(routeArgs({ db: database.db, path: '/admin/reviews', cookie }) as never),
      )
      expect(thrown).toMatchObject({ init: { status: 404 } })
    }
  })
})

describe('structured data', () => {
  test('Book with its offer; AggregateRating and the page’s Reviews only once readers rated it; no emails', async () => {
    const target = book(12)
    const before = jsonLdOf(render(await page(target.slug), target.slug))
    expect(before).toMatchObject({ '@context': 'https://schema.org', '@type': 'Book', name: target.title })
    expect(before.aggregateRating).toBeUndefined()
    expect(before.offers).toMatchObject({ '@type': 'Offer', priceCurrency: target.currency })

    const buyer = await createBuyer(database.db, [target.id])
    await post(target.slug, buyer.cookie, {
      intent: 'review',
      rating: '4',
      title: 'Solid',
      body: 'Worth it.',
    })
    const html = render(await page(target.slug), target.slug)
    const ld = jsonLdOf(html)
    expect(ld.aggregateRating).toEqual({
      '@type': 'AggregateRating',
      ratingValue: '4',
      ratingCount: 1,
      bestRating: 5,
      worstRating: 1,
    })
    const [review] = ld.review as SchemaReview[]
    expect(review).toMatchObject({
      '@type': 'Review',
      name: 'Solid',
      reviewRating: { '@type': 'Rating', ratingValue: 4, bestRating: 5 },
      author: { '@type': 'Person', name: expect.any(String) },
    })
    expect(review!.datePublished).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    // The text is on the page, not repeated in the structured data.
    expect(review).not.toHaveProperty('reviewBody')
    expect(JSON.stringify(ld)).not.toContain(buyer.email)
  })
})
