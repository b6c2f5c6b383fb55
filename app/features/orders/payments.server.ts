import crypto from 'node:crypto'
import type { CardBrand } from './card.ts'

/** Card details as the checkout form sent them, already validated (checkout-form.server.ts). */
export type CardDetails = { number: string; brand: CardBrand; name: string; expiry: string; cvc: string }

export type ChargeResult =
  | {
      ok: true
      reference: string
      brand: CardBrand
      last4: string
      /** The country that issued the card (ISO 3166-1 alpha-2), when the processor says: tax evidence. */
      country: string | null
    }
  | { ok: false; reason: 'declined' | 'insufficient-funds'; message: string; brand: CardBrand; last4: string }

/**
 * How the store is paid. Two kinds, because the flows differ:
 * - 'card-form': the store's own checkout form collects the card and `charge` answers at once. For
 *   in-process providers only (the test provider): `placeOrderWithCard` calls `charge` inside the
 *   database transaction, holding the buyer's cart row locked, and that lock is what makes a second post of
 *   the same checkout wait and charge nothing. A networked card processor must not be plugged in here: a
 *   slow or hanging call would hold the lock and a connection for its whole length, and a charge that went
 *   through just before a rollback (a timeout, a crash) would leave money taken with no order. It would need
 *   reserve → charge → confirm instead: commit a pending order first, charge outside any transaction with
 *   the order id as the processor's idempotency key, then mark the order paid or failed in a second
 *   transaction (and reconcile orders left pending). It would also bring the store into PCI DSS scope;
 * - 'redirect': the buyer pays on the provider's page (Stripe Checkout) and a signed webhook marks the order
 *   paid later: that flow already works as reserve → charge → confirm (decision 009).
 */
export type PaymentProvider =
  | {
      kind: 'card-form'
      name: 'test'
      charge(input: { card: CardDetails; amountCents: number; currency: string }): Promise<ChargeResult>
      /** Gives a charge's money back at once (in-process, like `charge`): the refund's reference. */
      refund(input: {
        reference: string
        amountCents: number
        currency: string
      }): Promise<{ reference: string }>
    }
  | {
      kind: 'redirect'
      name: 'stripe'
      /**
       * The least it can take, in cents (Stripe: $0.50 and its like in other currencies): a coupon or a chosen
       * amount below it, but above 0, cannot be paid there.
       */
      minimumChargeCents: number
      startCheckout(input: {
        orderId: string
        orderNumber: number
        customerEmail: string
        /** Each line at what the buyer pays for it (`grossCents`: tax included). */
        lines: { title: string; grossCents: number; currency: string }[]
        successUrl: string
        cancelUrl: string
      }): Promise<{ reference: string; url: string }>
      /** Verifies a webhook's signature on the raw body and says what it means for an order. */
      readWebhook(payload: string, signature: string | null): Promise<PaymentWebhook>
      /**
       * Closes a checkout the buyer left open, so it can no longer be paid: 'expired', or 'not-open' when it
       * was already paid, expired or never existed (its webhook settles it).
       */
      expireCheckout(reference: string): Promise<'expired' | 'not-open'>
      /**
       * Asks the provider to give back `amountCents` of a paid order (all of it, or a part: issue 31). The answer
       * only says the request was accepted: the refund is confirmed when the provider's signed webhook says so
       * (a 'refunded' effect naming `refundId`). Repeating the request for the same refund returns the same
       * refund, never a second one; each refund the store asks for has an id of its own.
       */
      requestRefund(input: {
        orderId: string
        orderNumber: number
        /** The order's payment reference (the Checkout Session id). */
        reference: string
        /** The store's id of this refund (`order_refunds.id`). */
        refundId: string
        amountCents: number
      }): Promise<{ reference: string; status: string }>
    }

/**
 * A provider's webhook, once read: refused (bad or missing signature, too old), or a verified event that
 * pays an order, ends an unpaid one, or concerns nothing the store acts on.
 */
export type PaymentWebhook =
  | { ok: false; message: string }
  | {
      ok: true
      eventId: string
      eventType: string
      effect:
        /** `card`: what paid, as the provider reports it (its issuing country is tax evidence), if it could be read. */
        | { kind: 'paid'; orderId: string; reference: string; card: PaidCard | null }
        | { kind: 'failed'; orderId: string; reference: string; reason: 'expired' | 'payment-failed' }
        /**
         * Money went back to the buyer (a refund asked for in the back office, or made in the provider's
         * dashboard). With a `refundReference`, that one refund and its amount; without (Stripe's
         * `charge.refunded`), `amountRefundedCents` is all the payment's refunds so far. `refundId`: the
         * store's id of the refund, when the store asked for it.
         */
        | {
            kind: 'refunded'
            orderId: string
            refundReference: string | null
            refundId: string | null
            amountRefundedCents: number
          }
        /** A refund asked for did not go through (a closed card account, say): it may be asked for again. */
        | {
            kind: 'refund-failed'
            orderId: string
            refundReference: string
            refundId: string | null
            status: string
          }
        | { kind: 'ignored'; reason: string }
    }

/** The card a payment was made with, as a provider reports it once paid. */
export type PaidCard = { brand: CardBrand; last4: string | null; country: string | null }

export const paymentMessages = {
  declined: 'Your card was declined.',
  'insufficient-funds': 'Your card has insufficient funds.',
} as const

/** Test cards with a set outcome, as Stripe documents them; any other valid card succeeds. */
const TEST_CARD_OUTCOMES: Record<string, 'declined' | 'insufficient-funds'> = {
  '4000000000000002': 'declined',
  '4000000000009995': 'insufficient-funds',
}

/**
 * Stripe's international test cards (400000, the country's ISO 3166 numeric code, then digits that pass Luhn):
 * each pays like 4242…, as a card issued in that country. Any other card's country is unknown to the test
 * provider, as a real processor's sometimes is.
 */
const TEST_CARD_COUNTRIES: Record<string, string> = {
  '4242424242424242': 'US',
  '4000000360000006': 'AU',
  '4000000400000008': 'AT',
  '4000000560000004': 'BE',
  '4000001240000000': 'CA',
  '4000002080000001': 'DK',
  '4000002460000001': 'FI',
  '4000002500000003': 'FR',
  '4000002760000016': 'DE',
  '4000003720000005': 'IE',
  '4000003800000008': 'IT',
  '4000005280000002': 'NL',
  '4000005780000007': 'NO',
  '4000006200000007': 'PT',
  '4000007240000007': 'ES',
  '4000007520000008': 'SE',
  '4000007560000009': 'CH',
  '4000008260000000': 'GB',
}

/**
 * The default when no real provider is configured, labelled 'Test mode — no real money' on the checkout:
 * 4242 4242 4242 4242 succeeds (a US card), 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 fails for
 * insufficient funds, and Stripe's cards of other countries (4000 0027 6000 0016: Germany) pay as cards of
 * theirs. Nothing leaves the process.
 */
export function createTestPaymentProvider(): Extract<PaymentProvider, { kind: 'card-form' }> {
  return {
    kind: 'card-form',
    name: 'test',
    async charge({ card }) {
      const last4 = card.number.slice(-4)
      const outcome = TEST_CARD_OUTCOMES[card.number]
      if (outcome)
        return { ok: false, reason: outcome, message: paymentMessages[outcome], brand: card.brand, last4 }
      return {
        ok: true,
        reference: `test_${crypto.randomUUID()}`,
        brand: card.brand,
        last4,
        country: TEST_CARD_COUNTRIES[card.number] ?? null,
      }
    },
    async refund() {
      return { reference: `test_refund_${crypto.randomUUID()}` }
    },
  }
}
