import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { linesLeft, splitRefund, type OrderLine, type RefundAsk } from './refund-split.ts'

/** A line as checkout stores it: 19 % VAT included in 11.90 is 1.90 tax on 10.00 net. */
const line = (bookId: string, grossCents: number, taxCents: number): OrderLine => ({
  bookId,
  netCents: grossCents - taxCents,
  taxCents,
  grossCents,
})

describe('the rules, by example', () => {
  test('a line refund gives back the whole line, its net and tax exactly', () => {
    const lines = [line('a', 1190, 190), line('b', 2140, 140)]
    expect(splitRefund(lines, { kind: 'lines', bookIds: ['b'] })).toEqual({
      ok: true,
      lines: [{ bookId: 'b', netCents: 2000, taxCents: 140, grossCents: 2140 }],
      netCents: 2000,
      taxCents: 140,
      amountCents: 2140,
    })
  })

  test('an amount is spread in proportion to what is left, tax in proportion to each line’s own', () => {
    // 10.00 over 11.90 and 23.80 left: 3.33 and 6.67 (the larger remainder gets the cent).
    const split = splitRefund([line('a', 1190, 190), line('b', 2380, 380)], { kind: 'amount', cents: 1000 })
    expect(split).toMatchObject({
      ok: true,
      lines: [
        // 333 × 190 / 1190 = 53.17 → 53; 667 × 380 / 2380 = 106.49 → 106.
        { bookId: 'a', grossCents: 333, taxCents: 53, netCents: 280 },
        { bookId: 'b', grossCents: 667, taxCents: 106, netCents: 561 },
      ],
      amountCents: 1000,
    })
  })

  test('the refund that takes the rest of a line takes exactly its tax and net', () => {
    const lines = [line('a', 1190, 190)]
    const first = splitRefund(lines, { kind: 'amount', cents: 1 })
    if (!first.ok) throw new Error('refused')
    expect(first.lines).toEqual([{ bookId: 'a', netCents: 1, taxCents: 0, grossCents: 1 }])
    const rest = splitRefund(linesLeft(lines, [first.lines]), { kind: 'everything' })
    expect(rest).toMatchObject({ ok: true, lines: [{ netCents: 999, taxCents: 190, grossCents: 1189 }] })
  })

  test('tax rounds to the nearest cent, halves up', () => {
    // 5 × 10 / 20 = 2.5 → 3.
    expect(splitRefund([line('a', 20, 10)], { kind: 'amount', cents: 5 })).toMatchObject({
      ok: true,
      lines: [{ taxCents: 3, netCents: 2 }],
    })
  })

  test('a reverse-charged line gives back net only', () => {
    const split = splitRefund([line('a', 2000, 0)], { kind: 'amount', cents: 555 })
    expect(split).toMatchObject({ ok: true, lines: [{ netCents: 555, taxCents: 0, grossCents: 555 }] })
  })

  test('refusals: nothing left, more than left, no or unknown or refunded lines, not whole cents', () => {
    const lines = [line('a', 1000, 0), line('b', 500, 0)]
    const afterA = linesLeft(lines, [[{ bookId: 'a', netCents: 1000, taxCents: 0, grossCents: 1000 }]])
    const cases: [readonly OrderLine[], RefundAsk, string][] = [
      [linesLeft(lines, [lines]), { kind: 'everything' }, 'nothing-left'],
      [afterA, { kind: 'amount', cents: 501 }, 'over'],
      [lines, { kind: 'amount', cents: 0 }, 'bad-amount'],
      [lines, { kind: 'amount', cents: -5 }, 'bad-amount'],
      [lines, { kind: 'amount', cents: 1.5 }, 'bad-amount'],
      [lines, { kind: 'lines', bookIds: [] }, 'no-lines'],
      [lines, { kind: 'lines', bookIds: ['a', 'z'] }, 'unknown-line'],
      [afterA, { kind: 'lines', bookIds: ['a'] }, 'line-refunded'],
    ]
    for (const [left, ask, problem] of cases)
      expect(splitRefund(left, ask)).toMatchObject({ ok: false, problem })
    expect(splitRefund(afterA, { kind: 'amount', cents: 501 })).toMatchObject({ leftCents: 500 })
  })
})

/** Lines as checkout makes them: a gross and a tax of it at a rate between 0 and 27 %, included. */
const orderLines = fc
  .array(
    fc.record({
      grossCents: fc.integer({ min: 0, max: 200_000 }),
      rateBp: fc.constantFrom(0, 500, 700, 1900, 2000, 2700),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((drawn) =>
    drawn.map(({ grossCents, rateBp }, index) =>
      line(`book-${index}`, grossCents, Math.round((grossCents * rateBp) / (10_000 + rateBp))),
    ),
  )

/** A few refunds in a row: lines (by index) or an amount (a fraction of what is left), or everything. */
const asks = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('lines' as const),
      picks: fc.array(fc.nat(5), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constant('amount' as const),
      fraction: fc.double({ min: 0, max: 1.2, noNaN: true }),
    }),
    fc.record({ kind: fc.constant('everything' as const) }),
  ),
  { minLength: 1, maxLength: 8 },
)

describe('the rules, for any order and any refunds', () => {
  test('every refund adds up, never takes more than is left, and refunding everything ends at exactly 0', () => {
    fc.assert(
      fc.property(orderLines, asks, (lines, steps) => {
        const refunds: ReturnType<typeof linesLeft>[] = []
        for (const step of steps) {
          const left = linesLeft(lines, refunds)
          const leftCents = left.reduce((sum, l) => sum + l.grossCents, 0)
          const ask: RefundAsk =
            step.kind === 'lines'
              ? {
                  kind: 'lines',
                  bookIds: [...new Set(step.picks.filter((i) => i < lines.length).map((i) => `book-${i}`))],
                }
              : step.kind === 'amount'
                ? { kind: 'amount', cents: Math.floor(leftCents * step.fraction) }
                : step
          const split = splitRefund(left, ask)
          if (!split.ok) {
            // Refused only for what the rules refuse.
            if (leftCents === 0) expect(split.problem).toBe('nothing-left')
            if (ask.kind === 'amount' && ask.cents > leftCents && leftCents > 0)
              expect(split.problem).toBe('over')
            continue
          }
          // The parts add up, each is whole and positive, and no line gives back more than it has left.
          expect(split.amountCents).toBe(split.netCents + split.taxCents)
          if (ask.kind === 'amount') expect(split.amountCents).toBe(ask.cents)
          for (const part of split.lines) {
            const rest = left.find((l) => l.bookId === part.bookId)!
            expect(part.grossCents).toBeGreaterThan(0)
            expect(part.netCents + part.taxCents).toBe(part.grossCents)
            expect(part.netCents).toBeGreaterThanOrEqual(0)
            expect(part.taxCents).toBeGreaterThanOrEqual(0)
            expect(part.netCents).toBeLessThanOrEqual(rest.netCents)
            expect(part.taxCents).toBeLessThanOrEqual(rest.taxCents)
            // A whole line (or the rest of it) is its net and tax exactly.
            if (part.grossCents === rest.grossCents) expect(part).toEqual(rest)
            // An amount's share is within a cent of its exact proportion.
            if (ask.kind === 'amount')
              expect(Math.abs(part.grossCents - (ask.cents * rest.grossCents) / leftCents)).toBeLessThan(1)
          }
          if (ask.kind === 'lines')
            expect(split.lines.map((part) => part.bookId).toSorted()).toEqual(
              left
                .filter((l) => ask.bookIds.includes(l.bookId) && l.grossCents > 0)
                .map((l) => l.bookId)
                .toSorted(),
            )
          refunds.push(split.lines)
        }
        // Whatever came before, refunding everything left brings every line to exactly 0 net, 0 tax.
        const last = splitRefund(linesLeft(lines, refunds), { kind: 'everything' })
        if (last.ok) refunds.push(last.lines)
        for (const rest of linesLeft(lines, refunds))
          expect(rest).toMatchObject({ netCents: 0, taxCents: 0, grossCents: 0 })
      }),
      { numRuns: 500 },
    )
  })
})
