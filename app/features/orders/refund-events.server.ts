import { and, eq } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { orderRefunds, orders } from '#app/server/db/schema/index.server.ts'
import {
  completeRefund,
  insertRefund,
  lockOrderForRefund,
  refundableLinesOf,
  refundStateOf,
  type RefundRow,
} from './refund-record.server.ts'
import { splitRefund, type OrderLine } from './refund-split.ts'

/**
 * What a payment provider's signed webhook says of refunds (decision 014, issue 31): one confirmed (the money
 * went back) or one that did not go through. The refund itself was asked for by refunds.server.ts, or made in
 * Stripe's dashboard.
 */

/** Who confirms a refund the provider made: its webhook, not a person. */
export const stripeActor: Actor = { id: null, email: 'stripe' }

/**
 * The provider's signed webhook says money went back for an order: a refund the back office asked for (found by
 * its id in the refund's metadata, by its reference, or, for Stripe's `charge.refunded` which names no refund,
 * as the refund waiting when the payment's refunds so far cover it) is confirmed (`completeRefund`). A refund
 * made in Stripe's dashboard is recorded too, by 'stripe': everything left, or a part (its `refund.*` event names
 * it and its amount: spread over the books as an amount refund is). `charge.refunded` alone, for more than is
 * recorded, is 'partial' (logged by the caller; the refund's own event follows).
 * Idempotent: a replayed or second event (`charge.refunded` and `refund.updated` both come) finds it confirmed.
 */
export async function confirmRefund(
  db: Db,
  input: {
    orderId: string
    refundReference: string | null
    refundId: string | null
    amountRefundedCents: number
    orderUrl: string
  },
): Promise<'refunded' | 'already-refunded' | 'partial' | 'not-paid' | 'not-found'> {
  return db.transaction(async (tx) => {
    const order = await lockOrderForRefund(tx, input.orderId)
    if (!order || order.paymentProvider !== 'stripe') return 'not-found' as const
    if (order.status === 'refunded') return 'already-refunded' as const
    if (order.status !== 'paid') return 'not-paid' as const
    const { left, waiting, confirmedCents } = await refundableLinesOf(tx, order.id)
    const known = await findRefund(tx, order.id, input)
    const refund =
      known ??
      (input.refundReference === null &&
      waiting &&
      input.amountRefundedCents >= confirmedCents + waiting.amountCents
        ? waiting
        : undefined)
    const options = { actor: stripeActor, providerReference: input.refundReference, orderUrl: input.orderUrl }
    if (refund) {
      if (refund.status === 'confirmed') return 'already-refunded' as const
      // Marked failed when Stripe could not be reached, yet made: it counts if the order still has it left.
      if (refund.status === 'failed' && !fitsIn(refund, left)) return 'partial' as const
      await completeRefund(tx, order, refund, options)
      return 'refunded' as const
    }
    // Made in Stripe's dashboard: recorded when it leaves nothing of the order to refund.
    const leftCents = left.reduce((sum, line) => sum + line.grossCents, 0)
    const whole =
      input.refundReference === null
        ? input.amountRefundedCents >= order.totalCents
        : input.amountRefundedCents >= leftCents + (waiting?.amountCents ?? 0)
    if (!whole) {
      // `charge.refunded` says only how much went back so far: all of it recorded already, or a part made in the
      // dashboard, which its own `refund.*` event (naming it) records.
      if (input.refundReference === null)
        return input.amountRefundedCents <= confirmedCents + (waiting?.amountCents ?? 0)
          ? ('already-refunded' as const)
          : ('partial' as const)
      // A part refunded in Stripe's dashboard: recorded as that amount, spread over the books in proportion to
      // what is left of each (a book leaves the library only if its line is refunded in full), with its
      // credit note, so the store's accounts say what Stripe's do.
      const part = splitRefund(left, { kind: 'amount', cents: input.amountRefundedCents })
      if (!part.ok) return 'partial' as const
      return recordDashboardRefund(tx, order.id, part, options)
    }
    // A refund of ours still waiting is part of what Stripe gave back: it is confirmed first.
    if (waiting) await completeRefund(tx, order, waiting, { ...options, providerReference: null })
    const split = splitRefund(left, { kind: 'everything' })
    if (!split.ok) return 'refunded' as const
    return recordDashboardRefund(tx, order.id, split, options)
  })
}

/** A refund made in Stripe's dashboard, recorded and confirmed at once (its credit note, its mail). */
async function recordDashboardRefund(
  tx: Tx,
  orderId: string,
  split: Extract<ReturnType<typeof splitRefund>, { ok: true }>,
  options: Parameters<typeof completeRefund>[3],
) {
  const recorded = await insertRefund(tx, {
    order: (await lockOrderForRefund(tx, orderId))!,
    split,
    reason: 'Refunded in the Stripe dashboard',
    requestedBy: stripeActor.email,
    providerReference: options.providerReference,
  })
  await completeRefund(tx, (await lockOrderForRefund(tx, orderId))!, recorded, options)
  return 'refunded' as const
}

/**
 * A refund asked for from the back office did not go through (Stripe's `refund.failed`, or `refund.updated`
 * failed/canceled): it no longer counts, the order (still paid) is no longer waiting on it, so the admin may
 * refund again, and the audit log says why. Only a refund still waiting counts; a repeat finds nothing to undo.
 */
export async function failRefund(
  db: Db,
  input: { orderId: string; refundReference: string; refundId: string | null; status: string },
): Promise<'reopened' | 'not-waiting'> {
  return db.transaction(async (tx) => {
    const order = await lockOrderForRefund(tx, input.orderId)
    if (!order) return 'not-waiting' as const
    const refund = await findRefund(tx, order.id, input)
    if (!refund || refund.status !== 'requested') return 'not-waiting' as const
    await tx
      .update(orderRefunds)
      .set({ status: 'failed', providerReference: refund.providerReference ?? input.refundReference })
      .where(eq(orderRefunds.id, refund.id))
    const before = refundStateOf(order)
    // The failed refund's id stays in `refund_reference`; the next request is a refund of its own.
    const after = { ...before, refundRequestedAt: null }
    await tx.update(orders).set({ refundRequestedAt: null }).where(eq(orders.id, order.id))
    await recordAudit(tx, {
      actor: stripeActor,
      action: 'order.refund-failed',
      entityType: 'order',
      entityId: order.id,
      before,
      after: {
        ...after,
        refundStatus: input.status,
        refund: { id: refund.id, amountCents: refund.amountCents },
      },
    })
    return 'reopened' as const
  })
}

/** The refund an event names: by the store's id in its metadata, else by the provider's reference. */
async function findRefund(
  tx: Tx,
  orderId: string,
  event: { refundId: string | null; refundReference: string | null },
): Promise<RefundRow | undefined> {
  if (event.refundId) {
    const [byId] = await tx
      .select()
      .from(orderRefunds)
      .where(and(eq(orderRefunds.id, event.refundId), eq(orderRefunds.orderId, orderId)))
    if (byId) return byId
  }
  if (!event.refundReference) return undefined
  const [byReference] = await tx
    .select()
    .from(orderRefunds)
    .where(and(eq(orderRefunds.providerReference, event.refundReference), eq(orderRefunds.orderId, orderId)))
  return byReference
}

/** Every line of `refund` is within what is left of it. */
function fitsIn(refund: RefundRow, left: readonly OrderLine[]): boolean {
  return refund.lines.every((part) => {
    const rest = left.find((line) => line.bookId === part.bookId)
    return rest !== undefined && part.netCents <= rest.netCents && part.taxCents <= rest.taxCents
  })
}
