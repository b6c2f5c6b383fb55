import type { BookLine } from '#app/features/cart/book-line.ts'
import type { CartBundleRow } from '#app/features/cart/cart-bundles.server.ts'
import { priceBundle } from './bundle-price.ts'

/**
 * The bundles on a cart as lines to price (issue 30): each bundle's books that the buyer does not own yet, each
 * at its share of what the bundle costs them (`priceBundle`). A book an earlier line of the cart already
 * brings (a book of its own, or another bundle's) counts as owned here, so no book is sold twice in one order.
 */
export type BundleLines = {
  lines: BookLine[]
  /** Bundles switched off or with a book out of the store since they were put in the cart: not sold. */
  unavailable: BookLine[]
  /** Bundles whose every book the buyer owns or gets with another line: nothing left to pay for. */
  covered: BookLine[]
}

export function bundleLinesOf(
  /** Each book marked owned or not by the buyer. */
  rows: readonly CartBundleRow[],
  /** The books the cart's own lines bring. */
  inCart: ReadonlySet<string>,
): BundleLines {
  const result: BundleLines = { lines: [], unavailable: [], covered: [] }
  const coming = new Set(inCart)
  for (const group of groupByBundle(rows)) {
    const [first] = group
    const owned = new Set(group.filter((row) => row.book.owned).map((row) => row.book.bookId))
    const mine = (bookId: string) => owned.has(bookId) || coming.has(bookId)
    const bundle = {
      id: first!.bundleId,
      slug: first!.bundleSlug,
      title: first!.bundleTitle,
      bookCount: group.length,
      ownedCount: owned.size,
    }
    // The bundle as one line, for the lists of what is not sold: its first book's cover, its own title.
    const whole: BookLine = {
      ...lineOf(first!),
      title: bundle.title,
      priceCents: first!.bundlePriceCents,
      bundle,
    }
    if (!first!.bundleActive || group.some((row) => !row.book.available)) {
      result.unavailable.push(whole)
      continue
    }
    const priced = priceBundle(
      first!.bundlePriceCents,
      group.map((row) => ({
        bookId: row.book.bookId,
        listCents: row.book.priceCents,
        owned: mine(row.book.bookId),
      })),
    )
    if (!priced) {
      result.covered.push(whole)
      continue
    }
    for (const { bookId, listCents } of priced.lines) {
      const row = group.find((candidate) => candidate.book.bookId === bookId)!
      result.lines.push({ ...lineOf(row), priceCents: listCents, currency: first!.bundleCurrency, bundle })
      coming.add(bookId)
    }
  }
  return result
}

function lineOf(row: CartBundleRow): BookLine {
  const { bookId, slug, title, coverPath, priceCents, currency } = row.book
  return { bookId, slug, title, coverPath, priceCents, currency }
}

function groupByBundle(rows: readonly CartBundleRow[]): CartBundleRow[][] {
  const groups = new Map<string, CartBundleRow[]>()
  for (const row of rows) groups.set(row.bundleId, [...(groups.get(row.bundleId) ?? []), row])
  return [...groups.values()]
}
