import { and, asc, eq, like, or } from 'drizzle-orm'
import type { Actor } from '#app/features/admin/audit.server.ts'
import { listInvoicesOfOrder } from '#app/features/invoices/invoices.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import {
  emailOutbox,
  libraryItems,
  orderItems,
  orderRefunds,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import { maxEmailAttempts } from '#app/server/outbox.server.ts'
import { orderColumns, orderUrl } from './order-history.server.ts'
import { explainMissingInvoice, issueMissingInvoice } from './order-invoice.server.ts'
import type { RefundAsk } from './refund-split.ts'
import { refundOrderAsAdmin, type AdminRefundOutcome } from './refunds.server.ts'

export type AdminOrderDetail = NonNullable<Awaited<ReturnType<typeof getOrderForAdmin>>>

/**
 * Everything the back office shows about one order: buyer, lines (with what was refunded of each and what is
 * left), payment, its refunds, its invoice and credit notes (or why it has no invoice), whether it can be
 * refunded now, the mail sent about it (outbox rows whose subject is this order or one of its refunds, each
 * sent, pending or given up) and, per line, what the buyer did with the book (downloads of their library item,
 * or that it is no longer theirs).
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
      taxCents: orders.taxCents,
      taxCountry: orders.taxCountry,
      reverseCharge: orders.reverseCharge,
      billingCountry: orders.billingCountry,
      ipCountry: orders.ipCountry,
      cardCountry: orders.cardCountry,
      evidenceStatus: orders.evidenceStatus,
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
      grossCents: orderItems.grossCents,
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
    .where(or(eq(emailOutbox.subjectKey, orderId), like(emailOutbox.subjectKey, `${orderId}:%`)))
    .orderBy(asc(emailOutbox.createdAt))
  const refunds = await db
    .select()
    .from(orderRefunds)
    .where(eq(orderRefunds.orderId, orderId))
    .orderBy(asc(orderRefunds.requestedAt))
  const counted = refunds.filter((refund) => refund.status !== 'failed')
  const sumOf = (bookId: string, statuses: string[]) =>
    counted
      .filter((refund) => statuses.includes(refund.status))
      .flatMap((refund) => refund.lines)
      .filter((part) => part.bookId === bookId)
      .reduce((sum, part) => sum + part.grossCents, 0)
  const lines = lineRows.map((line) => ({
    ...line,
    /** What confirmed refunds gave back of the line, and what is left of it (refunds waiting count as given). */
    refundedCents: sumOf(line.bookId, ['confirmed']),
    leftCents: line.grossCents - sumOf(line.bookId, ['confirmed', 'requested']),
  }))
  const documents = await listInvoicesOfOrder(db, orderId)
  const titleOf = (bookId: string) => lines.find((line) => line.bookId === bookId)?.title ?? bookId
  return {
    ...order,
    /** Only a paid order with no refund waiting on the provider (decision 014): one refund at a time. */
    canRefund: order.status === 'paid' && !refunds.some((refund) => refund.status === 'requested'),
    leftCents: lines.reduce((sum, line) => sum + line.leftCents, 0),
    refunds: refunds.map((refund) => ({
      id: refund.id,
      status: refund.status,
      amountCents: refund.amountCents,
      currency: refund.currency,
      lines: refund.lines.map((part) => ({ title: titleOf(part.bookId), amountCents: part.grossCents })),
      reason: refund.reason,
      requestedBy: refund.requestedBy,
      requestedAt: refund.requestedAt,
      confirmedAt: refund.confirmedAt,
      providerReference: refund.providerReference,
      creditNote: documents.find((document) => document.id === refund.creditNoteId)?.number ?? null,
    })),
    /** The invoice and its credit notes, in the order issued; or why a paid order has none. */
    documents,
    missingInvoice: await explainMissingInvoice(db, orderId),
    lines: lines.map(({ libraryOrderId, downloadCount, lastDownloadedAt, ...line }) => ({
      ...line,
      /**
       * The buyer's copy of this book: through this order (with its downloads), through another paid order,
       * taken back by this order's refund (of the whole order, or of this line in full), or never granted (the
       * order was not paid).
       */
      library:
        libraryOrderId === null
          ? order.status === 'refunded' || (line.grossCents > 0 && line.refundedCents >= line.grossCents)
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
  input: { orderId: string; actor: Actor; reason: string; what?: RefundAsk; key?: string | null },
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

/**
 * The back office's 'Issue invoice' for a paid order without one (`issueMissingInvoice`); 'not-found' for an
 * order that does not exist.
 */
export async function issueInvoiceFromBackOffice(
  app: Pick<AppContext, 'db' | 'logger'>,
  input: { orderId: string; actor: Actor },
) {
  const issued = await issueMissingInvoice(app.db, input)
  if (issued.outcome === 'issued')
    app.logger.info({ orderId: input.orderId, invoice: issued.number }, 'invoice issued from the back office')
  return issued
}
