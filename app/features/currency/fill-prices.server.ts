import { and, count, eq, sql } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { bookPrices, books } from '#app/server/db/schema/index.server.ts'

/**
 * The back office's bulk fill (decision 040): every book priced in the base currency gets a price in another
 * offered currency at a rate the owner types (never fetched), rounded as shops write prices (`priceAtRate`:
 * 17.99, not 17.48). Prices already set are kept unless the owner asks to replace them. One statement for the
 * whole catalogue, audited as one entry.
 */
export type FillPricesInput = { currency: string; rate: number; replace: boolean }

export type FillPricesForm =
  | { ok: true; input: FillPricesInput }
  | { ok: false; errors: Partial<Record<'currency' | 'rate', string>>; values: Record<string, string> }

/** The rate is typed as a decimal (0.92), at most 6 places, between 0.0001 and 10,000. */
export function readFillPricesForm(form: FormData, offered: readonly string[]): FillPricesForm {
  const values = {
    currency: String(form.get('currency') ?? ''),
    rate: String(form.get('rate') ?? '').trim(),
    replace: form.get('replace') === 'on' ? 'on' : '',
  }
  const errors: Partial<Record<'currency' | 'rate', string>> = {}
  if (!offered.slice(1).includes(values.currency))
    errors.currency = 'Please choose one of the currencies the store offers besides its own.'
  const rate = Number(values.rate)
  if (values.rate === '') errors.rate = 'Please enter the rate, like 0.92.'
  else if (!/^\d{1,5}(\.\d{1,6})?$/.test(values.rate) || !(rate >= 0.0001 && rate <= 10_000))
    errors.rate = 'The rate is a number like 0.92: what one unit of the base currency is worth.'
  if (Object.keys(errors).length > 0) return { ok: false, errors, values }
  return { ok: true, input: { currency: values.currency, rate, replace: values.replace === 'on' } }
}

export async function fillPricesAtRate(
  db: Db,
  actor: Actor,
  base: string,
  input: FillPricesInput,
): Promise<{ filled: number; kept: number }> {
  return db.transaction(async (tx) => {
    const rate = input.rate.toFixed(6)
    const filled = await tx
      .insert(bookPrices)
      .select(
        tx
          .select({
            bookId: books.id,
            currency: sql`${input.currency}::text`.as('currency'),
            priceCents: sql<number>`case when ${books.priceCents} = 0 then 0
              else greatest(1, round(${books.priceCents} * ${rate}::numeric / 100)) * 100 - 1 end`.as(
              'price_cents',
            ),
          })
          .from(books)
          .where(eq(books.currency, base)),
      )
      .onConflictDoUpdate({
        target: [bookPrices.bookId, bookPrices.currency],
        set: { priceCents: sql`excluded.price_cents` },
        // Without `replace`, a price the owner set is theirs: only books without one are filled.
        setWhere: input.replace ? undefined : sql`false`,
      })
      .returning({ bookId: bookPrices.bookId })
    const [all] = await tx
      .select({ books: count() })
      .from(books)
      .where(and(eq(books.currency, base)))
    const result = { filled: filled.length, kept: (all?.books ?? 0) - filled.length }
    await recordAudit(tx, {
      actor,
      action: 'book-prices.fill',
      entityType: 'book-prices',
      entityId: input.currency,
      after: { from: base, ...input, ...result },
    })
    return result
  })
}
