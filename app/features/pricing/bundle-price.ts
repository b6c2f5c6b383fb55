import { shareInProportion } from './share.ts'

/**
 * What a reader pays for a bundle, and how that price is spread over its books (decision 033, "Bundles"):
 *
 * 1. A reader who owns none of its books pays the bundle's price — or the sum of its books' prices, if that is
 *    less (a book made cheaper since the bundle was priced).
 * 2. A reader who owns some pays for the rest only: the bundle's price times the share of the books' list
 *    prices they do not own, rounded to the nearest cent, halves up, and never more than those books cost on
 *    their own. (A $30 bundle of books at $20, $15 and $15: owning the $20 one, pay 30 × 30 / 50 = $18.)
 *    If every book is free on its own, the share is by the number of books.
 * 3. A reader who owns them all cannot buy it (null).
 * 4. The price is spread over the books they do not own in proportion to their list prices
 *    (`shareInProportion`): each book's share is its line's list price in `price-cart.ts`, so a coupon, the
 *    order's lines, refunds and revenue by bundle all read whole cents that add up to the bundle's price.
 */
export type BundleBook = { bookId: string; listCents: number; owned: boolean }

export type PricedBundle = {
  priceCents: number
  /** The books to buy (those not owned), each with its share of the price. */
  lines: { bookId: string; listCents: number }[]
}

export function priceBundle(bundlePriceCents: number, books: readonly BundleBook[]): PricedBundle | null {
  const toBuy = books.filter((book) => !book.owned)
  if (toBuy.length === 0) return null
  const sum = (of: readonly BundleBook[]) => of.reduce((total, book) => total + book.listCents, 0)
  const full = sum(books)
  const rest = sum(toBuy)
  const bundle = Math.max(0, bundlePriceCents)
  let priceCents: number
  if (toBuy.length === books.length) priceCents = Math.min(bundle, full)
  else if (full > 0) priceCents = Math.min(rest, Math.floor((bundle * rest * 2 + full) / (full * 2)))
  else priceCents = Math.floor((bundle * toBuy.length * 2 + books.length) / (books.length * 2))
  const shares = shareInProportion(
    priceCents,
    toBuy.map((book) => book.listCents),
  )
  return {
    priceCents,
    lines: toBuy.map((book, index) => ({ bookId: book.bookId, listCents: shares[index]! })),
  }
}
