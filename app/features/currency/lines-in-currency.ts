import type { BookLine } from '#app/features/cart/book-line.ts'
import type { CurrencyFallback } from './currencies.ts'

/**
 * A cart is paid in one currency (decision 040): the buyer's, if every line has a price in it; otherwise every
 * line stays at its own price in its own currency (the base), and the cart says which books made it so. Never
 * some lines in one and the rest in another: the checkout would refuse the mix.
 *
 * A line has a price in `wanted` when it is in it already, or its book has one set (`prices`) — unless the line
 * is a bundle's share (a bundle has one price, in its own currency) or an amount its reader chose (pay what you
 * want: typed in the book's own currency on its page).
 */
export function linesInCurrency<Line extends BookLine>(
  lines: readonly Line[],
  wanted: string,
  prices: ReadonlyMap<string, number>,
): { lines: Line[]; fallback: CurrencyFallback | null } {
  const priceIn = (line: Line): number | undefined =>
    line.currency === wanted
      ? line.priceCents
      : line.bundle || line.amountChosen
        ? undefined
        : prices.get(line.bookId)
  const missing = lines.filter((line) => priceIn(line) === undefined)
  if (missing.length === 0)
    return {
      lines: lines.map((line) => ({ ...line, priceCents: priceIn(line)!, currency: wanted })),
      fallback: null,
    }
  const titles = [...new Set(missing.map((line) => line.bundle?.title ?? line.title))]
  return { lines: [...lines], fallback: { wanted, titles } }
}

/** The books whose price in `wanted` the rule needs to know (none if some line can never have one). */
export function booksToLookUp(lines: readonly BookLine[], wanted: string): string[] {
  const others = lines.filter((line) => line.currency !== wanted)
  if (others.some((line) => line.bundle || line.amountChosen)) return []
  return others.map((line) => line.bookId)
}
