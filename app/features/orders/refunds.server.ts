import { and, eq } from 'drizzle-orm'
import { commandLineActor, recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { findGiftOfOrder } from '#app/features/gifts/gifts.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { orderRefunds, orders } from '#app/server/db/schema/index.server.ts'
import { createTestPaymentProvider, type PaymentProvider } from './payments.server.ts'
import {
  completeRefund,
  insertRefund,
  lockOrderForRefund,
  refundableLinesOf,
  refundStateOf,
  type LockedOrder,
  type RefundRow,
} from './refund-record.server.ts'
import { splitRefund, type RefundAsk, type RefundSplit } from './refund-split.ts'

/**
 * Refunds (decisions 008 and 014, issue 31): of a whole order, some of its lines, or an amount spread over them
 * (refund-split.ts). Every refund goes one way, whoever asks: a row in `order_refunds` asked for, the money
 * given back by the provider that took it, then confirmed (`completeRefund`: books of fully refunded lines
 * taken back, the order 'refunded' once nothing is left, the credit note, the audit entry and the buyer's mail).
 * The back office's 'Refund this order' is 'everything left' on that same way.
 */

/**
 * Marks a paid order refunded, with no money moved and no mail: for scripts and for a refund made outside the
 * store (decision 008). What was left of it is recorded as a refund (with its credit note, if invoiced), and
 * its books leave the buyer's library by the trigger on `orders` (migration 0007), so a refund recorded with
 * plain SQL takes them back just the same. A book the buyer also paid for in another order stays theirs,
 * through that order. Only a paid order can be refunded.
 */
export async function refundOrder(
  db: Db,
  orderId: string,
): Promise<'refunded' | 'already-refunded' | 'not-paid' | 'not-found'> {
  return db.transaction(async (tx) => {
    const order = await lockOrderForRefund(tx, orderId)
    if (!order) return 'not-found'
    if (order.status === 'refunded') return 'already-refunded'
    if (order.status !== 'paid') return 'not-paid'
    const { left, waiting } = await refundableLinesOf(tx, orderId)
    const quietly = { actor: commandLineActor, providerReference: null, orderUrl: '', quiet: true }
    // A refund still waiting on the provider is part of what the operator says went back.
    if (waiting) await completeRefund(tx, order, waiting, quietly)
    const split = splitRefund(left, { kind: 'everything' })
    const refund = split.ok
      ? await insertRefund(tx, {
          order,
          split,
          reason: 'Recorded as refunded outside the store',
          requestedBy: commandLineActor.email,
        })
      : null
    if (refund || !waiting)
      await completeRefund(tx, (await lockOrderForRefund(tx, orderId))!, refund, quietly)
    return 'refunded'
  })
}

export type AdminRefundOutcome =
  /** The test provider: the money went back at once (books of fully refunded lines taken back, mail queued). */
  | { outcome: 'refunded' }
  /** Stripe accepted the refund; it is confirmed when its signed webhook says so. */
  | { outcome: 'requested'; reference: string }
  | { outcome: 'not-found' }
  /** Nothing changed: the order is pending, failed, refunded, a gift, or waiting on a refund asked for already. */
  | { outcome: 'conflict'; message: string }
  /** Nothing changed: what was asked is not something this order has left to refund (the form's field says). */
  | { outcome: 'invalid'; field: 'amount' | 'lines'; message: string }
  /** The provider could not be reached or refused; nothing was given back. */
  | { outcome: 'provider-error'; message: string }

/**
 * An admin refunds a paid order from its page (decision 014): everything left, some lines, or an amount. The
 * order's row is locked while the refund is worked out and recorded, so two refunds at once never give back
 * more than is left, and the form's key (fresh in each rendering) makes the same form posted twice one refund.
 * The provider that took the money gives it back:
 * - the test provider at once, and the one transaction confirms the refund;
 * - Stripe through its refunds API (for the amount, idempotency key `refund-<refund id>`), called outside any
 *   transaction once the refund is recorded as asked for; `confirmRefund` confirms it when the signed webhook
 *   says the money went back. One refund waits on Stripe at a time: another is refused until it is settled.
 */
export async function refundOrderAsAdmin(
  db: Db,
  input: {
    orderId: string
    actor: Actor
    reason: string
    /** What to give back (the whole order's rest when not said). */
    what?: RefundAsk
    /** The form's idempotency key. */
    key?: string | null
    /** The store's configured provider (Stripe orders need it); test orders are refunded in-process. */
    provider: PaymentProvider
    orderUrl: string
  },
): Promise<AdminRefundOutcome> {
  const what = input.what ?? { kind: 'everything' }
  const prepared = await db.transaction(
    async (tx): Promise<AdminRefundOutcome | { ask: RefundRow; order: LockedOrder }> => {
      const order = await lockOrderForRefund(tx, input.orderId)
      if (!order) return { outcome: 'not-found' }
      if (input.key) {
        const [earlier] = await tx
          .select()
          .from(orderRefunds)
          .where(and(eq(orderRefunds.orderId, order.id), eq(orderRefunds.idempotencyKey, input.key)))
        // The same form posted again (a double click, a retried post): the refund it made already.
        if (earlier) return outcomeOf(earlier)
      }
      const { left, waiting } = await refundableLinesOf(tx, order.id)
      const refusal = refusalFor(order, waiting)
      if (refusal) return refusal
      if (order.paymentProvider === 'stripe' && input.provider.kind !== 'redirect')
        return {
          outcome: 'conflict',
          message:
            'This order was paid through Stripe, which this store is not configured for now. Refund it in the Stripe dashboard.',
        }
      // A gift's books are granted whole when it is claimed: it is refunded whole, never a line of it.
      if (what.kind !== 'everything' && (await findGiftOfOrder(tx, order.id)))
        return {
          outcome: 'conflict',
          message: 'This order is a gift: it can only be refunded whole (everything left).',
        }
      const split = splitRefund(left, what)
      if (!split.ok) {
        // An order of 0 has nothing to give back, but may still be closed: its books leave the library.
        if (split.problem === 'nothing-left' && what.kind === 'everything' && order.totalCents === 0) {
          await completeRefund(tx, order, null, { ...input, providerReference: null })
          return { outcome: 'refunded' }
        }
        return refusedSplit(split, what, order.currency)
      }
      const ask = await insertRefund(tx, {
        order,
        split,
        reason: input.reason,
        requestedBy: input.actor.email,
        idempotencyKey: input.key,
      })
      if (order.paymentProvider === 'stripe') return { ask, order }
      // The test provider answers in-process: the money and its record are one transaction.
      const { reference } = await createTestPaymentProvider().refund({
        reference: order.paymentReference ?? '',
        amountCents: split.amountCents,
        currency: order.currency,
      })
      await completeRefund(tx, order, ask, { ...input, providerReference: reference })
      return { outcome: 'refunded' }
    },
  )
  if ('outcome' in prepared) return prepared
  if (input.provider.kind !== 'redirect') throw new Error('unreachable: a Stripe order without Stripe')
  return askStripe(db, input.provider, { ...input, ...prepared })
}

/** Stripe is asked for a refund recorded as asked for, outside any transaction (a network call holds no lock). */
async function askStripe(
  db: Db,
  provider: Extract<PaymentProvider, { kind: 'redirect' }>,
  input: { ask: RefundRow; order: LockedOrder; actor: Actor; reason: string },
): Promise<AdminRefundOutcome> {
  const { ask, order } = input
  let refund: { reference: string }
  try {
    refund = await provider.requestRefund({
      orderId: order.id,
      orderNumber: order.number,
      reference: order.paymentReference ?? '',
      refundId: ask.id,
      amountCents: ask.amountCents,
    })
  } catch (error) {
    // Never given back: the refund no longer counts, and the admin may ask again.
    await db
      .update(orderRefunds)
      .set({ status: 'failed' })
      .where(and(eq(orderRefunds.id, ask.id), eq(orderRefunds.status, 'requested')))
    const detail = error instanceof Error ? error.message : String(error)
    return {
      outcome: 'provider-error',
      message: `Stripe did not accept the refund, so nothing changed: ${detail}`,
    }
  }
  return db.transaction(async (tx) => {
    const current = (await lockOrderForRefund(tx, order.id))!
    const [row] = await tx.select().from(orderRefunds).where(eq(orderRefunds.id, ask.id))
    if (!row!.providerReference)
      await tx
        .update(orderRefunds)
        .set({ providerReference: refund.reference })
        .where(eq(orderRefunds.id, ask.id))
    const before = refundStateOf(current)
    // The webhook may have come first and confirmed it (or said it failed): the order is as that left it.
    const after =
      row!.status === 'requested'
        ? { ...before, refundRequestedAt: ask.requestedAt, refundReference: refund.reference }
        : before
    if (row!.status === 'requested')
      await tx
        .update(orders)
        .set({ refundRequestedAt: after.refundRequestedAt, refundReference: after.refundReference })
        .where(eq(orders.id, order.id))
    await recordAudit(tx, {
      actor: input.actor,
      action: 'order.refund-request',
      entityType: 'order',
      entityId: order.id,
      before,
      after: {
        ...after,
        refundReference: refund.reference,
        refund: { id: ask.id, amountCents: ask.amountCents, lines: ask.lines },
        reason: input.reason || null,
      },
    })
    return { outcome: 'requested', ...refund }
  })
}

/** What a refund the same form made already came to, answered again. */
function outcomeOf(refund: RefundRow): AdminRefundOutcome {
  if (refund.status === 'confirmed') return { outcome: 'refunded' }
  if (refund.status === 'requested')
    return { outcome: 'requested', reference: refund.providerReference ?? '' }
  return {
    outcome: 'conflict',
    message: 'That refund did not go through; nothing was given back. Ask again.',
  }
}

function refusalFor(
  order: { status: string },
  waiting: RefundRow | undefined,
): Extract<AdminRefundOutcome, { outcome: 'conflict' }> | undefined {
  const messages: Record<string, string> = {
    pending: 'This order is not paid yet, so there is nothing to refund.',
    failed: 'This order’s payment failed, so there is nothing to refund.',
    refunded: 'This order has been refunded already.',
  }
  const message = messages[order.status]
  if (message) return { outcome: 'conflict', message }
  if (waiting)
    return {
      outcome: 'conflict',
      message: `A refund was asked for on ${waiting.requestedAt.toISOString()}; it counts once the payment provider confirms it. Refund more after that.`,
    }
  return undefined
}

/** The form's message for what the split refused, beside its field. */
function refusedSplit(
  split: Extract<RefundSplit, { ok: false }>,
  what: RefundAsk,
  currency: string,
): AdminRefundOutcome {
  const left = formatPrice(split.leftCents, currency)
  switch (split.problem) {
    case 'nothing-left':
      return { outcome: 'conflict', message: 'Nothing is left to refund on this order.' }
    case 'over':
      return { outcome: 'invalid', field: 'amount', message: `At most ${left} is left to refund.` }
    case 'bad-amount':
      return { outcome: 'invalid', field: 'amount', message: 'Enter an amount above 0, in whole cents.' }
    case 'no-lines':
      return { outcome: 'invalid', field: 'lines', message: 'Choose at least one book to refund.' }
    case 'unknown-line':
      return { outcome: 'invalid', field: 'lines', message: 'Choose books of this order.' }
    case 'line-refunded':
      return {
        outcome: 'invalid',
        field: what.kind === 'amount' ? 'amount' : 'lines',
        message: 'A book you chose has been refunded in full already.',
      }
  }
}
