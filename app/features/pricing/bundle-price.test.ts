import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { priceBundle, type BundleBook } from './bundle-price.ts'
import { shareInProportion } from './share.ts'

const book = (bookId: string, listCents: number, owned = false): BundleBook => ({ bookId, listCents, owned })

describe('the rules, by example', () => {
  test('owning none: the bundle price, shared in proportion to the books’ prices', () => {
    expect(priceBundle(3000, [book('a', 2000), book('b', 1500), book('c', 1500)])).toEqual({
      priceCents: 3000,
      lines: [
        { bookId: 'a', listCents: 1200 },
        { bookId: 'b', listCents: 900 },
        { bookId: 'c', listCents: 900 },
      ],
    })
  })

  test('owning some: the bundle price times the share of what is not owned, halves up', () => {
    // 30 × 30 / 50 = 18.
    expect(priceBundle(3000, [book('a', 2000, true), book('b', 1500), book('c', 1500)])?.priceCents).toBe(
      1800,
    )
    // 10.00 × 9.99 / 29.97 = 3.3333… → 3.33; 10.00 × 19.98 / 29.97 = 6.666… → 6.67.
    expect(priceBundle(1000, [book('a', 999, true), book('b', 999), book('c', 999)])?.priceCents).toBe(667)
    expect(priceBundle(1000, [book('a', 999, true), book('b', 999, true), book('c', 999)])?.priceCents).toBe(
      333,
    )
  })

  test('never more than the books cost on their own', () => {
    // Priced at 50 when the books now cost 40 together: 40.
    expect(priceBundle(5000, [book('a', 2000), book('b', 2000)])?.priceCents).toBe(4000)
    expect(priceBundle(5000, [book('a', 2000, true), book('b', 2000)])?.priceCents).toBe(2000)
  })

  test('owning every book: it cannot be bought', () => {
    expect(priceBundle(3000, [book('a', 2000, true), book('b', 1500, true)])).toBeNull()
  })

  test('free books share by their number', () => {
    expect(priceBundle(900, [book('a', 0, true), book('b', 0), book('c', 0)])).toEqual({
      priceCents: 600,
      lines: [
        { bookId: 'b', listCents: 300 },
        { bookId: 'c', listCents: 300 },
      ],
    })
  })

  test('shares in whole cents, the leftover to the largest remainders', () => {
    expect(shareInProportion(100, [1, 1, 1])).toEqual([34, 33, 33])
    expect(shareInProportion(1000, [0, 0])).toEqual([500, 500])
    expect(shareInProportion(7, [0, 5])).toEqual([0, 7])
  })
})

const bundleBooks = fc.array(
  fc.record({ bookId: fc.uuid(), listCents: fc.integer({ min: 0, max: 100_000 }), owned: fc.boolean() }),
  { minLength: 1, maxLength: 12 },
)

describe('properties', () => {
  test('the lines add up to the price; never negative, never above the bundle or the books not owned', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500_000 }), bundleBooks, (bundlePrice, books) => {
        const priced = priceBundle(bundlePrice, books)
        const toBuy = books.filter((b) => !b.owned)
        if (toBuy.length === 0) {
          expect(priced).toBeNull()
          return
        }
        expect(priced).not.toBeNull()
        const { priceCents, lines } = priced!
        expect(lines.map((l) => l.bookId)).toEqual(toBuy.map((b) => b.bookId))
        expect(lines.reduce((t, l) => t + l.listCents, 0)).toBe(priceCents)
        expect(lines.every((l) => Number.isInteger(l.listCents) && l.listCents >= 0)).toBe(true)
        expect(priceCents).toBeLessThanOrEqual(bundlePrice)
        const rest = toBuy.reduce((t, b) => t + b.listCents, 0)
        if (books.some((b) => b.listCents > 0)) expect(priceCents).toBeLessThanOrEqual(rest)
      }),
    )
  })

  test('owning one more book never makes the bundle dearer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500_000 }), bundleBooks, fc.nat(), (bundlePrice, books, pick) => {
        const before = priceBundle(bundlePrice, books)
        const unowned = books.flatMap((b, index) => (b.owned ? [] : [index]))
        if (unowned.length === 0) return
        const index = unowned[pick % unowned.length]!
        const after = priceBundle(
          bundlePrice,
          books.map((b, i) => (i === index ? { ...b, owned: true } : b)),
        )
        if (after) expect(after.priceCents).toBeLessThanOrEqual(before!.priceCents)
      }),
    )
  })

  test('a share is within a cent of its exact proportion', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 12 }),
        (amount, weights) => {
          const shares = shareInProportion(amount, weights)
          const total = weights.reduce((t, w) => t + w, 0)
          expect(shares.reduce((t, s) => t + s, 0)).toBe(amount)
          shares.forEach((share, i) =>
            expect(Math.abs(share - (amount * weights[i]!) / total)).toBeLessThan(1),
          )
        },
      ),
    )
  })
})
