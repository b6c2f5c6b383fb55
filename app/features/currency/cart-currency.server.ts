import type { BookLine } from '#app/features/cart/book-line.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { listBookPricesIn } from './book-prices.server.ts'
import { booksToLookUp, linesInCurrency } from './lines-in-currency.ts'

/**
 * A cart's (or a gift's) lines in the buyer's currency where every one has a price in it, else in their own
 * (lines-in-currency.ts): one query for the prices, none when the lines are in that currency already or one of
 * them can never be.
 */
export async function priceInCurrency<Line extends BookLine>(
  db: Db | Transaction,
  lines: readonly Line[],
  wanted: string,
) {
  const lookUp = booksToLookUp(lines, wanted)
  const prices = lookUp.length > 0 ? await listBookPricesIn(db, lookUp, wanted) : new Map<string, number>()
  return linesInCurrency(lines, wanted, prices)
}
