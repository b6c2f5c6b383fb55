import { sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, orderItems, orders } from '#app/server/db/schema/index.server.ts'
import type { CoverVariants } from './cover-image.ts'

export type AlsoBoughtBook = {
  id: string
  slug: string
  title: string
  author: string
  priceCents: number
  currency: string
  coverPath: string
  coverAlt: string
  cover: CoverVariants | null
  /** In how many of the sampled paid orders it was bought with the book. */
  together: number
}

type Row = {
  id: string
  slug: string
  title: string
  author: string
  price_cents: number
  currency: string
  cover_path: string
  cover_alt: string
  cover: CoverVariants | null
  together: number
}

/** How many of a book's paid orders 'Readers also bought' looks into: the cost of a page, whatever the sales. */
export const alsoBoughtOrderSample = 2_000

/**
 * 'Readers also bought': the published books bought in the same paid orders as `bookId`, most often first
 * (then by title), at most `limit`, never the book itself. It reads at most {@link alsoBoughtOrderSample} of
 * the book's orders (order_items by book through its index, orders by key), then their other lines (by the
 * order_items key), so a best seller with a million orders costs the same as one with a thousand. The sample is
 * the first orders in the index's order, not the newest: sorting a best seller's orders by date would cost what
 * the bound saves. A visitor's page is served from the shared page cache; a signed-in reader's runs this query.
 */
export async function listAlsoBought(db: Db, bookId: string, limit = 4): Promise<AlsoBoughtBook[]> {
  const result = (await db.execute(sql`
    with bought as (
      select ${orderItems.orderId} as order_id
      from ${orderItems}
      join ${orders} on ${orders.id} = ${orderItems.orderId} and ${orders.status} = 'paid'
      where ${orderItems.bookId} = ${bookId}
      limit ${alsoBoughtOrderSample}
    )
    select ${books.id} as id, ${books.slug} as slug, ${books.title} as title, ${books.author} as author,
      ${books.priceCents} as price_cents, ${books.currency} as currency, ${books.coverPath} as cover_path,
      ${books.coverAlt} as cover_alt, ${books.cover} as cover, count(*)::int as together
    from bought
    join ${orderItems} on ${orderItems.orderId} = bought.order_id and ${orderItems.bookId} <> ${bookId}
    join ${books} on ${books.id} = ${orderItems.bookId} and ${books.status} = 'published'
    group by ${books.id}
    order by together desc, ${books.title}, ${books.id}
    limit ${limit}
  `)) as { rows: Row[] }
  return result.rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    title: row.title,
    author: row.author,
    priceCents: row.price_cents,
    currency: row.currency,
    coverPath: row.cover_path,
    coverAlt: row.cover_alt,
    cover: row.cover,
    together: row.together,
  }))
}
