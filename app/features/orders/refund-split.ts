import { shareInProportion } from '#app/features/pricing/share.ts'
import type { RefundLine } from '#app/server/db/schema/orders.server.ts'

/**
 * What a refund gives back of each line of an order (issue 31), in integer cents. The rules:
 * 1. What is left of a line is what it was paid (its net, tax and gross, as checkout stored them) less what the
 *    order's refunds gave back of it, counting those confirmed and those still waiting on the provider.
 * 2. A line refund gives back the whole of what is left of each line chosen: its net and tax exactly.
 * 3. An amount is spread over the lines in proportion to what is left of each (gross), in whole cents that add
 *    up to the amount: the whole cents first, then a cent each to the largest remainders, the earlier line on
 *    a tie (pricing's `shareInProportion`, as a coupon is spread). No line gets more than it has left.
 * 4. A line's part is split into tax and net in proportion to what is left of the line's own tax and net: its
 *    tax is part × tax left / gross left, rounded to the nearest cent (halves up), and its net the rest. So the
 *    tax never exceeds the tax left nor the net the net left, and the refund that takes the rest of a line takes
 *    exactly its tax and net: a line refunded in several goes ends up refunded to the cent, as its credit notes
 *    add up to its invoice line. A line taxed at 0 (reverse charge) gives back net only.
 * 5. 'Everything' is every line's rest (rule 2 for all of them).
 * Nothing is ever more than what is left, of a line or of the order.
 */

export type OrderLine = { bookId: string; netCents: number; taxCents: number; grossCents: number }

export type RefundAsk =
  { kind: 'everything' } | { kind: 'lines'; bookIds: readonly string[] } | { kind: 'amount'; cents: number }

export type RefundSplit =
  | { ok: true; lines: RefundLine[]; netCents: number; taxCents: number; amountCents: number }
  | {
      ok: false
      problem: 'nothing-left' | 'no-lines' | 'unknown-line' | 'line-refunded' | 'bad-amount' | 'over'
      /** What is left of the order (gross), for the message. */
      leftCents: number
    }

/** Each line as it stands after `refunds` (rule 1): what is left of its net, tax and gross. */
export function linesLeft(
  lines: readonly OrderLine[],
  refunds: readonly (readonly RefundLine[])[],
): OrderLine[] {
  const left = new Map(lines.map((line) => [line.bookId, { ...line }]))
  for (const refund of refunds)
    for (const part of refund) {
      const line = left.get(part.bookId)
      if (!line) continue
      line.netCents -= part.netCents
      line.taxCents -= part.taxCents
      line.grossCents -= part.grossCents
    }
  return [...left.values()]
}

/** What refunding `ask` gives back of each line, from what is left of them (`linesLeft`). */
export function splitRefund(left: readonly OrderLine[], ask: RefundAsk): RefundSplit {
  const leftCents = left.reduce((sum, line) => sum + line.grossCents, 0)
  const refused = (problem: Extract<RefundSplit, { ok: false }>['problem']): RefundSplit => ({
    ok: false,
    problem,
    leftCents,
  })
  if (leftCents <= 0) return refused('nothing-left')
  let parts: RefundLine[]
  if (ask.kind === 'everything') parts = left.map((line) => partOfLine(line, line.grossCents))
  else if (ask.kind === 'lines') {
    if (ask.bookIds.length === 0) return refused('no-lines')
    const chosen = new Set(ask.bookIds)
    if ([...chosen].some((bookId) => !left.some((line) => line.bookId === bookId)))
      return refused('unknown-line')
    const lines = left.filter((line) => chosen.has(line.bookId))
    if (lines.some((line) => line.grossCents <= 0)) return refused('line-refunded')
    parts = lines.map((line) => partOfLine(line, line.grossCents))
  } else {
    if (!Number.isSafeInteger(ask.cents) || ask.cents <= 0) return refused('bad-amount')
    if (ask.cents > leftCents) return refused('over')
    const shares = shareInProportion(
      ask.cents,
      left.map((line) => Math.max(line.grossCents, 0)),
    )
    parts = left.map((line, index) => partOfLine(line, shares[index]!))
  }
  const lines = parts.filter((part) => part.grossCents > 0)
  const sum = (pick: (part: RefundLine) => number) => lines.reduce((total, part) => total + pick(part), 0)
  return {
    ok: true,
    lines,
    netCents: sum((part) => part.netCents),
    taxCents: sum((part) => part.taxCents),
    amountCents: sum((part) => part.grossCents),
  }
}

/** `grossCents` of what is left of `line`, split into tax and net (rule 4). */
export function partOfLine(line: OrderLine, grossCents: number): RefundLine {
  if (grossCents <= 0 || line.grossCents <= 0)
    return { bookId: line.bookId, netCents: 0, taxCents: 0, grossCents: 0 }
  const taxCents = Math.floor((2 * grossCents * line.taxCents + line.grossCents) / (2 * line.grossCents))
  return { bookId: line.bookId, netCents: grossCents - taxCents, taxCents, grossCents }
}
