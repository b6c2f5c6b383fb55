/**
 * Where a buyer is, for tax (issue 31, decision 038). EU law asks a seller of eBooks for two pieces of evidence
 * of the buyer's country that do not contradict each other (Art. 24f of Regulation 282/2011). The store has
 * three: the billing country the buyer chooses at checkout, the country of their IP address (an offline
 * database, buyer-country.server.ts) and, with Stripe, the country of their card (known only once they paid).
 *
 * The rule, before payment:
 * 1. Two sources that name the billing country: settled ('two-agree').
 * 2. Otherwise, when neither the billing country nor the IP's names a country the store charges tax in (a US
 *    buyer on a US or unknown address), there is no tax to place: settled ('untaxed').
 * 3. Otherwise the buyer is asked to confirm their billing country (a tick next to it, saying what the
 *    connection suggests); confirmed, the order is made with what was used recorded ('buyer-confirmed'), and
 *    the card's country, once the payment reports it, is recorded beside it: a card from the billing country
 *    makes two that agree (payment-events.server.ts), one from elsewhere is flagged for the owner to review.
 * The billing country is always the country taxed: the buyer's own statement, checked, never silently
 * replaced by a guess.
 */
import { countryName } from './countries.ts'

export type EvidenceStatus = 'two-agree' | 'untaxed' | 'buyer-confirmed'

export type EvidenceInput = {
  billingCountry: string
  /** null: unknown (a private or loopback address, or not in the database). */
  ipCountry: string | null
  /** With Stripe, after payment; null before. */
  cardCountry: string | null
  /** The buyer ticked 'my billing address is in …'. */
  confirmed: boolean
  /** Whether the store charges tax in a country (it has a rate for it). */
  taxes: (country: string) => boolean
}

export type EvidenceJudgement =
  { ok: true; status: EvidenceStatus } | { ok: false; reason: 'confirm-country'; ipCountry: string | null }

export function judgeEvidence(input: EvidenceInput): EvidenceJudgement {
  const agreeing = 1 + [input.ipCountry, input.cardCountry].filter((c) => c === input.billingCountry).length
  if (agreeing >= 2) return { ok: true, status: 'two-agree' }
  const taxedClaim =
    input.taxes(input.billingCountry) || (input.ipCountry !== null && input.taxes(input.ipCountry))
  if (!taxedClaim) return { ok: true, status: 'untaxed' }
  if (input.confirmed) return { ok: true, status: 'buyer-confirmed' }
  return { ok: false, reason: 'confirm-country', ipCountry: input.ipCountry }
}

/**
 * What an order records of where its buyer was, in words for the back office: each source's country, how it
 * was judged, and a warning when the card's issuing country (known once paid) names another country than
 * the one taxed, for the owner to review (the tax stays the billing country's: the buyer's word, checked).
 */
export function describeEvidence(order: {
  billingCountry: string | null
  ipCountry: string | null
  cardCountry: string | null
  evidenceStatus: EvidenceStatus | null
}): { sources: string; judgement: string; warning: string | null } | null {
  if (!order.billingCountry || !order.evidenceStatus) return null
  const name = (code: string | null) => (code ? countryName(code) : 'unknown')
  const sources = `Billing address: ${name(order.billingCountry)} · connection: ${name(order.ipCountry)} · card: ${name(order.cardCountry)}`
  const judgement = {
    'two-agree': 'Two pieces of evidence agree.',
    untaxed: 'No country the store taxes in was named: no tax.',
    'buyer-confirmed': 'The buyer confirmed their billing country; fewer than two pieces of evidence agree.',
  }[order.evidenceStatus]
  const warning =
    order.cardCountry && order.cardCountry !== order.billingCountry
      ? `The card was issued in ${name(order.cardCountry)}, not in the billing country: check the order.`
      : null
  return { sources, judgement, warning }
}
