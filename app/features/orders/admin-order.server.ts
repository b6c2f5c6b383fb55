import { and, asc, eq } from 'drizzle-orm'
import type { Actor } from '#app/features/admin/audit.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { emailOutbox, libraryItems, orderItems, orders, user } from '#app/server/db/schema/index.server.ts'
import { maxEmailAttempts } from '#app/server/outbox.server.ts'
import { orderColumns, orderUrl } from './order-history.server.ts'
import { refundOrderAsAdmin, type AdminRefundOutcome } from './refunds.server.ts'

export type AdminOrderDetail = NonNullable<Awaited<ReturnType<typeof getOrderForAdmin>>>

/**
 * Everything the back office shows about one order: buyer, lines, payment, refund, whether it can be refunded
 * now, the mail sent about it (outbox rows whose subject is this order, each sent, pending or given up) and,
 * per line, what the buyer did with the book (downloads of their library item, or that it is no longer
 * theirs).
 */
export async function getOrderForAdmin(db: Db, orderId: string) {
  const [order] = await db
    .select({
      ...orderColumns,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      paymentProvider: orders.paymentProvider,
      paymentReference: orders.paymentReference,
      cardBrand: orders.cardBrand,
      cardLast4: orders.cardLast4,
      failureReason: orders.failureReason,
      refundRequestedAt: orders.refundRequestedAt,
      refundReference: orders.refundReference,
      refundedAt: orders.refundedAt,
      buyer: { id: user.id, email: user.email, name: user.name },
    })
    .from(orders)
    .innerJoin(user, eq(user.id, orders.userId))
    .where(eq(orders.id, orderId))
  if (!order) return undefined
  const lineRows = await db
    .select({
      bookId: orderItems.bookId,
      title: orderItems.title,
      priceCents: orderItems.priceCents,
      currency: orderItems.currency,
      libraryOrderId: libraryItems.orderId,
      downloadCount: libraryItems.downloadCount,
      lastDownloadedAt: libraryItems.lastDownloadedAt,
    })
    .from(orderItems)
    .leftJoin(
      libraryItems,
      and(eq(libraryItems.bookId, orderItems.bookId), eq(libraryItems.userId, order.buyer.id)),
    )
    .where(eq(orderItems.orderId, orderId))
    .orderBy(asc(orderItems.title))
  const mail = await db
    .select({
      id: emailOutbox.id,
      kind: emailOutbox.kind,
      to: emailOutbox.to,
      subject: emailOutbox.subject,
      attempts: emailOutbox.attempts,
      sentAt: emailOutbox.sentAt,
      lastError: emailOutbox.lastError,
      createdAt: emailOutbox.createdAt,
    })
    .from(emailOutbox)
    .where(eq(emailOutbox.subjectKey, orderId))
    .orderBy(asc(emailOutbox.createdAt))
  return {
    ...order,
    /** Only a paid order whose refund has not been asked for yet (decision 014). */
    canRefund: order.status === 'paid' && order.refundRequestedAt === null,
    lines: lineRows.map(({ libraryOrderId, downloadCount, lastDownloadedAt, ...line }) => ({
      ...line,
      /**
       * The buyer's copy of this book: through this order (with its downloads), through another paid order,
       * taken back by this order's refund, or never granted (the order was not paid).
       */
      library:
        libraryOrderId === null
          ? order.status === 'refunded'
            ? ({ kind: 'revoked' } as const)
            : ({ kind: 'none' } as const)
          : libraryOrderId === orderId
            ? ({ kind: 'this-order', downloadCount: downloadCount!, lastDownloadedAt } as const)
            : ({ kind: 'other-order', downloadCount: downloadCount!, lastDownloadedAt } as const),
    })),
    mail: mail.map((row) => ({
      ...row,
      /** Sent; or waiting for its next try; or given up after the outbox's last attempt. */
      state: row.sentAt
        ? ('sent' as const)
        : row.attempts >= maxEmailAttempts
          ? ('failed' as const)
          : ('pending' as const),
    })),
  }
}

/**
 * An admin's refund from the order's page (`refundOrderAsAdmin`, with the store's payment provider): a refund
 * made at once asks the outbox to send the buyer's mail now; the provider refusing is logged for the
 * operator as well as shown to the admin.
 */
export async function refundFromBackOffice(
  app: Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox' | 'payments'>,
  input: { orderId: string; actor: Actor; reason: string },
): Promise<AdminRefundOutcome> {
  const result = await refundOrderAsAdmin(app.db, {
    ...input,
    provider: app.payments,
    orderUrl: orderUrl(app.env.publicUrl, input.orderId),
  })
  if (result.outcome === 'refunded') app.kickOutbox()
  if (result.outcome === 'provider-error')
    app.logger.error(
      { orderId: input.orderId, error: result.message },
      'refund refused by the payment provider',
    )
  return result
}
