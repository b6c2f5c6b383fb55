import { eq, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { loader as overviewLoader } from '#app/routes/admin/overview.tsx'
import { loader as moderationLoader } from '#app/routes/admin/reviews.tsx'
import { emailOutbox, orders, reviews } from '#app/server/db/schema/index.server.ts'
import { maxEmailAttempts } from '#app/server/outbox.server.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { routeArgs } from '#tests/route-args.ts'

describe('the back office’s front page', () => {
  test('today’s and this month’s money per currency, the last orders, and what waits', async ({
    database,
  }) => {
    const { db } = database
    const admin = await createAdmin(db)
    const overview = () => overviewLoader(routeArgs({ db, path: '/admin', cookie: admin.cookie }))

    const empty = await overview()
    expect(empty).toMatchObject({
      today: [],
      month: [],
      lastOrders: [],
      reportedReviews: 0,
      failedMailCount: 0,
    })
    expect(empty.refundsPending).toEqual([])

    const [first, second] = await listBooks(db)
    const buyerA = await createBuyer(db, [first!.id])
    const buyerB = await createBuyer(db, [first!.id, second!.id])
    // An order paid last month counts in neither figure.
    const old = await createBuyer(db, [second!.id])
    const lastMonth = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 15))
    await db.update(orders).set({ paidAt: lastMonth, createdAt: lastMonth }).where(eq(orders.id, old.orderId))
    // A refund asked of the provider and not yet confirmed waits for the owner.
    await db.update(orders).set({ refundRequestedAt: new Date() }).where(eq(orders.id, buyerA.orderId))
    // A mail given up after every retry, and one still being retried.
    await db.insert(emailOutbox).values([
      {
        kind: 'receipt',
        subjectKey: 'x-1',
        to: 'lost@example.com',
        subject: 'Lost receipt',
        text: '',
        html: '',
        attempts: maxEmailAttempts,
        lastError: 'connection refused',
      },
      {
        kind: 'receipt',
        subjectKey: 'x-2',
        to: 'retry@example.com',
        subject: 'Retrying',
        text: '',
        html: '',
        attempts: 2,
      },
    ])
    await db.execute(sql`update ${reviews} set report_count = 0`)
    // Two reported reviews, one of them already hidden by a moderator: one waits, and the list it links to
    // (Reported) shows that one.
    await db.insert(reviews).values([
      { bookId: first!.id, userId: buyerA.userId, rating: 1, reportCount: 2 },
      { bookId: first!.id, userId: buyerB.userId, rating: 1, reportCount: 1, hiddenAt: new Date() },
    ])

    const loaded = await overview()
    const paidTotal = first!.priceCents * 2 + second!.priceCents
    // Untaxed orders (no billing country) and no refund: gross sales are net revenue.
    expect(loaded.today).toEqual([
      {
        currency: first!.currency,
        orders: 2,
        grossCents: paidTotal,
        refunds: 0,
        refundsCents: 0,
        taxCents: 0,
        netCents: paidTotal,
      },
    ])
    expect(loaded.month).toEqual(loaded.today)
    expect(loaded.lastOrders.map((order) => order.number)).toEqual([
      old.orderNumber,
      buyerB.orderNumber,
      buyerA.orderNumber,
    ])
    expect(loaded.lastOrders[1]).toMatchObject({ buyerEmail: buyerB.email, status: 'paid' })
    expect(loaded.refundsPending.map((order) => order.number)).toEqual([buyerA.orderNumber])
    expect(loaded.failedMailCount).toBe(1)
    expect(loaded.reportedReviews).toBe(1)
    const reportedList = await moderationLoader(
      routeArgs({ db, path: '/admin/reviews?filter=reported', cookie: admin.cookie }) as never,
    )
    expect(reportedList.reviews.map((review) => review.authorEmail)).toEqual([buyerA.email])
    expect(loaded.failedMails).toMatchObject([
      { to: 'lost@example.com', subject: 'Lost receipt', lastError: 'connection refused' },
    ])
  }, 90_000) // Four sign-ups and three checkouts: 20 s on a busy machine.
})
