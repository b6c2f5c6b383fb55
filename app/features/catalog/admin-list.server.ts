import { and, asc, desc, sql, type SQL } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'

import { ADMIN_PAGE_SIZE, ADMIN_QUERY_MAX, type AdminSort } from './admin-list.ts'
import { escapeLike } from '#app/server/db/like.server.ts'

export type AdminBookRow = {
  id: string
  slug: string
  title: string
  author: string
  status: 'draft' | 'published' | 'archived'
  priceCents: number
  currency: string
  featured: boolean
  bestSeller: boolean
  createdAt: Date
}

type SortKey = {
  /** The columns of the order, the same direction each, as the index 0009 made for it has them. */
  columns: SQL[]
  direction: 'asc' | 'desc'
  /** Types to cast the cursor's text values back to. */
  casts: string[]
}

const sortKeys: Record<AdminSort, SortKey> = {
  title: { columns: [sql`${books.title}`, sql`${books.id}`], direction: 'asc', casts: ['text', 'uuid'] },
  newest: {
    columns: [sql`${books.createdAt}`, sql`${books.id}`],
    direction: 'desc',
    casts: ['timestamptz', 'uuid'],
  },
  price: { columns: [sql`${books.priceCents}`, sql`${books.id}`], direction: 'asc', casts: ['int4', 'uuid'] },
  status: {
    columns: [sql`${books.status}`, sql`${books.createdAt}`, sql`${books.id}`],
    direction: 'asc',
    casts: ['text', 'timestamptz', 'uuid'],
  },
}

/** The search expression exactly as drizzle/0010's trigram index has it. */
const searchable = sql`lower(${books.title} || ' ' || ${books.author} || ' ' || ${books.slug})`

/**
 * Three characters or more: anywhere in the title, author or slug (the trigram index). One or two match the
 * start of a title only (the title prefix index of 0002): trigrams cannot narrow them, and a scan of every
 * book for 'zz' costs a third of a second at 100,000 books.
 */
function matching(q: string): SQL {
  const escaped = escapeLike(q)
  return Array.from(q).length >= 3
    ? sql`${searchable} like ${`%${escaped}%`}`
    : sql`lower(${books.title}) like ${`${escaped}%`}`
}

/**
 * One page of every book (drafts and archived too) for the back office, by keyset: `after` is the last row's
 * sort key from the previous page, so the 2,000th page costs what the first does. `q` finds a substring of
 * the title, author or slug in any case, through a trigram index.
 */
export async function listAdminBooks(
  db: Db,
  options: { q?: string; sort?: AdminSort; after?: string | null; limit?: number } = {},
): Promise<{ rows: AdminBookRow[]; next: string | null }> {
  const sort = sortKeys[options.sort ?? 'title']
  const limit = options.limit ?? ADMIN_PAGE_SIZE
  const q = (options.q ?? '').trim().toLowerCase().slice(0, ADMIN_QUERY_MAX)
  const cursor = decodeCursor(options.after, sort.casts)
  const compare = sort.direction === 'asc' ? sql`>` : sql`<`
  const order = sort.direction === 'asc' ? asc : desc
  const rows = await db
    .select({
      id: books.id,
      slug: books.slug,
      title: books.title,
      author: books.author,
      status: books.status,
      priceCents: books.priceCents,
      currency: books.currency,
      featured: books.featured,
      bestSeller: books.bestSeller,
      createdAt: books.createdAt,
      // The sort key as text: timestamps keep their microseconds, which a JavaScript Date would drop.
      key: sql<string[]>`array[${sql.join(
        sort.columns.map((column) => sql`${column}::text`),
        sql`, `,
      )}]`,
    })
    .from(books)
    .where(
      and(
        q ? matching(q) : undefined,
        cursor
          ? sql`(${sql.join(sort.columns, sql`, `)}) ${compare} (${sql.join(
              cursor.map((value, index) => sql`${value}::${sql.raw(sort.casts[index]!)}`),
              sql`, `,
            )})`
          : undefined,
      ),
    )
    .orderBy(...sort.columns.map((column) => order(column)))
    .limit(limit + 1)
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  return {
    rows: page.map(({ key: _key, ...row }) => row),
    next: more ? encodeCursor(page[page.length - 1]!.key) : null,
  }
}

function encodeCursor(key: string[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url')
}

/** What each cast accepts: a value that would not cast would be a database error, a 500. */
const castPatterns: Record<string, RegExp> = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  timestamptz: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/,
  int4: /^\d{1,9}$/,
  text: /^[\s\S]{0,300}$/,
}

/** The cursor's values, or null for a missing or malformed one (the first page is shown then). */
function decodeCursor(raw: string | null | undefined, casts: string[]): string[] | null {
  if (!raw || raw.length > 2000) return null
  try {
    const key: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString())
    if (!Array.isArray(key) || key.length !== casts.length) return null
    const valid = key.every(
      (value, index) => typeof value === 'string' && castPatterns[casts[index]!]!.test(value),
    )
    return valid ? (key as string[]) : null
  } catch {
    return null
  }
}
