import { describe, expect, test } from 'vitest'
import { judgeEvidence, type EvidenceInput } from './evidence.ts'

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
