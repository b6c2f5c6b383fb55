import { and, count, desc, eq, gte, isNotNull, isNull } from 'drizzle-orm'
import type { MoneyFigures } from '#app/features/accounts/money.ts'
import { getMoney } from '#app/features/accounts/revenue.server.ts'
import { countOpenErrata } from '#app/features/errata/errata.server.ts'
import { countReviewsAwaitingModeration } from '#app/features/reviews/moderation.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { emailOutbox, orders, user } from '#app/server/db/schema/index.server.ts'
import { maxEmailAttempts } from '#app/server/outbox.server.ts'

/**
 * The back office's front page: today's and this month's money per currency (UTC days: gross sales of the
 * orders paid then, refunds confirmed then, tax and net revenue; features/accounts/money.ts), the last orders,
 * and what waits for the owner.
 */
export async function getAdminOverview(db: Db, now = new Date()) {
  const today = now.toISOString().slice(0, 10)
  const moneyFrom = (from: string) => getMoney(db, { from, to: today, timeZone: 'UTC' })
  const failedMail = and(isNull(emailOutbox.sentAt), gte(emailOutbox.attempts, maxEmailAttempts))
  const [todayMoney, month, lastOrders, reported, failedMails, failedMailCount, refundsPending, openErrata] =
    await Promise.all([
      moneyFrom(today),
      moneyFrom(`${today.slice(0, 7)}-01`),
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
    today: todayMoney satisfies MoneyFigures[],
    month: month satisfies MoneyFigures[],
    lastOrders,
    reportedReviews: reported,
    failedMails,
    failedMailCount: failedMailCount[0]?.count ?? 0,
    refundsPending,
    openErrata,
  }
}
