import { eq, inArray, sql } from 'drizzle-orm'
import { bookFiles, books } from '#app/server/db/schema.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { CATALOG_FORMATS, CATALOG_LEVELS, PRICE_RANGES, type CatalogSort } from './facets.ts'
import { shownRating } from './rating.ts'

/**
 * The facet index: what filtering, counting and sorting need of every published book (no text), in typed
 * arrays indexed by the book's position, plus each sort's order as a permutation of positions. One pass over
 * it filters and counts every facet at once in a few milliseconds at 100,000 books, where PostgreSQL needs a
 * grouped scan per facet (docs/decisions/019 has the measurements). It is read from the database at most once
 * per TTL per database (like catalog-cache.server.ts), reloaded in the background when stale.
 */
export type FacetIndex = {
  size: number
  ids: string[]
  position: Map<string, number>
  /** Topic slugs, alphabetical; books' topics are indexes into it. */
  topics: string[]
  topicPosition: Map<string, number>
  /** Each book's topics: bookTopics[topicStart[i] .. topicStart[i + 1]). */
  topicStart: Int32Array
  bookTopics: Uint16Array
  /** 0 none, else 1 + the index in CATALOG_LEVELS. */
  level: Uint8Array
  /** The index in PRICE_RANGES. */
  priceBand: Uint8Array
  /** The shown rating (rating.ts) × 10. */
  rating10: Uint8Array
  /** Bit i: sold as CATALOG_FORMATS[i]. */
  formats: Uint8Array
  orders: Record<CatalogSort, Int32Array>
  loadedAt: number
}

export async function loadFacetIndex(db: Db): Promise<FacetIndex> {
  // The formats are the sold files' (book_files has one row per book and format).
  const sold = db
    .select({
      bookId: bookFiles.bookId,
      formats: sql<string[]>`array_agg(${bookFiles.format})`.as('formats'),
    })
    .from(bookFiles)
    .where(inArray(bookFiles.format, ['pdf', 'epub']))
    .groupBy(bookFiles.bookId)
    .as('sold')
  const rows = await db
    .select({
      id: books.id,
      topics: books.topics,
      level: books.level,
      priceCents: books.priceCents,
      rating: books.rating,
      ratingCount: books.ratingCount,
      ratingSum: books.ratingSum,
      featuredPosition: books.featuredPosition,
      bestSeller: books.bestSeller,
      salesCount: books.salesCount,
      createdAt: books.createdAt,
      formats: sold.formats,
    })
    .from(books)
    .leftJoin(sold, eq(sold.bookId, books.id))
    // What the store shows (catalog.server.ts isPublished, not imported: that module imports this one).
    .where(eq(books.status, 'published'))
  return buildFacetIndex(rows)
}

type Row = {
  id: string
  topics: string[]
  level: string | null
  priceCents: number
  rating: number
  ratingCount: number
  ratingSum: number
  featuredPosition: number | null
  bestSeller: boolean
  salesCount: number
  createdAt: Date
  formats: string[] | null
}

function buildFacetIndex(rows: Row[]): FacetIndex {
  const size = rows.length
  const topicSet = new Set<string>()
  let topicTotal = 0
  for (const row of rows) {
    for (const topic of row.topics) topicSet.add(topic)
    topicTotal += row.topics.length
  }
  const topics = [...topicSet].sort()
  const topicPosition = new Map(topics.map((topic, index) => [topic, index]))
  const index: FacetIndex = {
    size,
    ids: new Array<string>(size),
    position: new Map(),
    topics,
    topicPosition,
    topicStart: new Int32Array(size + 1),
    bookTopics: new Uint16Array(topicTotal),
    level: new Uint8Array(size),
    priceBand: new Uint8Array(size),
    rating10: new Uint8Array(size),
    formats: new Uint8Array(size),
    orders: {} as FacetIndex['orders'],
    loadedAt: Date.now(),
  }
  const price = new Int32Array(size)
  const sales = new Int32Array(size)
  const created = new Float64Array(size)
  const featured = new Int32Array(size)
  const bestSeller = new Uint8Array(size)
  const ratingCount = new Int32Array(size)
  let cursor = 0
  rows.forEach((row, i) => {
    index.ids[i] = row.id
    index.position.set(row.id, i)
    index.topicStart[i] = cursor
    // A book listing a topic twice counts once.
    for (const topic of new Set(row.topics)) index.bookTopics[cursor++] = topicPosition.get(topic)!
    index.level[i] = 1 + CATALOG_LEVELS.findIndex((level) => level.value === row.level)
    index.priceBand[i] = Math.max(
      0,
      PRICE_RANGES.findIndex((band) => row.priceCents >= band.min && row.priceCents < band.max),
    )
    const shown = shownRating({
      rating: row.rating,
      ratingCount: row.ratingCount,
      ratingSum: row.ratingSum,
    })
    index.rating10[i] = Math.round(shown.value * 10)
    index.formats[i] = CATALOG_FORMATS.reduce(
      (bits, format, bit) => ((row.formats ?? []).includes(format.value) ? bits | (1 << bit) : bits),
      0,
    )
    price[i] = row.priceCents
    sales[i] = row.salesCount
    created[i] = row.createdAt.getTime()
    featured[i] = row.featuredPosition ?? 0x7fffffff
    bestSeller[i] = row.bestSeller ? 1 : 0
    ratingCount[i] = row.ratingCount
  })
  index.topicStart[size] = cursor
  // A book listing a topic twice used fewer slots than counted.
  index.bookTopics = index.bookTopics.slice(0, cursor)

  // Ties always end in the catalogue's order (oldest first, then id), so every order is total: pages never
  // repeat or skip a book.
  const catalogueOrder = (a: number, b: number) =>
    created[a]! - created[b]! || (index.ids[a]! < index.ids[b]! ? -1 : 1)
  const relevance = (a: number, b: number) =>
    featured[a]! - featured[b]! ||
    bestSeller[b]! - bestSeller[a]! ||
    sales[b]! - sales[a]! ||
    catalogueOrder(a, b)
  const comparators: Record<CatalogSort, (a: number, b: number) => number> = {
    relevance,
    newest: (a, b) => created[b]! - created[a]! || catalogueOrder(a, b),
    'price-asc': (a, b) => price[a]! - price[b]! || relevance(a, b),
    'price-desc': (a, b) => price[b]! - price[a]! || relevance(a, b),
    rating: (a, b) =>
      index.rating10[b]! - index.rating10[a]! || ratingCount[b]! - ratingCount[a]! || relevance(a, b),
    'best-selling': (a, b) => sales[b]! - sales[a]! || relevance(a, b),
  }
  const identity = Int32Array.from({ length: size }, (_, i) => i)
  for (const [sort, compare] of Object.entries(comparators) as [CatalogSort, typeof relevance][])
    index.orders[sort] = identity.slice().sort(compare)
  return index
}

const TTL_MS = 10_000
type Entry = { index: Promise<FacetIndex>; at: number; refreshing?: Promise<FacetIndex> }
const entries = new WeakMap<Db, Entry>()

/**
 * The facet index of `db`. Within the TTL the one in memory; past it the one in memory still (a visitor never
 * waits for the reload), while a reload runs; the first call, or the first after invalidateFacetIndex, waits.
 */
export function readFacetIndex(db: Db): Promise<FacetIndex> {
  const entry = entries.get(db)
  if (!entry) {
    const index = Promise.resolve(loadFacetIndex(db))
    const fresh: Entry = { index, at: Date.now() }
    entries.set(db, fresh)
    // A failed load is not kept: the next request tries again.
    index.catch(() => {
      if (entries.get(db) === fresh) entries.delete(db)
    })
    return index
  }
  if (Date.now() - entry.at >= TTL_MS && !entry.refreshing) {
    const reload = Promise.resolve(loadFacetIndex(db))
    entry.refreshing = reload
    reload.then(
      () => {
        if (entries.get(db) !== entry) return
        entries.set(db, { index: reload, at: Date.now() })
      },
      // The stale index keeps serving; the next request past the TTL tries again.
      () => {
        entry.refreshing = undefined
      },
    )
  }
  return entry.index
}

/** A change made through this process (the back office, seeding) shows at once. */
export function invalidateFacetIndex(db: Db): void {
  entries.delete(db)
}
