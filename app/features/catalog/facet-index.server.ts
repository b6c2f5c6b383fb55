import { sql, type SQL } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { topics as topicTable } from '#app/server/db/schema/index.server.ts'
import { CATALOG_FORMATS, CATALOG_LEVELS, PRICE_RANGES, type CatalogSort } from './facets.ts'
import { shownRating } from './rating.ts'

/**
 * The facet index: what filtering, counting and sorting need of every published book (no text), in typed
 * arrays indexed by the book's position, plus each sort's order as a permutation of positions. One pass over
 * it filters and counts every facet at once in a few milliseconds at 100,000 books, where PostgreSQL needs a
 * grouped scan per facet (docs/decisions/019; the measurements: docs/measurements/019-faceted-catalogue.md).
 * It is read from the database at most once per TTL per database (like catalog-cache.server.ts), checked in the
 * background before it gets stale and reloaded when the catalogue changed.
 */
export type FacetIndex = {
  size: number
  ids: string[]
  position: Map<string, number>
  /** Topic slugs, alphabetical; books' topics are indexes into it. */
  topics: string[]
  /** Each topic's name, parallel to `topics`. */
  topicNames: string[]
  topicPosition: Map<string, number>
  /** Each book's topics: bookTopics[topicStart[i] .. topicStart[i + 1]). */
  topicStart: Int32Array
  bookTopics: Int32Array
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

/** Books read per statement: PGlite answers one statement at a time, so a visitor's query waits for one chunk at most. */
const CHUNK = 2_500

type Row = {
  id: string
  topics: string[]
  level: string
  priceCents: number
  rating: number
  ratingCount: number
  ratingSum: number
  featuredPosition: number | null
  bestSeller: boolean
  salesCount: number
  formats: string[]
}

/**
 * The published books in the catalogue's order (oldest first, then id), `size` at a time by keyset on the
 * (status, created_at, id) index, so that the embedded database's one connection is never held long: each
 * statement selects `columns` of a chunk (the CTE `chunk`, with `id` and `created_at`) and answers `summary`
 * over it as one row, yielded with how many books the chunk held.
 */
async function* publishedChunks<Summary>(
  db: Db,
  size: number,
  columns: SQL,
  summary: SQL,
): AsyncGenerator<Summary & { n: number }> {
  let after: { at: string; id: string } | null = null
  for (;;) {
    const keyset = after
      ? sql`and (b.created_at, b.id) > (${after.at}::timestamptz, ${after.id}::uuid)`
      : sql``
    const result = (await db.execute(sql`
      with chunk as materialized (
        select b.id, b.created_at, ${columns}
        from books b
        where b.status = 'published' ${keyset}
        order by b.created_at, b.id
        limit ${size}
      )
      select ${summary}, (select count(*) from chunk)::int as n,
        (select created_at::text from chunk order by created_at desc, id desc limit 1) as last_at,
        (select id::text from chunk order by created_at desc, id desc limit 1) as last_id`)) as {
      rows: (Summary & { n: number; last_at: string | null; last_id: string | null })[]
    }
    const [chunk] = result.rows
    if (!chunk || chunk.n === 0 || !chunk.last_at || !chunk.last_id) return
    yield chunk
    if (chunk.n < size) return
    after = { at: chunk.last_at, id: chunk.last_id }
  }
}

/**
 * Every published book's facets in the catalogue's order (oldest first, then id), CHUNK books a statement by
 * keyset on the (status, created_at, id) index. Each chunk comes back as one text value, a line per book:
 * PGlite spends far more per row returned than per byte (100,000 rows: 1.3 s; the same as one text: 0.2 s).
 */
async function readRows(db: Db): Promise<Row[]> {
  const rows: Row[] = []
  const chunks = publishedChunks<{ lines: string | null }>(
    db,
    CHUNK,
    sql`b.level, b.price_cents, b.rating, b.rating_count, b.rating_sum, b.featured_position,
      b.best_seller, b.sales_count`,
    sql`(select string_agg(concat_ws('|', c.id, coalesce(t.slugs, ''), coalesce(c.level, ''),
        c.price_cents, c.rating, c.rating_count, c.rating_sum, coalesce(c.featured_position, -1),
        c.best_seller::int, c.sales_count, coalesce(f.formats, '')), E'\n' order by c.created_at, c.id)
      from chunk c
      left join lateral (
        select string_agg(format, ' ') as formats from book_files
        where book_id = c.id and format in ('pdf', 'epub')
      ) f on true
      left join lateral (
        select string_agg(topics.slug, ' ' order by bt.position) as slugs
        from book_topics bt join topics on topics.id = bt.topic_id
        where bt.book_id = c.id
      ) t on true) as lines`,
  )
  for await (const chunk of chunks) {
    for (const line of chunk.lines?.split('\n') ?? []) {
      const [id, topics, level, price, rating, count, sum, featured, best, sales, formats] = line.split('|')
      rows.push({
        id: id!,
        topics: topics ? topics.split(' ') : [],
        level: level!,
        priceCents: Number(price),
        rating: Number(rating),
        ratingCount: Number(count),
        ratingSum: Number(sum),
        featuredPosition: featured === '-1' ? null : Number(featured),
        bestSeller: best === '1',
        salesCount: Number(sales),
        formats: formats ? formats.split(' ') : [],
      })
    }
  }
  return rows
}

export async function loadFacetIndex(db: Db): Promise<FacetIndex> {
  const rows = await readRows(db)
  const names = await db.select({ slug: topicTable.slug, name: topicTable.name }).from(topicTable)
  return buildFacetIndex(rows, new Map(names.map((topic) => [topic.slug, topic.name])))
}

/** Lets the requests waiting on this process run: the index is built in slices of a few milliseconds each. */
const yieldToRequests = () => new Promise((resolve) => setImmediate(resolve))
const SLICE = 5_000

async function buildFacetIndex(rows: Row[], names: Map<string, string>): Promise<FacetIndex> {
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
    // A topic renamed between the two reads shows its slug until the next load.
    topicNames: topics.map((slug) => names.get(slug) ?? slug),
    topicPosition,
    topicStart: new Int32Array(size + 1),
    bookTopics: new Int32Array(topicTotal),
    level: new Uint8Array(size),
    priceBand: new Uint8Array(size),
    rating10: new Uint8Array(size),
    formats: new Uint8Array(size),
    orders: {} as FacetIndex['orders'],
    loadedAt: Date.now(),
  }
  const price = new Float64Array(size)
  const sales = new Float64Array(size)
  const featured = new Float64Array(size)
  const bestSeller = new Uint8Array(size)
  const ratingCount = new Float64Array(size)
  let cursor = 0
  for (let i = 0; i < size; i++) {
    if (i % SLICE === SLICE - 1) await yieldToRequests()
    const row = rows[i]!
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
    index.rating10[i] = Math.round(shownRating(row).value * 10)
    index.formats[i] = CATALOG_FORMATS.reduce(
      (bits, format, bit) => (row.formats.includes(format.value) ? bits | (1 << bit) : bits),
      0,
    )
    price[i] = row.priceCents
    sales[i] = row.salesCount
    featured[i] = row.featuredPosition === null ? 1001 : Math.min(row.featuredPosition, 1000)
    bestSeller[i] = row.bestSeller ? 1 : 0
    ratingCount[i] = row.ratingCount
  }
  index.topicStart[size] = cursor
  // A book listing a topic twice used fewer slots than counted.
  index.bookTopics = index.bookTopics.slice(0, cursor)

  // Each order sorts one number per book (a typed array's own numeric sort: tens of milliseconds for all six,
  // where comparator functions took seconds), whose last digits (base `size`) are the tie-breaker's rank, so
  // every order is total and pages never repeat or skip a book. Positions are the catalogue's order (oldest
  // first, then id: readRows). Relevance without a query: the featured books in their order, then the best
  // sellers (the owner's flag), then the catalogue's order; sales are the best-selling sort's, left out of
  // relevance so that a purchase does not reorder the default list.
  const n = Math.max(1, size)
  const sortBy = async (key: (i: number) => number, tie: Int32Array | null) => {
    await yieldToRequests()
    const keys = new Float64Array(size)
    const rankOf = new Int32Array(size)
    if (tie) tie.forEach((i, rank) => (rankOf[i] = rank))
    for (let i = 0; i < size; i++) keys[i] = key(i) * n + (tie ? rankOf[i]! : i)
    keys.sort()
    const order = new Int32Array(size)
    for (let r = 0; r < size; r++) {
      const rank = keys[r]! % n
      order[r] = tie ? tie[rank]! : rank
    }
    return order
  }
  const relevance = await sortBy((i) => featured[i]! * 2 + (1 - bestSeller[i]!), null)
  const maxOf = (values: Float64Array) => values.reduce((max, value) => Math.max(max, value), 0)
  const maxPrice = maxOf(price)
  const maxSales = maxOf(sales)
  const maxCount = maxOf(ratingCount)
  index.orders = {
    relevance,
    newest: Int32Array.from({ length: size }, (_, r) => size - 1 - r),
    'price-asc': await sortBy((i) => price[i]!, relevance),
    'price-desc': await sortBy((i) => maxPrice - price[i]!, relevance),
    rating: await sortBy(
      (i) => (50 - index.rating10[i]!) * (maxCount + 1) + (maxCount - ratingCount[i]!),
      relevance,
    ),
    'best-selling': await sortBy((i) => maxSales - sales[i]!, relevance),
  }
  return index
}

/** An index is never older than this (counted from its load, or from the check that found the catalogue unchanged). */
const TTL_MS = 10_000
/** Past this age the next request starts a reload in the background: steady traffic never waits for one. */
const REFRESH_AFTER_MS = 7_000

/** `fingerprint`: what `catalogFingerprint` said just before the rows were read. */
type Loaded = { index: Promise<FacetIndex>; at: number; fingerprint: Promise<string> }
type Entry = { current: Loaded; next?: Loaded }
const entries = new WeakMap<Db, Entry>()

function startLoad(db: Db): Loaded {
  const fingerprint = catalogFingerprint(db)
  // Drizzle's queries are lazy thenables; this settles the load once into a real promise.
  return {
    at: Date.now(),
    fingerprint,
    index: fingerprint.then(() => loadFacetIndex(db)),
  }
}

/**
 * A hash of everything the index is built from: every published book's facet columns and the book files'
 * formats, summed chunk by chunk (FINGERPRINT_CHUNK books a statement, on the same keyset as the reload). About a sixth of a reload's cost
 * (bench:catalog prints both): when it has not changed since the index was read, the index is still exact and
 * is kept instead of reloaded.
 */
export async function catalogFingerprint(db: Db): Promise<string> {
  const parts: string[] = []
  const chunks = publishedChunks<{ hash: string | null }>(
    db,
    FINGERPRINT_CHUNK,
    // books.topics is the derived copy of the book's topics' names (migration `topics`): it changes whenever
    // the book's topics, or their names and so their slugs, do.
    sql`hashtextextended(concat_ws('|', b.id, b.topics, b.level, b.price_cents, b.rating, b.rating_count,
      b.rating_sum, b.featured_position, b.best_seller, b.sales_count, b.created_at), 0) as hash`,
    sql`(select sum(hash)::text from chunk) as hash`,
  )
  for await (const chunk of chunks) parts.push(`${chunk.n}:${chunk.hash}`)
  const files = (await db.execute(sql`
    select concat_ws(':', count(*), sum(hashtextextended(concat_ws('|', f.book_id, f.format), 0))) as files
    from book_files f where f.format in ('pdf', 'epub')`)) as { rows: { files: string }[] }
  return `${parts.join(',')}/${files.rows[0]?.files}`
}
const FINGERPRINT_CHUNK = 10_000

/**
 * The facet index of `db`: the one in memory while younger than the TTL, a reload starting in the background
 * once it is older than REFRESH_AFTER_MS. Only the first request, one after invalidateFacetIndex or one after
 * a quiet spell longer than the TTL waits for a load.
 */
export function readFacetIndex(db: Db): Promise<FacetIndex> {
  const now = Date.now()
  const entry = entries.get(db)
  if (entry && now - entry.current.at < TTL_MS) {
    if (now - entry.current.at >= REFRESH_AFTER_MS && !entry.next) refresh(db, entry)
    return entry.current.index
  }
  if (entry?.next) return entry.next.index
  const fresh: Entry = { current: startLoad(db) }
  entries.set(db, fresh)
  // A failed load is not kept: the next request tries again.
  fresh.current.index.catch(() => {
    if (entries.get(db) === fresh) entries.delete(db)
  })
  return fresh.current.index
}

function refresh(db: Db, entry: Entry) {
  const fingerprint = catalogFingerprint(db)
  const next: Loaded = {
    at: Date.now(),
    fingerprint,
    // Unchanged since the current index was read: the same index, younger.
    index: Promise.all([fingerprint, entry.current.fingerprint]).then(([now, then]) =>
      now === then ? entry.current.index : loadFacetIndex(db),
    ),
  }
  entry.next = next
  next.index.then(
    () => {
      if (entries.get(db) === entry) entries.set(db, { current: next })
    },
    // The current index serves until its TTL; a later request tries again.
    () => {
      if (entry.next === next) entry.next = undefined
    },
  )
}

/** A change made through this process (the back office, seeding) shows at once. */
export function invalidateFacetIndex(db: Db): void {
  entries.delete(db)
}
