import { and, asc, eq, inArray } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { revokeGift } from '#app/features/gifts/gift-delivery.server.ts'
import { revokeBooks } from '#app/features/library/library.server.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import type { Transaction as Tx } from '#app/server/db/database.server.ts'
import { orderItems, orderRefunds, orders, user } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { creditRefund, invoiceAttachment } from './order-invoice.server.ts'
import { refundEmail } from './refund-email.ts'
import { linesLeft, type OrderLine, type RefundSplit } from './refund-split.ts'

/**
 * Refunds as the database records them (issue 31): an `order_refunds` row per refund, asked for ('requested')
 * and then confirmed once the provider gave the money back. Every writer here runs inside a transaction that
 * holds the order's row lock (`lockOrderForRefund`), so two refunds of one order are worked out one after the
 * other, each from what the other left.
 */

/** The columns a refund changes on the order, as the audit log records them before and after. */
export const refundState = {
  status: orders.status,
  refundRequestedAt: orders.refundRequestedAt,
  refundReference: orders.refundReference,
  refundedAt: orders.refundedAt,
}

export type LockedOrder = NonNullable<Awaited<ReturnType<typeof lockOrderForRefund>>>
export type RefundRow = typeof orderRefunds.$inferSelect

/** The order's refund columns, as the audit log records them. */
export function refundStateOf(order: LockedOrder) {
  return {
    status: order.status,
    refundRequestedAt: order.refundRequestedAt,
    refundReference: order.refundReference,
    refundedAt: order.refundedAt,
  }
}

/** The order, locked until the transaction ends (`FOR UPDATE`): undefined if there is none. */
export async function lockOrderForRefund(tx: Tx, orderId: string) {
  const [order] = await tx
    .select({
      id: orders.id,
      number: orders.number,
      userId: orders.userId,
      currency: orders.currency,
      totalCents: orders.totalCents,
      paymentProvider: orders.paymentProvider,
      paymentReference: orders.paymentReference,
      ...refundState,
    })
    .from(orders)
    .where(eq(orders.id, orderId))
    .for('update')
  return order
}

/**
 * The order's lines, what is left of each to refund (refunds confirmed or still waiting on the provider count
 * as given back), and the refund waiting on the provider, if any (there is at most one at a time).
 */
export async function refundableLinesOf(tx: Tx, orderId: string) {
  const items = await tx
    .select({
      bookId: orderItems.bookId,
      title: orderItems.title,
      netCents: orderItems.netCents,
      taxCents: orderItems.taxCents,
      grossCents: orderItems.grossCents,
    })
    .from(orderItems)
    .where(eq(orderItems.orderId, orderId))
    .orderBy(asc(orderItems.title), asc(orderItems.bookId))
  const refunds = await tx
    .select()
    .from(orderRefunds)
    .where(and(eq(orderRefunds.orderId, orderId), inArray(orderRefunds.status, ['requested', 'confirmed'])))
    .orderBy(asc(orderRefunds.requestedAt))
  return {
    items,
    left: linesLeft(
      items,
      refunds.map((refund) => refund.lines),
    ),
    waiting: refunds.find((refund) => refund.status === 'requested'),
    confirmedCents: refunds
      .filter((refund) => refund.status === 'confirmed')
      .reduce((sum, refund) => sum + refund.amountCents, 0),
  }
}

/** A refund asked for, waiting on the provider (`completeRefund` confirms it). */
export async function insertRefund(
  tx: Tx,
  refund: {
    order: LockedOrder
    split: Extract<RefundSplit, { ok: true }>
    reason: string
    requestedBy: string
    idempotencyKey?: string | null
    providerReference?: string | null
  },
): Promise<RefundRow> {
  const [row] = await tx
    .insert(orderRefunds)
    .values({
      orderId: refund.order.id,
      amountCents: refund.split.amountCents,
      netCents: refund.split.netCents,
      taxCents: refund.split.taxCents,
      currency: refund.order.currency,
      lines: refund.split.lines,
      reason: refund.reason,
      requestedBy: refund.requestedBy,
      idempotencyKey: refund.idempotencyKey ?? null,
      providerReference: refund.providerReference ?? null,
    })
    .returning()
  return row!
}

/**
 * The money went back: the refund is confirmed, and in the same transaction
 * - the books of lines now refunded in full leave the library (unless owned through another order); once nothing
 *   of the order is left, the order becomes 'refunded' (its trigger takes the remaining books back, a gift not
 *   yet claimed is withdrawn), otherwise it stays 'paid';
 * - a credit note is issued for exactly the refund's lines, if the order has an invoice;
 * - the audit log records it, and the buyer's mail is queued, naming the amount, with the credit note.
 * `refund` null closes an order with nothing to give back (an order of 0): the books go, no money moves.
 * `quiet` (a refund recorded by a script, decision 008) writes no audit entry and no mail.
 */
export async function completeRefund(
  tx: Tx,
  order: LockedOrder,
  refund: RefundRow | null,
  options: { actor: Actor; providerReference: string | null; orderUrl: string; quiet?: boolean },
): Promise<{ wholeOrder: boolean }> {
  const now = new Date()
  const reference = options.providerReference ?? refund?.providerReference ?? null
  if (refund)
    await tx
      .update(orderRefunds)
      .set({ status: 'confirmed', confirmedAt: now, providerReference: reference })
      .where(eq(orderRefunds.id, refund.id))
  const { items, confirmedCents } = await refundableLinesOf(tx, order.id)
  const given = new Map<string, number>()
  for (const row of await confirmedRefundsOf(tx, order.id))
    for (const part of row.lines) given.set(part.bookId, (given.get(part.bookId) ?? 0) + part.grossCents)
  const paidCents = items.reduce((sum, item) => sum + item.grossCents, 0)
  const wholeOrder = confirmedCents >= paidCents
  const refunded = (item: OrderLine) =>
    item.grossCents > 0 && (given.get(item.bookId) ?? 0) >= item.grossCents
  const partOf = (item: OrderLine) =>
    refund?.lines.find((part) => part.bookId === item.bookId)?.grossCents ?? 0
  const refundedBefore = (item: OrderLine) =>
    item.grossCents > 0 && (given.get(item.bookId) ?? 0) - partOf(item) >= item.grossCents
  // The books this refund takes away: its lines it completes, or all the rest when it ends the order.
  const revoked = items.filter(
    (item) => !refundedBefore(item) && (wholeOrder || (refunded(item) && partOf(item) > 0)),
  )
  const before = {
    status: order.status,
    refundRequestedAt: order.refundRequestedAt,
    refundReference: order.refundReference,
    refundedAt: order.refundedAt,
  }
  const after = wholeOrder
    ? {
        status: 'refunded' as const,
        refundRequestedAt: order.refundRequestedAt ?? now,
        refundReference: reference ?? order.refundReference,
        refundedAt: now,
      }
    : {
        status: 'paid' as const,
        refundRequestedAt: null,
        refundReference: reference ?? order.refundReference,
      }
  if (wholeOrder) {
    // A gift not yet claimed is taken back: its link no longer works, its mail if still waiting is withdrawn.
    await revokeGift(tx, order.id)
  } else {
    await revokeBooks(tx, { orderId: order.id, bookIds: items.filter(refunded).map((item) => item.bookId) })
  }
  // Whole: the trigger of migration 0007 takes the remaining books back in this statement.
  await tx.update(orders).set(after).where(eq(orders.id, order.id))
  // Last but the mail that carries it: the credit note series stays locked until the commit.
  const creditNote = refund
    ? await creditRefund(tx, { orderId: order.id, lines: refund.lines, reason: refund.reason, issuedAt: now })
    : null
  if (refund && creditNote)
    await tx.update(orderRefunds).set({ creditNoteId: creditNote.id }).where(eq(orderRefunds.id, refund.id))
  if (options.quiet) return { wholeOrder }
  await recordAudit(tx, {
    actor: options.actor,
    action: 'order.refund',
    entityType: 'order',
    entityId: order.id,
    before,
    after: {
      ...after,
      ...(refund ? { refund: { id: refund.id, amountCents: refund.amountCents, lines: refund.lines } } : {}),
      ...(creditNote ? { creditNote: creditNote.number } : {}),
      ...(refund?.reason ? { reason: refund.reason } : {}),
    },
  })
  const attachment = creditNote ? await invoiceAttachment(tx, creditNote.id) : null
  const titleOf = (bookId: string) => items.find((item) => item.bookId === bookId)?.title ?? ''
  const [buyer] = await tx.select({ email: user.email }).from(user).where(eq(user.id, order.userId))
  await enqueueEmail(tx, {
    kind: 'refund',
    // The refund that ends the order is the order's refund mail (once per order, as before partial refunds);
    // each earlier one is a mail of its own.
    subjectKey: wholeOrder || !refund ? order.id : `${order.id}:${refund.id}`,
    to: buyer!.email,
    ...refundEmail(
      {
        number: order.number,
        amountCents: refund?.amountCents ?? 0,
        currency: order.currency,
        wholeOrder,
        lines: (refund?.lines ?? []).map((part) => ({
          title: titleOf(part.bookId),
          amountCents: part.grossCents,
        })),
        revoked: revoked.map((item) => ({ title: item.title })),
        creditNoteFile: attachment?.fileName ?? null,
        orderUrl: options.orderUrl,
      },
      await readSeller(tx),
    ),
    attachments: attachment ? [attachment] : [],
  })
  return { wholeOrder }
}

function confirmedRefundsOf(tx: Tx, orderId: string) {
  return tx
    .select({ lines: orderRefunds.lines })
    .from(orderRefunds)
    .where(and(eq(orderRefunds.orderId, orderId), eq(orderRefunds.status, 'confirmed')))
}
