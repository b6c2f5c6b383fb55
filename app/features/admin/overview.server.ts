import { and, count, desc, eq, gte, inArray, isNotNull, isNull, sql } from 'drizzle-orm'
import { countOpenErrata } from '#app/features/errata/errata.server.ts'
import { countReviewsAwaitingModeration } from '#app/features/reviews/moderation.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { emailOutbox, orders, user } from '#app/server/db/schema/index.server.ts'
import { maxEmailAttempts } from '#app/server/outbox.server.ts'

/** Money in one currency: the store sells in several, and never adds them up across currencies. */
export type Revenue = { currency: string; totalCents: number; orderCount: number }

/**
 * The back office's front page: today's and this month's gross revenue (orders paid in that UTC day or month,
 * refunded ones included: gross), the last orders, and what waits for the owner.
 */
export async function getAdminOverview(db: Db, now = new Date()) {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()))
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
  const paidSince = (since: Date) =>
    db
      .select({
        currency: orders.currency,
        totalCents: sql<number>`coalesce(sum(${orders.totalCents}), 0)::int`,
        orderCount: sql<number>`count(*)::int`,
      })
      .from(orders)
      .where(and(inArray(orders.status, ['paid', 'refunded']), gte(orders.paidAt, since)))
      .groupBy(orders.currency)
      .orderBy(orders.currency)
  const failedMail = and(isNull(emailOutbox.sentAt), gte(emailOutbox.attempts, maxEmailAttempts))
  const [today, month, lastOrders, reported, failedMails, failedMailCount, refundsPending, openErrata] =
    await Promise.all([
      paidSince(dayStart),
      paidSince(monthStart),
      db
        .select({
          id: orders.id,
          number: orders.number,
          createdAt: orders.createdAt,
          status: orders.status,
          totalCents: orders.totalCents,
          currency: orders.currency,
          buyerEmail: user.email,
        })
        .from(orders)
        .innerJoin(user, eq(user.id, orders.userId))
        .orderBy(desc(orders.number))
        .limit(10),
      countReviewsAwaitingModeration(db),
      db
        .select({
          id: emailOutbox.id,
          kind: emailOutbox.kind,
          subjectKey: emailOutbox.subjectKey,
          to: emailOutbox.to,
          subject: emailOutbox.subject,
          lastError: emailOutbox.lastError,
          createdAt: emailOutbox.createdAt,
        })
        .from(emailOutbox)
        .where(failedMail)
        .orderBy(desc(emailOutbox.createdAt))
        .limit(20),
      db.select({ count: count() }).from(emailOutbox).where(failedMail),
      db
        .select({ id: orders.id, number: orders.number, refundRequestedAt: orders.refundRequestedAt })
        .from(orders)
        .where(and(isNotNull(orders.refundRequestedAt), isNull(orders.refundedAt)))
        .orderBy(orders.refundRequestedAt)
        .limit(20),
      countOpenErrata(db),
    ])
  return {
    today: today satisfies Revenue[],
    month: month satisfies Revenue[],
    lastOrders,
    reportedReviews: reported,
    failedMails,
    failedMailCount: failedMailCount[0]?.count ?? 0,
    refundsPending,
    openErrata,
  }
}
