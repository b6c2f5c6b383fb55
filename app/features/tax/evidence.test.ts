import { describe, expect, test } from 'vitest'
import { describeEvidence, judgeEvidence, type EvidenceInput } from './evidence.ts'

const taxed = new Set(['DE', 'FR', 'GB'])
const input = (overrides: Partial<EvidenceInput>): EvidenceInput => ({
  billingCountry: 'DE',
  ipCountry: null,
  cardCountry: null,
  confirmed: false,
  taxes: (country) => taxed.has(country),
  ...overrides,
})

describe('judgeEvidence', () => {
  test('billing and IP agree: settled', () => {
    expect(judgeEvidence(input({ ipCountry: 'DE' }))).toEqual({ ok: true, status: 'two-agree' })
  })

  test('billing and card agree (Stripe, after payment): settled', () => {
    expect(judgeEvidence(input({ ipCountry: 'FR', cardCountry: 'DE' }))).toEqual({
      ok: true,
      status: 'two-agree',
    })
  })

  test('billing and IP disagree: the buyer is asked to confirm, then it is recorded as confirmed', () => {
    expect(judgeEvidence(input({ ipCountry: 'FR' }))).toEqual({
      ok: false,
      reason: 'confirm-country',
      ipCountry: 'FR',
    })
    expect(judgeEvidence(input({ ipCountry: 'FR', confirmed: true }))).toEqual({
      ok: true,
      status: 'buyer-confirmed',
    })
  })

  test('a taxed billing country with an unknown IP needs a confirmation', () => {
    expect(judgeEvidence(input({ ipCountry: null })).ok).toBe(false)
  })

  test('claiming an untaxed country from a taxed country’s address needs a confirmation', () => {
    expect(judgeEvidence(input({ billingCountry: 'US', ipCountry: 'DE' }))).toMatchObject({
      ok: false,
      ipCountry: 'DE',
    })
  })

  test('no tax anywhere in sight: settled without asking', () => {
    expect(judgeEvidence(input({ billingCountry: 'US', ipCountry: null }))).toEqual({
      ok: true,
      status: 'untaxed',
    })
    expect(judgeEvidence(input({ billingCountry: 'US', ipCountry: 'CA' }))).toEqual({
      ok: true,
      status: 'untaxed',
    })
  })
})

describe('describeEvidence', () => {
  test('names each source and the judgement; a card from elsewhere is flagged', () => {
    expect(
      describeEvidence({
        billingCountry: 'DE',
        ipCountry: 'FR',
        cardCountry: 'US',
        evidenceStatus: 'buyer-confirmed',
      }),
    ).toEqual({
      sources: 'Billing address: Germany · connection: France · card: United States',
      judgement: 'The buyer confirmed their billing country; fewer than two pieces of evidence agree.',
      warning: 'The card was issued in United States, not in the billing country: check the order.',
    })
    expect(
      describeEvidence({
        billingCountry: 'DE',
        ipCountry: null,
        cardCountry: 'DE',
        evidenceStatus: 'two-agree',
      }),
    ).toMatchObject({
      sources: 'Billing address: Germany · connection: unknown · card: Germany',
      warning: null,
    })
  })

  test('an order from before tax was recorded has nothing to say', () => {
    expect(
      describeEvidence({ billingCountry: null, ipCountry: null, cardCountry: null, evidenceStatus: null }),
    ).toBeNull()
  })
})
