import { and, eq } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { orderItems, orders, user } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { createTestPaymentProvider, type PaymentProvider } from './payments.server.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import { refundEmail } from './refund-email.ts'
import { revokeGift } from '#app/features/gifts/gift-delivery.server.ts'

/**
 * Marks a paid order refunded, with no money moved and no mail: for scripts and for a refund made outside the
 * store (decision 008). The books it granted leave the buyer's library in the same statement: a trigger on
 * `orders` (migration 0007) does that, so a refund recorded with plain SQL takes them back just the same. A
 * book the buyer also paid for in another order stays theirs, through that order. Only a paid order can be
 * refunded. The back office uses `refundOrderAsAdmin`, which also gives the money back, audits and mails.
 */
export async function refundOrder(
  db: Db,
  orderId: string,
): Promise<'refunded' | 'already-refunded' | 'not-paid' | 'not-found'> {
  const refunded = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(orders)
      .set({ status: 'refunded', refundedAt: new Date() })
      .where(and(eq(orders.id, orderId), eq(orders.status, 'paid')))
      .returning({ id: orders.id })
    // A gift not yet claimed is taken back: its link no longer works, its mail if still waiting is withdrawn.
    if (row) await revokeGift(tx, orderId)
    return row
  })
  if (refunded) return 'refunded'
  const [order] = await db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId))
  if (!order) return 'not-found'
  return order.status === 'refunded' ? 'already-refunded' : 'not-paid'
}

export type AdminRefundOutcome =
  /** The test provider: the money went back and the order is refunded (books taken back, mail queued). */
  | { outcome: 'refunded' }
  /** Stripe accepted the refund; the order is refunded when its signed webhook confirms it. */
  | { outcome: 'requested'; reference: string }
  | { outcome: 'not-found' }
  /** Nothing changed: the order is pending, failed, refunded, or waiting on a refund asked for already. */
  | { outcome: 'conflict'; message: string }
  /** The provider could not be reached or refused; nothing changed. */
  | { outcome: 'provider-error'; message: string }

/** The columns an admin refund changes, as the audit log records them before and after. */
const refundState = {
  status: orders.status,
  refundRequestedAt: orders.refundRequestedAt,
  refundReference: orders.refundReference,
  refundedAt: orders.refundedAt,
}

/**
 * An admin refunds a whole paid order from its page (decision 014). The provider that took the money gives
 * it back:
 * - the test provider at once, and one transaction marks the order refunded (the trigger takes the books
 *   back), records the audit entry and queues the buyer's mail;
 * - Stripe through its refund API (idempotency key `refund-<orderId>`), called outside any transaction; the
 *   order records that a refund was asked for (and the audit entry), and `confirmRefund` marks it refunded
 *   when the signed webhook says the money went back.
 * A second click finds the order refunded or its refund asked for and changes nothing (409).
 */
export async function refundOrderAsAdmin(
  db: Db,
  input: {
    orderId: string
    actor: Actor
    reason: string
    /** The store's configured provider (Stripe orders need it); test orders are refunded in-process. */
    provider: PaymentProvider
    orderUrl: string
  },
): Promise<AdminRefundOutcome> {
  const [order] = await db
    .select({
      number: orders.number,
      paymentProvider: orders.paymentProvider,
      paymentReference: orders.paymentReference,
      totalCents: orders.totalCents,
      currency: orders.currency,
      ...refundState,
    })
    .from(orders)
    .where(eq(orders.id, input.orderId))
  if (!order) return { outcome: 'not-found' }
  const refusal = refusalFor(order)
  if (refusal) return refusal

  if (order.paymentProvider === 'stripe') {
    if (input.provider.kind !== 'redirect')
      return {
        outcome: 'conflict',
        message:
          'This order was paid through Stripe, which this store is not configured for now. Refund it in the Stripe dashboard.',
      }
    let refund: { reference: string }
    try {
      refund = await input.provider.requestRefund({
        orderId: input.orderId,
        orderNumber: order.number,
        reference: order.paymentReference ?? '',
        previousRefund: order.refundReference,
      })
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error)
      return {
        outcome: 'provider-error',
        message: `Stripe did not accept the refund, so nothing changed: ${detail}`,
      }
    }
    return db.transaction(async (tx) => {
      const current = await lockOrder(tx, input.orderId)
      // The webhook may have come first; or a double click's other request recorded the same refund.
      if (current.status !== 'paid' || current.refundRequestedAt) return { outcome: 'requested', ...refund }
      const after = { refundRequestedAt: new Date(), refundReference: refund.reference }
      await tx.update(orders).set(after).where(eq(orders.id, input.orderId))
      await recordAudit(tx, {
        actor: input.actor,
        action: 'order.refund-request',
        entityType: 'order',
        entityId: input.orderId,
        before: current,
        after: { ...current, ...after, reason: input.reason || null },
      })
      return { outcome: 'requested', ...refund }
    })
  }

  // The test provider answers in-process, so the refund and its record are one transaction.
  return db.transaction(async (tx) => {
    const current = await lockOrder(tx, input.orderId)
    const late = refusalFor(current)
    if (late) return late
    const { reference } = await createTestPaymentProvider().refund({
      reference: order.paymentReference ?? '',
      amountCents: order.totalCents,
      currency: order.currency,
    })
    const now = new Date()
    await markRefunded(tx, input.orderId, {
      actor: input.actor,
      before: current,
      after: { status: 'refunded', refundRequestedAt: now, refundReference: reference, refundedAt: now },
      reason: input.reason,
      orderUrl: input.orderUrl,
    })
    return { outcome: 'refunded' }
  })
}

/** Who confirms a refund the provider made: its webhook, not a person. */
export const stripeActor: Actor = { id: null, email: 'stripe' }

/**
 * The provider's signed webhook says money went back for an order (a refund asked for in the back office, or
 * one made in Stripe's dashboard): once the refunds reach the order's total, the order is marked refunded
 * (the trigger takes the books back), audited and the buyer's mail queued, in one transaction. Idempotent: a
 * replayed or second event (`charge.refunded` and `refund.updated` both come) finds it refunded. A partial
 * refund changes nothing (decision 008: an order is refunded whole or stays paid).
 */
export async function confirmRefund(
  db: Db,
  input: { orderId: string; refundReference: string | null; amountRefundedCents: number; orderUrl: string },
): Promise<'refunded' | 'already-refunded' | 'partial' | 'not-paid' | 'not-found'> {
  return db.transaction(async (tx) => {
    const [order] = await tx
      .select({ totalCents: orders.totalCents, paymentProvider: orders.paymentProvider, ...refundState })
      .from(orders)
      .where(eq(orders.id, input.orderId))
      .for('update')
    if (!order || order.paymentProvider !== 'stripe') return 'not-found' as const
    if (order.status === 'refunded') return 'already-refunded' as const
    if (order.status !== 'paid') return 'not-paid' as const
    if (input.amountRefundedCents < order.totalCents) return 'partial' as const
    const { totalCents: _total, paymentProvider: _provider, ...before } = order
    const now = new Date()
    await markRefunded(tx, input.orderId, {
      actor: stripeActor,
      before,
      after: {
        status: 'refunded',
        refundRequestedAt: before.refundRequestedAt ?? now,
        refundReference: before.refundReference ?? input.refundReference,
        refundedAt: now,
      },
      reason: '',
      orderUrl: input.orderUrl,
    })
    return 'refunded' as const
  })
}

/**
 * A refund asked for from the back office did not go through (Stripe's `refund.failed`, or `refund.updated`
 * failed/canceled): the order, still paid, is no longer waiting on it, so the admin may refund again, and the
 * audit log says why. Only the refund the order is waiting on counts; a repeat finds nothing to undo.
 */
export async function failRefund(
  db: Db,
  input: { orderId: string; refundReference: string; status: string },
): Promise<'reopened' | 'not-waiting'> {
  return db.transaction(async (tx) => {
    const [order] = await tx
      .select(refundState)
      .from(orders)
      .where(eq(orders.id, input.orderId))
      .for('update')
    if (
      !order ||
      order.status !== 'paid' ||
      !order.refundRequestedAt ||
      order.refundReference !== input.refundReference
    )
      return 'not-waiting' as const
    // The failed refund's id stays: the next request is made with a new idempotency key after it.
    const after = { refundRequestedAt: null }
    await tx.update(orders).set(after).where(eq(orders.id, input.orderId))
    await recordAudit(tx, {
      actor: stripeActor,
      action: 'order.refund-failed',
      entityType: 'order',
      entityId: input.orderId,
      before: order,
      after: { ...order, ...after, refundStatus: input.status },
    })
    return 'reopened' as const
  })
}

function refusalFor(order: {
  status: string
  refundRequestedAt: Date | null
}): Extract<AdminRefundOutcome, { outcome: 'conflict' }> | undefined {
  const messages: Record<string, string> = {
    pending: 'This order is not paid yet, so there is nothing to refund.',
    failed: 'This order’s payment failed, so there is nothing to refund.',
    refunded: 'This order has been refunded already.',
  }
  const message = messages[order.status]
  if (message) return { outcome: 'conflict', message }
  if (order.refundRequestedAt)
    return {
      outcome: 'conflict',
      message: `A refund was asked for on ${order.refundRequestedAt.toISOString()}; the order is marked refunded when the payment provider confirms it.`,
    }
  return undefined
}

async function lockOrder(tx: Tx, orderId: string) {
  const [order] = await tx.select(refundState).from(orders).where(eq(orders.id, orderId)).for('update')
  return order!
}

async function markRefunded(
  tx: Tx,
  orderId: string,
  change: {
    actor: Actor
    before: Record<string, unknown>
    after: {
      status: 'refunded'
      refundRequestedAt: Date
      refundReference: string | null
      refundedAt: Date
    }
    reason: string
    orderUrl: string
  },
) {
  await revokeGift(tx, orderId)
  // The trigger of migration 0007 takes the books back in this statement.
  const [order] = await tx.update(orders).set(change.after).where(eq(orders.id, orderId)).returning({
    userId: orders.userId,
    number: orders.number,
    totalCents: orders.totalCents,
    currency: orders.currency,
  })
  await recordAudit(tx, {
    actor: change.actor,
    action: 'order.refund',
    entityType: 'order',
    entityId: orderId,
    before: change.before,
    after: { ...change.after, ...(change.reason ? { reason: change.reason } : {}) },
  })
  const lines = await tx
    .select({ title: orderItems.title })
    .from(orderItems)
    .where(eq(orderItems.orderId, orderId))
  const [buyer] = await tx.select({ email: user.email }).from(user).where(eq(user.id, order!.userId))
  await enqueueEmail(tx, {
    kind: 'refund',
    subjectKey: orderId,
    to: buyer!.email,
    ...refundEmail(
      {
        number: order!.number,
        lines,
        totalCents: order!.totalCents,
        currency: order!.currency,
        orderUrl: change.orderUrl,
      },
      await readSeller(tx),
    ),
  })
}
