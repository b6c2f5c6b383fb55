import { describe, expect, test } from 'vitest'
import { formatCount, formatOrdinal } from './number-format.ts'

const samples = [
  0,
  1,
  9,
  10,
  99,
  100,
  999,
  1_000,
  1_001,
  9_999,
  10_000,
  12_345,
  99_999,
  100_000,
  999_999,
  1_000_000,
  1_234_567,
  -1,
  -999,
  -1_000,
  -1_234_567,
  2 ** 31,
  Number.MAX_SAFE_INTEGER,
]

describe('numbers without Intl, as Intl writes them in en-US', () => {
  test.each(samples)('%d', (value) => {
    expect(formatCount(value)).toBe(value.toLocaleString('en-US'))
  })

  test('a fraction is dropped, as a count has none', () => {
    expect(formatCount(1234.9)).toBe('1,234')
  })

  test('ordinals match Intl.PluralRules for 0 to 1,200', () => {
    const rules = new Intl.PluralRules('en-US', { type: 'ordinal' })
    const suffix = { one: 'st', two: 'nd', few: 'rd', other: 'th', zero: 'th', many: 'th' } as const
    for (let value = 0; value <= 1_200; value++)
      expect(formatOrdinal(value)).toBe(`${value}${suffix[rules.select(value)]}`)
  })
})
