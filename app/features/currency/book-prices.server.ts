import { and, eq, inArray } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { bookPrices } from '#app/server/db/schema/index.server.ts'

/**
 * A book's prices in other currencies than its own (decision 040): typed by the owner on the book's edit page,
 * never converted by the store. Read by the cart and the checkout for the buyer's currency.
 */

/** A book's prices by currency (only those set). */
export async function readBookPrices(db: Db | Transaction, bookId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ currency: bookPrices.currency, priceCents: bookPrices.priceCents })
    .from(bookPrices)
    .where(eq(bookPrices.bookId, bookId))
    .orderBy(bookPrices.currency)
  return Object.fromEntries(rows.map((row) => [row.currency, row.priceCents]))
}

/**
 * Sets a book's prices in the currencies of `prices` (null: not sold in it), inside the caller's transaction
 * (the book's save, audited with it). Currencies not named are left as they are: a currency the store stopped
 * offering keeps its prices for the day it offers it again.
 */
export async function writeBookPrices(
  tx: Transaction,
  bookId: string,
  prices: Readonly<Record<string, number | null>>,
): Promise<void> {
  const entries = Object.entries(prices)
  const cleared = entries.filter(([, cents]) => cents === null).map(([currency]) => currency)
  const set = entries.flatMap(([currency, priceCents]) =>
    priceCents === null ? [] : [{ bookId, currency, priceCents }],
  )
  if (cleared.length > 0)
    await tx
      .delete(bookPrices)
      .where(and(eq(bookPrices.bookId, bookId), inArray(bookPrices.currency, cleared)))
  for (const row of set)
    await tx
      .insert(bookPrices)
      .values(row)
      .onConflictDoUpdate({
        target: [bookPrices.bookId, bookPrices.currency],
        set: { priceCents: row.priceCents },
      })
}

/** The prices in `currency` of those of `bookIds` that have one. */
export async function listBookPricesIn(
  db: Db | Transaction,
  bookIds: readonly string[],
  currency: string,
): Promise<Map<string, number>> {
  if (bookIds.length === 0) return new Map()
  const rows = await db
    .select({ bookId: bookPrices.bookId, priceCents: bookPrices.priceCents })
    .from(bookPrices)
    .where(and(eq(bookPrices.currency, currency), inArray(bookPrices.bookId, [...bookIds])))
  return new Map(rows.map((row) => [row.bookId, row.priceCents]))
}
