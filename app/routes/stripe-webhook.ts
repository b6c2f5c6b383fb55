import { receivePaymentWebhook } from '#app/features/orders/payment-events.server.ts'
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
  if (app.payments.kind !== 'redirect') return Response.json({ error: 'Not found.' }, { status: 404 })
  // The signature covers the exact bytes Stripe sent, so the body is read raw, never parsed first.
  const payload = await request.text()
  const signature = request.headers.get('Stripe-Signature')
  if ((await receivePaymentWebhook(app, app.payments, payload, signature)) === 'refused')
    return Response.json({ error: 'Webhook signature verification failed.' }, { status: 400 })
  return Response.json({ received: true })
}

function methodNotAllowed() {
  return Response.json({ error: 'Method not allowed.' }, { status: 405, headers: { Allow: 'POST' } })
}
