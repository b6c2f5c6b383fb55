import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { formatRate, taxLine, taxLines, type TaxMode } from './compute-tax.ts'

const price = fc.integer({ min: 0, max: 10_000_000 })
const rate = fc.integer({ min: 0, max: 10_000 })
const mode = fc.constantFrom<TaxMode>('inclusive', 'exclusive')

describe('taxLine', () => {
  test('worked examples, halves rounded up', () => {
    // €9.99 before 19 %: 189.81 cents of tax → 190.
    expect(taxLine(999, 1900, 'exclusive')).toEqual({
      rateBp: 1900,
      netCents: 999,
      taxCents: 190,
      grossCents: 1189,
    })
    // €9.99 including 19 %: 999 × 19 / 119 = 159.50… → 160 (the half rounds up).
    expect(taxLine(999, 1900, 'inclusive')).toEqual({
      rateBp: 1900,
      netCents: 839,
      taxCents: 160,
      grossCents: 999,
    })
    // €10.00 including 7 %: 65.42 → 65.
    expect(taxLine(1000, 700, 'inclusive')).toEqual({
      rateBp: 700,
      netCents: 935,
      taxCents: 65,
      grossCents: 1000,
    })
    // 50 cents at 5 % before tax: exactly 2.5 → 3.
    expect(taxLine(50, 500, 'exclusive').taxCents).toBe(3)
    expect(taxLine(1234, 0, 'inclusive')).toEqual({
      rateBp: 0,
      netCents: 1234,
      taxCents: 0,
      grossCents: 1234,
    })
  })

  test('refuses a negative or fractional price and a rate over 100 %', () => {
    expect(() => taxLine(-1, 1900, 'inclusive')).toThrow(RangeError)
    expect(() => taxLine(9.5, 1900, 'inclusive')).toThrow(RangeError)
    expect(() => taxLine(100, 10_001, 'exclusive')).toThrow(RangeError)
  })

  test('net plus tax is the gross; the price is the gross (inclusive) or the net (exclusive)', () => {
    fc.assert(
      fc.property(price, rate, mode, (cents, bp, how) => {
        const line = taxLine(cents, bp, how)
        expect(line.netCents + line.taxCents).toBe(line.grossCents)
        expect(how === 'inclusive' ? line.grossCents : line.netCents).toBe(cents)
        expect(line.taxCents).toBeGreaterThanOrEqual(0)
        expect(line.netCents).toBeGreaterThanOrEqual(0)
        expect(Number.isInteger(line.taxCents)).toBe(true)
      }),
    )
  })

  test('the tax is the exact tax rounded to the nearest cent (never more than half a cent off)', () => {
    fc.assert(
      fc.property(price, rate, mode, (cents, bp, how) => {
        const exact = how === 'inclusive' ? (cents * bp) / (10_000 + bp) : (cents * bp) / 10_000
        const { taxCents } = taxLine(cents, bp, how)
        expect(Math.abs(taxCents - exact)).toBeLessThanOrEqual(0.5 + 1e-9)
        // A half goes up, never down.
        if (Math.abs(exact - Math.floor(exact) - 0.5) < 1e-9) expect(taxCents).toBe(Math.ceil(exact))
      }),
    )
  })

  test('a dearer line never pays less tax, nor a higher rate', () => {
    fc.assert(
      fc.property(price, price, rate, rate, mode, (a, b, r1, r2, how) => {
        const [low, high] = a <= b ? [a, b] : [b, a]
        const [lowRate, highRate] = r1 <= r2 ? [r1, r2] : [r2, r1]
        expect(taxLine(low, lowRate, how).taxCents).toBeLessThanOrEqual(taxLine(high, lowRate, how).taxCents)
        expect(taxLine(low, lowRate, how).taxCents).toBeLessThanOrEqual(taxLine(low, highRate, how).taxCents)
      }),
    )
  })
})

describe('taxLines', () => {
  test('totals are the sums of the lines, and within half a cent a line of the whole taxed at once', () => {
    fc.assert(
      fc.property(fc.array(price, { maxLength: 30 }), rate, mode, (prices, bp, how) => {
        const taxed = taxLines(prices, bp, how)
        expect(taxed.lines).toHaveLength(prices.length)
        const sum = (pick: (line: (typeof taxed.lines)[number]) => number) =>
          taxed.lines.reduce((total, line) => total + pick(line), 0)
        expect(taxed.taxCents).toBe(sum((line) => line.taxCents))
        expect(taxed.netCents + taxed.taxCents).toBe(taxed.grossCents)
        const whole = prices.reduce((total, cents) => total + cents, 0)
        const exact = how === 'inclusive' ? (whole * bp) / (10_000 + bp) : (whole * bp) / 10_000
        expect(Math.abs(taxed.taxCents - exact)).toBeLessThanOrEqual(prices.length / 2 + 1e-6)
      }),
    )
  })
})

test('formatRate', () => {
  expect(formatRate(1900)).toBe('19 %')
  expect(formatRate(550)).toBe('5.5 %')
  expect(formatRate(810)).toBe('8.1 %')
  expect(formatRate(0)).toBe('0 %')
})
