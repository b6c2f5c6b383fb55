import { and, inArray } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { asCard, cardColumns, isPublished, type BookCard } from './catalog.server.ts'
import { readFacetIndex, type FacetIndex } from './facet-index.server.ts'
import {
  CATALOG_FORMATS,
  CATALOG_LEVELS,
  CATALOG_PAGE_SIZE,
  PRICE_RANGES,
  NO_FILTERS,
  RATING_MINIMUMS,
  hasFilters,
  type CatalogFilters,
  type CatalogQuery,
} from './facets.ts'

export type FacetCount<T> = { value: T; count: number }

/** How many books each facet value would show, given the other facets' filters (the usual faceted rule). */
export type FacetCounts = {
  topic: (FacetCount<string> & { name: string })[]
  level: FacetCount<string>[]
  price: FacetCount<string>[]
  rating: FacetCount<number>[]
  format: FacetCount<string>[]
}

export type CatalogPage = {
  books: BookCard[]
  /** Books matching every filter. */
  total: number
  /** The filters as applied: a topic no published book has is dropped. */
  query: CatalogQuery
  pageCount: number
  counts: FacetCounts
}

const TOPIC = 1
const LEVEL = 2
const PRICE = 4
const RATING = 8
const FORMAT = 16

/**
 * One page of the catalogue for `query`, with every facet's counts: one pass over the facet index (each book
 * is tested against each filter; a book failing none is a result and counts in every facet, a book failing
 * exactly one counts in that facet only), then the page's cards read by id. `within`: only these books, in
 * this order for the relevance sort (the search page's ranked matches). A page past the last is the last.
 */
export async function browseCatalog(
  db: Db,
  query: CatalogQuery,
  within?: readonly string[],
): Promise<CatalogPage> {
  const index = await readFacetIndex(db)
  const { filters } = query
  // A topic no published book has is no filter.
  const topic = filters.topic === null ? -1 : (index.topicPosition.get(filters.topic) ?? -1)
  const applied: CatalogFilters = { ...filters, topic: topic < 0 ? null : filters.topic }
  const order = within ? orderWithin(index, within, query.sort) : index.orders[query.sort]
  // The whole catalogue unfiltered (the landing page, and the page links crawlers follow) is counted once per
  // index; its pages are slices of the sort's order.
  const pass =
    within || hasFilters(applied)
      ? countFacets(index, applied, topic, within ? order : null)
      : wholeCatalogue(index)
  const pageCount = Math.max(1, Math.ceil(pass.total / CATALOG_PAGE_SIZE))
  const page = Math.min(query.page, pageCount)
  const skip = (page - 1) * CATALOG_PAGE_SIZE
  const wanted = pass.matched
    ? pickPage(order, pass.matched, skip, CATALOG_PAGE_SIZE)
    : Array.from(order.subarray(skip, skip + CATALOG_PAGE_SIZE))
  return {
    books: await readCards(
      db,
      wanted.map((i) => index.ids[i]!),
    ),
    total: pass.total,
    query: { ...query, filters: applied, page },
    pageCount,
    counts: pass.counts,
  }
}

/** Which books match (null: all of them), how many, and each facet value's count. */
type Pass = { matched: Uint8Array | null; total: number; counts: FacetCounts }

const wholeCatalogues = new WeakMap<FacetIndex, Pass>()

function wholeCatalogue(index: FacetIndex): Pass {
  let pass = wholeCatalogues.get(index)
  if (!pass) {
    pass = { ...countFacets(index, NO_FILTERS, -1, null), matched: null }
    wholeCatalogues.set(index, pass)
  }
  return pass
}

/** The pass over the index (or over `only`, the search's matches) for `applied`; `topic` is its position. */
function countFacets(
  index: FacetIndex,
  applied: CatalogFilters,
  topic: number,
  only: Int32Array | null,
): Pass {
  const level = applied.level === null ? -1 : 1 + CATALOG_LEVELS.findIndex((l) => l.value === applied.level)
  const band = applied.price === null ? -1 : PRICE_RANGES.findIndex((p) => p.value === applied.price)
  const minRating10 = applied.rating === null ? -1 : applied.rating * 10
  const formatBit =
    applied.format === null ? 0 : 1 << CATALOG_FORMATS.findIndex((f) => f.value === applied.format)

  const topicCounts = new Int32Array(index.topics.length)
  const levelCounts = new Int32Array(CATALOG_LEVELS.length + 1)
  const priceCounts = new Int32Array(PRICE_RANGES.length)
  const ratingCounts = new Int32Array(RATING_MINIMUMS.length)
  const formatCounts = new Int32Array(CATALOG_FORMATS.length)
  const matched = new Uint8Array(index.size)
  let total = 0

  const { topicStart, bookTopics } = index
  const visit = (i: number) => {
    let failed = 0
    if (topic >= 0) {
      let has = false
      for (let t = topicStart[i]!; t < topicStart[i + 1]!; t++) if (bookTopics[t] === topic) has = true
      if (!has) failed |= TOPIC
    }
    if (level >= 0 && index.level[i] !== level) failed |= LEVEL
    if (band >= 0 && index.priceBand[i] !== band) failed |= PRICE
    if (minRating10 >= 0 && index.rating10[i]! < minRating10) failed |= RATING
    if (formatBit !== 0 && (index.formats[i]! & formatBit) === 0) failed |= FORMAT
    // More than one failed filter: no facet value would bring the book in.
    if (failed & (failed - 1)) return
    if (failed === 0) {
      matched[i] = 1
      total++
    }
    if (failed === 0 || failed === TOPIC)
      for (let t = topicStart[i]!; t < topicStart[i + 1]!; t++) topicCounts[bookTopics[t]!]!++
    if (failed === 0 || failed === LEVEL) levelCounts[index.level[i]!]!++
    if (failed === 0 || failed === PRICE) priceCounts[index.priceBand[i]!]!++
    if (failed === 0 || failed === RATING) {
      const rating10 = index.rating10[i]!
      for (let r = 0; r < RATING_MINIMUMS.length; r++)
        if (rating10 >= RATING_MINIMUMS[r]! * 10) ratingCounts[r]!++
    }
    if (failed === 0 || failed === FORMAT) {
      const bits = index.formats[i]!
      for (let f = 0; f < CATALOG_FORMATS.length; f++) if (bits & (1 << f)) formatCounts[f]!++
    }
  }
  if (only) for (const i of only) visit(i)
  else for (let i = 0; i < index.size; i++) visit(i)

  return {
    matched,
    total,
    counts: {
      topic: index.topics
        .map((value, t) => ({ value, name: index.topicNames[t]!, count: topicCounts[t]! }))
        .filter((entry) => entry.count > 0 || entry.value === applied.topic),
      level: CATALOG_LEVELS.map((l, n) => ({ value: l.value, count: levelCounts[n + 1]! })),
      price: PRICE_RANGES.map((p, n) => ({ value: p.value, count: priceCounts[n]! })),
      rating: RATING_MINIMUMS.map((value, n) => ({ value, count: ratingCounts[n]! })),
      format: CATALOG_FORMATS.map((f, n) => ({ value: f.value, count: formatCounts[n]! })),
    },
  }
}

/** The positions of `ids` in the index (ids it does not hold, e.g. just unpublished, are left out), sorted. */
function orderWithin(index: FacetIndex, ids: readonly string[], sort: CatalogQuery['sort']): Int32Array {
  const positions = Int32Array.from(ids.map((id) => index.position.get(id) ?? -1).filter((i) => i >= 0))
  if (sort === 'relevance') return positions
  // The sort's rank of each position: the full order, inverted lazily for these few books only.
  const full = index.orders[sort]
  const rank = new Map<number, number>()
  const wanted = new Set(positions)
  for (let r = 0; r < full.length && rank.size < wanted.size; r++)
    if (wanted.has(full[r]!)) rank.set(full[r]!, r)
  return positions.sort((a, b) => rank.get(a)! - rank.get(b)!)
}

function pickPage(order: Int32Array, matched: Uint8Array, skip: number, take: number): number[] {
  const picked: number[] = []
  let seen = 0
  for (let r = 0; r < order.length && picked.length < take; r++) {
    const i = order[r]!
    if (!matched[i]) continue
    if (seen++ >= skip) picked.push(i)
  }
  return picked
}

/** The cards of `ids`, in that order, as the database has them now. */
async function readCards(db: Db, ids: string[]): Promise<BookCard[]> {
  if (ids.length === 0) return []
  const rows = await db
    .select(cardColumns)
    .from(books)
    .where(and(inArray(books.id, ids), isPublished))
  const byId = new Map(rows.map((row) => [row.id, row]))
  return ids.flatMap((id) => {
    const row = byId.get(id)
    return row ? [asCard(row)] : []
  })
}

/** Every topic a published book has, with its name and how many published books have it, by name. */
export async function listTopics(db: Db): Promise<(FacetCount<string> & { name: string })[]> {
  const index = await readFacetIndex(db)
  const counts = new Int32Array(index.topics.length)
  for (const t of index.bookTopics) counts[t]!++
  return index.topics
    .map((value, t) => ({ value, name: index.topicNames[t]!, count: counts[t]! }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'))
}

/** The topic with slug `slug` that a published book has: its slug and name, else undefined. */
export async function findPublishedTopic(
  db: Db,
  slug: string,
): Promise<{ slug: string; name: string } | undefined> {
  const index = await readFacetIndex(db)
  const t = index.topicPosition.get(slug)
  return t === undefined ? undefined : { slug, name: index.topicNames[t]! }
}
