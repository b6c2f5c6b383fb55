import { recordPurchase } from '#app/features/analytics/record.server.ts'
import { completePaidOrder, failPendingOrder } from '#app/features/orders/orders.server.ts'
import { paymentProviderFor } from '#app/features/orders/payment-provider.server.ts'
import { confirmRefund, failRefund } from '#app/features/orders/refunds.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/stripe-webhook'

/** Stripe's signed events: a few kilobytes of JSON (the host's body limit, server/request-bodies.ts). */
export const handle = { requestBody: { maxBytes: 1024 * 1024, anyContentType: true } }

/**
 * Stripe's webhook (docs/decisions/009-stripe-checkout.md). Only a correctly signed, recent event is read;
 * anything else is 400 and changes nothing. A verified event is always acknowledged with 200, even when it
 * names no order of ours or repeats one already applied, so that Stripe stops resending it; a failure of our
 * own (the database down) is a 500, which Stripe retries for up to three days.
 */
export function loader() {
  return methodNotAllowed()
}

export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== 'POST') return methodNotAllowed()
  const app = getAppContext(context)
  const provider = paymentProviderFor(app.env)
  if (provider.name !== 'stripe') return Response.json({ error: 'Not found.' }, { status: 404 })

  // The signature covers the exact bytes Stripe sent, so the body is read raw, never parsed first.
  const webhook = await provider.readWebhook(await request.text(), request.headers.get('Stripe-Signature'))
  if (!webhook.ok) {
    app.logger.warn({ reason: webhook.message }, 'stripe webhook refused')
    return Response.json({ error: 'Webhook signature verification failed.' }, { status: 400 })
  }

  const { effect, eventId, eventType } = webhook
  const log = { eventId, eventType, ...effect }
  if (effect.kind === 'ignored') {
    app.logger.info(log, 'stripe webhook ignored')
  } else if (effect.kind === 'paid') {
    const outcome = await completePaidOrder(app.db, {
      orderId: effect.orderId,
      reference: effect.reference,
      orderUrl: new URL(`/orders/${effect.orderId}`, app.env.publicUrl).toString(),
    })
    if (outcome === 'paid' || outcome === 'paid-twice') app.kickOutbox()
    if (outcome === 'paid' || outcome === 'paid-twice') recordPurchase(app, effect.orderId)
    if (outcome === 'paid' || outcome === 'already-paid')
      app.logger.info({ ...log, outcome }, 'stripe payment')
    // The buyer paid for a book they already owned (two Checkout tabs paid): refund it by hand.
    else if (outcome === 'paid-twice')
      app.logger.error({ ...log, outcome }, 'stripe payment for books the buyer already owns: refund needed')
    // Money was taken for an order we will not fulfil as it stands: someone must grant or refund it by hand.
    else if (outcome === 'not-pending')
      app.logger.error({ ...log, outcome }, 'stripe payment for an order that is not pending')
    else app.logger.warn({ ...log, outcome }, 'stripe payment for an unknown order or session ignored')
  } else if (effect.kind === 'refunded') {
    // A refund asked for in the back office, or made in Stripe's dashboard (decision 014).
    const outcome = await confirmRefund(app.db, {
      ...effect,
      orderUrl: new URL(`/orders/${effect.orderId}`, app.env.publicUrl).toString(),
    })
    if (outcome === 'refunded') app.kickOutbox()
    if (outcome === 'not-paid')
      app.logger.error({ ...log, outcome }, 'stripe refund for an order that is not paid: check it by hand')
    else app.logger.info({ ...log, outcome }, 'stripe refund')
  } else if (effect.kind === 'refund-failed') {
    const outcome = await failRefund(app.db, effect)
    // The buyer still has the books and has not had the money: someone should look at it.
    app.logger.error({ ...log, outcome }, 'stripe refund failed; the order can be refunded again')
  } else {
    const outcome = await failPendingOrder(app.db, effect)
    app.logger.info({ ...log, outcome }, 'stripe checkout ended unpaid')
  }
  return Response.json({ received: true })
}

function methodNotAllowed() {
  return Response.json({ error: 'Method not allowed.' }, { status: 405, headers: { Allow: 'POST' } })
}
