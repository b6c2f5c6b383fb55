import Stripe from 'stripe'
import { z } from 'zod'
import type { CardBrand } from './card.ts'
import type { PaidCard, PaymentProvider, PaymentWebhook } from './payments.server.ts'

export type StripeOptions = {
  secretKey: string
  webhookSecret: string
  /**
   * How the SDK reaches Stripe's API: its Node client by default. Tests pass a fake
   * (`Stripe.createFetchHttpClient` over a local function) to check the request we build without the network.
   */
  httpClient?: Stripe.HttpClient
}

/** Seconds a webhook's signature stays valid (the SDK's default): an older one is a replay, refused. */
const WEBHOOK_TOLERANCE_SECONDS = 300

/**
 * Stripe Checkout: the buyer pays on Stripe's page, and only the signed `checkout.session.completed` (or
 * `…async_payment_succeeded`) webhook marks the order paid. The success page the buyer returns to proves
 * nothing, so it changes nothing. The SDK sends the API version it was built for (stripe@23: 2026-10-28);
 * the fields read here (ids, metadata, payment_status) are the same in every version.
 */
export function createStripePaymentProvider(
  options: StripeOptions,
): Extract<PaymentProvider, { kind: 'redirect' }> {
  const stripe = new Stripe(options.secretKey, {
    httpClient: options.httpClient,
    // Retries are safe: every create call carries an idempotency key.
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'CodeBook' },
  })
  return {
    kind: 'redirect',
    name: 'stripe',
    // Stripe's minimum charge for USD (the catalogue's currency); most other currencies' are about the same.
    minimumChargeCents: 50,
    async startCheckout(input) {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: input.lines.map((line) => ({
            quantity: 1,
            price_data: {
              currency: line.currency.toLowerCase(),
              // What the buyer pays for the line, tax included: the store's own engine taxed it (decision 038).
              unit_amount: line.grossCents,
              product_data: { name: line.title },
            },
          })),
          customer_email: input.customerEmail,
          client_reference_id: input.orderId,
          metadata: { orderId: input.orderId, orderNumber: String(input.orderNumber) },
          // So that the payment itself, as the dashboard and refunds show it, names the order too.
          payment_intent_data: {
            description: `CodeBook order #${input.orderNumber}`,
            metadata: { orderId: input.orderId, orderNumber: String(input.orderNumber) },
          },
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        // A retried or doubled POST for this order gets the same session back, never a second one.
        { idempotencyKey: `checkout-${input.orderId}` },
      )
      if (!session.url) throw new Error(`Stripe returned Checkout Session ${session.id} without a URL`)
      return { reference: session.id, url: session.url }
    },
    async expireCheckout(reference) {
      try {
        await stripe.checkout.sessions.expire(reference)
        return 'expired'
      } catch (error) {
        // Stripe answers 400 for a session that is complete or expired already, 404 for an unknown one.
        const status = (error as { statusCode?: number } | null)?.statusCode
        if (status === 400 || status === 404) return 'not-open'
        throw error
      }
    },
    async requestRefund(input) {
      // The order records its Checkout Session; a refund names the PaymentIntent the session paid with.
      const session = await stripe.checkout.sessions.retrieve(input.reference)
      const paymentIntent =
        typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id
      if (!paymentIntent) throw new Error(`Checkout Session ${input.reference} has no payment to refund`)
      const refund = await stripe.refunds.create(
        {
          payment_intent: paymentIntent,
          amount: input.amountCents,
          reason: 'requested_by_customer',
          metadata: {
            orderId: input.orderId,
            orderNumber: String(input.orderNumber),
            refundId: input.refundId,
          },
        },
        // A double click, a retried POST or the SDK's own retries get this refund back, never a second one;
        // every refund the store asks for (after one that failed, too) has an id, and so a key, of its own.
        { idempotencyKey: `refund-${input.refundId}` },
      )
      return { reference: refund.id, status: refund.status ?? 'pending' }
    },
    async readWebhook(payload, signature) {
      if (!signature) return { ok: false, message: 'Missing Stripe-Signature header.' }
      let event: unknown
      try {
        event = await stripe.webhooks.constructEventAsync(
          payload,
          signature,
          options.webhookSecret,
          WEBHOOK_TOLERANCE_SECONDS,
        )
      } catch (error) {
        // A bad signature, a timestamp outside the tolerance, or a signed body that is not JSON.
        return { ok: false, message: error instanceof Error ? error.message : String(error) }
      }
      return interpretEvent(event, {
        async orderOf(paymentIntent) {
          // A refund made in the dashboard carries no metadata of ours; the payment it refunds does (startCheckout).
          const intent = await stripe.paymentIntents.retrieve(paymentIntent)
          return intent.metadata?.orderId
        },
        async cardOf(paymentIntent) {
          // The session names the payment; its charge names the card (brand, last 4, issuing country).
          try {
            const intent = await stripe.paymentIntents.retrieve(paymentIntent, { expand: ['latest_charge'] })
            return readCard(intent.latest_charge)
          } catch {
            // Stripe unreachable for this call: the order is paid all the same, without the card's details.
            return null
          }
        },
      })
    },
  }
}

const CheckoutSessionSchema = z.object({
  object: z.literal('checkout.session'),
  id: z.string().min(1),
  payment_status: z.string(),
  client_reference_id: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  payment_intent: z.string().nullish(),
})

/** A charge's card, as `payment_method_details.card` gives it (other methods have none). */
const ChargeCardSchema = z.object({
  payment_method_details: z.object({
    card: z.object({
      brand: z.string().nullish(),
      last4: z.string().nullish(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/)
        .nullish(),
    }),
  }),
})

const STRIPE_BRANDS: Record<string, CardBrand> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
}

/** The card a PaymentIntent's latest charge was paid with, or null (not expanded, not a card, unreadable). */
export function readCard(charge: unknown): PaidCard | null {
  const parsed = ChargeCardSchema.safeParse(charge)
  if (!parsed.success) return null
  const card = parsed.data.payment_method_details.card
  return {
    brand: STRIPE_BRANDS[card.brand ?? ''] ?? 'Card',
    last4: card.last4 ?? null,
    country: card.country ?? null,
  }
}

const EventSchema = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  data: z.object({ object: z.unknown() }),
})

const ChargeSchema = z.object({
  object: z.literal('charge'),
  id: z.string().min(1),
  amount: z.number().int(),
  amount_refunded: z.number().int(),
  refunded: z.boolean(),
  payment_intent: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
})

const RefundSchema = z.object({
  object: z.literal('refund'),
  id: z.string().min(1),
  amount: z.number().int(),
  status: z.string().nullish(),
  payment_intent: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
})

/** What an event may need to ask Stripe about a payment (API calls: only when needed). */
type PaymentLookups = {
  /** The order a payment belongs to, from the PaymentIntent's metadata. */
  orderOf: (paymentIntent: string) => Promise<string | undefined>
  /** The card that paid, or null when it cannot be read. */
  cardOf: (paymentIntent: string) => Promise<PaidCard | null>
}

/** What a verified event means to the store; its shape is checked too: signed is not the same as expected. */
async function interpretEvent(raw: unknown, lookups: PaymentLookups): Promise<PaymentWebhook> {
  const event = EventSchema.safeParse(raw)
  if (!event.success) return { ok: false, message: 'Not a Stripe event.' }
  const { id: eventId, type: eventType } = event.data
  const result = (effect: Extract<PaymentWebhook, { ok: true }>['effect']): PaymentWebhook => ({
    ok: true,
    eventId,
    eventType,
    effect,
  })
  if (
    eventType === 'charge.refunded' ||
    eventType === 'refund.created' ||
    eventType === 'refund.updated' ||
    eventType === 'refund.failed'
  )
    return result(await interpretRefund(eventType, event.data.data.object, lookups.orderOf))
  if (!eventType.startsWith('checkout.session.'))
    return result({ kind: 'ignored', reason: 'event type not handled' })

  const session = CheckoutSessionSchema.safeParse(event.data.data.object)
  if (!session.success) return result({ kind: 'ignored', reason: 'not a Checkout Session' })
  const orderId = z.uuid().safeParse(session.data.metadata?.orderId ?? session.data.client_reference_id)
  // Another integration on the same Stripe account, or a session made by hand in the dashboard.
  if (!orderId.success) return result({ kind: 'ignored', reason: 'session names no CodeBook order' })
  const order = { orderId: orderId.data, reference: session.data.id }

  switch (eventType) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      // A delayed method (a bank debit) completes the session unpaid; its money arrives, or not, later.
      if (session.data.payment_status !== 'paid')
        return result({ kind: 'ignored', reason: `payment status ${session.data.payment_status}` })
      return result({
        kind: 'paid',
        ...order,
        card: session.data.payment_intent ? await lookups.cardOf(session.data.payment_intent) : null,
      })
    case 'checkout.session.async_payment_failed':
      return result({ kind: 'failed', reason: 'payment-failed', ...order })
    case 'checkout.session.expired':
      return result({ kind: 'failed', reason: 'expired', ...order })
    default:
      return result({ kind: 'ignored', reason: 'event type not handled' })
  }
}

/**
 * Money given back: `charge.refunded` (any refund of the charge, ours or the dashboard's; `amount_refunded` is
 * the total so far) or a refund that `succeeded` (`refund.created`/`refund.updated`: a card refund usually
 * succeeds at once, other methods later). Either may arrive first, and both usually do: the store acts on
 * the first and the other finds the order refunded. A refund of ours that `failed` or was `canceled`
 * (`refund.failed`/`refund.updated`) lets the admin ask again.
 */
async function interpretRefund(
  eventType: string,
  object: unknown,
  orderOfPayment: PaymentLookups['orderOf'],
): Promise<Extract<PaymentWebhook, { ok: true }>['effect']> {
  let refund: {
    reference: string | null
    amount: number
    paymentIntent?: string | null
    orderId?: string
    refundId?: string | null
  }
  if (eventType === 'charge.refunded') {
    const charge = ChargeSchema.safeParse(object)
    if (!charge.success) return { kind: 'ignored', reason: 'not a charge' }
    refund = {
      reference: null,
      amount: charge.data.amount_refunded,
      paymentIntent: charge.data.payment_intent,
      orderId: charge.data.metadata?.orderId,
    }
  } else {
    const parsed = RefundSchema.safeParse(object)
    if (!parsed.success) return { kind: 'ignored', reason: 'not a refund' }
    const status = parsed.data.status ?? 'unknown'
    if (status === 'failed' || status === 'canceled') {
      const orderId = z.uuid().safeParse(parsed.data.metadata?.orderId)
      // Only a refund the back office asked for is waited on; one made in the dashboard is Stripe's to show.
      if (!orderId.success) return { kind: 'ignored', reason: `refund ${status}, not ours` }
      return {
        kind: 'refund-failed',
        orderId: orderId.data,
        refundReference: parsed.data.id,
        refundId: refundIdOf(parsed.data.metadata),
        status,
      }
    }
    if (status !== 'succeeded') return { kind: 'ignored', reason: `refund status ${status}` }
    refund = {
      reference: parsed.data.id,
      amount: parsed.data.amount,
      paymentIntent: parsed.data.payment_intent,
      orderId: parsed.data.metadata?.orderId,
      refundId: refundIdOf(parsed.data.metadata),
    }
  }
  const orderId = z
    .uuid()
    .safeParse(
      refund.orderId ?? (refund.paymentIntent ? await orderOfPayment(refund.paymentIntent) : undefined),
    )
  if (!orderId.success) return { kind: 'ignored', reason: 'refund names no CodeBook order' }
  return {
    kind: 'refunded',
    orderId: orderId.data,
    refundReference: refund.reference,
    refundId: refund.refundId ?? null,
    amountRefundedCents: refund.amount,
  }
}

/** The store's id of a refund it asked for (`requestRefund`'s metadata), if the refund carries one. */
function refundIdOf(metadata: Record<string, string> | null | undefined): string | null {
  const refundId = z.uuid().safeParse(metadata?.refundId)
  return refundId.success ? refundId.data : null
}
