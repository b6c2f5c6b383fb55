import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { priceCart, type CouponTerms, type PricingLine } from './price-cart.ts'

const everything = { bookIds: [], topicIds: [], minOrderCents: 0, currency: 'USD' } as const
const percent = (value: number, extra: Partial<CouponTerms> = {}): CouponTerms => ({
  ...everything,
  kind: 'percent',
  value,
  ...extra,
})
const amount = (value: number, extra: Partial<CouponTerms> = {}): CouponTerms => ({
  ...everything,
  kind: 'amount',
  value,
  ...extra,
})
const line = (bookId: string, listCents: number, topicIds: string[] = []): PricingLine => ({
  bookId,
  listCents,
  currency: 'USD',
  topicIds,
})

describe('the rules, by example', () => {
  test('no coupon: every line at list price', () => {
    expect(priceCart([line('a', 999), line('b', 1500)])).toEqual({
      lines: [
        { bookId: 'a', listCents: 999, discountCents: 0, paidCents: 999 },
        { bookId: 'b', listCents: 1500, discountCents: 0, paidCents: 1500 },
      ],
      listCents: 2499,
      discountCents: 0,
      totalCents: 2499,
    })
  })

  test('a percentage rounds each line to the nearest cent, halves up', () => {
    // 15 % of 9.99 is 1.4985 → 1.50; 15 % of 10.10 is 1.515 → 1.52; 15 % of 0.10 is 0.015 → 0.02.
    const priced = priceCart([line('a', 999), line('b', 1010), line('c', 10)], percent(15))
    expect(priced.lines.map((l) => l.discountCents)).toEqual([150, 152, 2])
    expect(priced.totalCents).toBe(999 + 1010 + 10 - (150 + 152 + 2))
  })

  test('100 % makes a free order', () => {
    expect(priceCart([line('a', 999), line('b', 1)], percent(100)).totalCents).toBe(0)
  })

  test('an amount is shared in proportion, leftover cents to the largest remainders, the earlier line on a tie', () => {
    // 5.00 over 10.00 + 10.00 + 10.00: 166.67 each → 166 each, 2 cents left → the first two lines.
    expect(
      priceCart([line('a', 1000), line('b', 1000), line('c', 1000)], amount(500)).lines.map(
        (l) => l.discountCents,
      ),
    ).toEqual([167, 167, 166])
    // 3.00 over 1.00 and 9.00: 0.30 and 2.70 exactly.
    expect(
      priceCart([line('a', 100), line('b', 900)], amount(300)).lines.map((l) => l.discountCents),
    ).toEqual([30, 270])
  })

  test('an amount larger than the books takes them to 0, never below', () => {
    const priced = priceCart([line('a', 999)], amount(5000))
    expect(priced).toMatchObject({ discountCents: 999, totalCents: 0 })
  })

  test('limited to books or topics: the other lines pay list price', () => {
    const cart = [line('a', 1000, ['go']), line('b', 2000, ['rust']), line('c', 3000)]
    expect(priceCart(cart, percent(50, { bookIds: ['c'] })).lines.map((l) => l.discountCents)).toEqual([
      0, 0, 1500,
    ])
    expect(priceCart(cart, percent(50, { topicIds: ['rust'] })).lines.map((l) => l.discountCents)).toEqual([
      0, 1000, 0,
    ])
    expect(
      priceCart(cart, amount(600, { topicIds: ['go', 'rust'] })).lines.map((l) => l.discountCents),
    ).toEqual([200, 400, 0])
    expect(priceCart(cart, percent(50, { bookIds: ['z'] }))).toMatchObject({
      discountCents: 0,
      notApplied: 'no-eligible-books',
    })
  })

  test('a minimum order is of the whole cart at list price', () => {
    expect(priceCart([line('a', 1999)], percent(10, { minOrderCents: 2000 }))).toMatchObject({
      discountCents: 0,
      notApplied: 'below-minimum',
    })
    expect(priceCart([line('a', 2000)], percent(10, { minOrderCents: 2000 })).discountCents).toBe(200)
  })

  test('a minimum order is in the coupon’s currency: a cart in another is not compared with it', () => {
    const euros = { ...line('a', 5000), currency: 'EUR' }
    expect(priceCart([euros], percent(10, { minOrderCents: 2000 }))).toMatchObject({
      discountCents: 0,
      notApplied: 'other-currency',
    })
    // Without a minimum, a percentage is the same in any currency.
    expect(priceCart([euros], percent(10)).discountCents).toBe(500)
  })

  test('an amount coupon in another currency takes nothing', () => {
    expect(priceCart([line('a', 1000)], amount(500, { currency: 'EUR' }))).toMatchObject({
      discountCents: 0,
      notApplied: 'other-currency',
    })
  })
})

describe('the rules, as properties', () => {
  const lines = fc.array(
    fc.record({
      bookId: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      listCents: fc.integer({ min: 0, max: 100_000 }),
      currency: fc.constantFrom('USD', 'USD', 'USD', 'EUR'),
      topicIds: fc.subarray(['go', 'rust', 'web']),
    }),
    { maxLength: 8 },
  )
  const coupon = fc.record({
    kind: fc.constantFrom('percent' as const, 'amount' as const),
    value: fc.integer({ min: 0, max: 200_000 }),
    currency: fc.constantFrom('USD', 'EUR'),
    bookIds: fc.subarray(['a', 'b', 'c', 'z']),
    topicIds: fc.subarray(['go', 'rust', 'web']),
    minOrderCents: fc.integer({ min: 0, max: 50_000 }),
  })
  const terms = coupon.map((terms) =>
    terms.kind === 'percent' ? { ...terms, value: Math.min(100, terms.value) } : terms,
  )

  test('totals are never negative, never above list price, and are the sum of the lines', () => {
    fc.assert(
      fc.property(lines, fc.option(terms), (cart, terms) => {
        const priced = priceCart(cart, terms)
        expect(priced.totalCents).toBeGreaterThanOrEqual(0)
        expect(priced.totalCents).toBeLessThanOrEqual(priced.listCents)
        expect(priced.totalCents).toBe(priced.lines.reduce((sum, l) => sum + l.paidCents, 0))
        expect(priced.discountCents).toBe(priced.listCents - priced.totalCents)
        for (const [index, l] of priced.lines.entries()) {
          expect(Number.isInteger(l.paidCents) && Number.isInteger(l.discountCents)).toBe(true)
          expect(l.discountCents).toBeGreaterThanOrEqual(0)
          expect(l.discountCents).toBeLessThanOrEqual(l.listCents)
          expect(l.listCents).toBe(cart[index]!.listCents)
        }
      }),
    )
  })

  test('a discount never goes beyond its rule: the amount, or the percentage of the eligible lines', () => {
    fc.assert(
      fc.property(lines, terms, (cart, terms) => {
        const priced = priceCart(cart, terms)
        const eligible = (l: PricingLine) =>
          (terms.bookIds.length === 0 && terms.topicIds.length === 0) ||
          terms.bookIds.includes(l.bookId) ||
          (l.topicIds ?? []).some((topic) => terms.topicIds.includes(topic))
        if (terms.kind === 'amount') expect(priced.discountCents).toBeLessThanOrEqual(terms.value)
        for (const [index, l] of priced.lines.entries()) {
          if (!eligible(cart[index]!) || priced.notApplied) expect(l.discountCents).toBe(0)
          else if (terms.kind === 'percent')
            expect(Math.abs(l.discountCents - (l.listCents * terms.value) / 100)).toBeLessThanOrEqual(0.5)
        }
        const list = cart.reduce((sum, l) => sum + l.listCents, 0)
        if (list < terms.minOrderCents) expect(priced.discountCents).toBe(0)
      }),
    )
  })

  test('an amount coupon takes exactly its amount when the eligible lines are worth more', () => {
    fc.assert(
      fc.property(lines, terms, (cart, terms) => {
        fc.pre(terms.kind === 'amount')
        const priced = priceCart(cart, terms)
        if (priced.notApplied) return
        const base = cart
          .filter(
            (l) =>
              l.currency === terms.currency &&
              ((terms.bookIds.length === 0 && terms.topicIds.length === 0) ||
                terms.bookIds.includes(l.bookId) ||
                (l.topicIds ?? []).some((topic) => terms.topicIds.includes(topic))),
          )
          .reduce((sum, l) => sum + l.listCents, 0)
        expect(priced.discountCents).toBe(Math.min(terms.value, base))
      }),
    )
  })
})
