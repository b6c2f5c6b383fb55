/**
 * The faceted catalogue's URL state (/AllBooks, /search, /topics/<slug>), shared by the browser and the server:
 * which filters and sort a URL asks for, and the URL of a state. A value the store does not know is ignored
 * (the filter is off), never an error: a shared or hand-edited link still shows books (docs/decisions/019).
 */

export const CATALOG_PAGE_SIZE = 24
/** No deeper page is linked or served: 100,000 books at 24 a page is 4,167 pages. */
export const MAX_PAGE = 100_000

export const CATALOG_SORTS = [
  { value: 'relevance', label: 'Relevance' },
  { value: 'newest', label: 'Newest' },
  { value: 'price-asc', label: 'Price: low to high' },
  { value: 'price-desc', label: 'Price: high to low' },
  { value: 'rating', label: 'Rating' },
  { value: 'best-selling', label: 'Best-selling' },
] as const
export type CatalogSort = (typeof CATALOG_SORTS)[number]['value']

export const CATALOG_LEVELS = [
  { value: 'beginner', label: 'Beginner' },
  { value: 'intermediate', label: 'Intermediate' },
  { value: 'advanced', label: 'Advanced' },
] as const
export type CatalogLevel = (typeof CATALOG_LEVELS)[number]['value']

/** 'Beginner', 'Intermediate', 'Advanced'. */
export function levelLabel(level: CatalogLevel): string {
  return CATALOG_LEVELS.find((known) => known.value === level)!.label
}

/** Disjoint price bands in cents: `min` ≤ price < `max`. */
export const PRICE_RANGES = [
  { value: 'under-10', label: 'Under $10', min: 0, max: 1000 },
  { value: '10-25', label: '$10 to $25', min: 1000, max: 2500 },
  { value: '25-50', label: '$25 to $50', min: 2500, max: 5000 },
  { value: '50-and-up', label: '$50 and up', min: 5000, max: Infinity },
] as const
export type PriceRange = (typeof PRICE_RANGES)[number]['value']

/** Minimum stars of the rating a card shows (readers' average, else the seed's prior: rating.ts). */
export const RATING_MINIMUMS = [4, 3, 2, 1] as const
export type RatingMinimum = (typeof RATING_MINIMUMS)[number]

/** What a book is sold as (its files, app/features/library): the sample is not a format one buys. */
export const CATALOG_FORMATS = [
  { value: 'pdf', label: 'PDF' },
  { value: 'epub', label: 'EPUB' },
] as const
export type CatalogFormat = (typeof CATALOG_FORMATS)[number]['value']

export type CatalogFilters = {
  topic: string | null
  level: CatalogLevel | null
  price: PriceRange | null
  rating: RatingMinimum | null
  format: CatalogFormat | null
}

export type CatalogQuery = { filters: CatalogFilters; sort: CatalogSort; page: number }

export const NO_FILTERS: CatalogFilters = {
  topic: null,
  level: null,
  price: null,
  rating: null,
  format: null,
}

/** The URL's parameters, in the order catalogUrl writes them. */
export const FILTER_PARAMS = [
  'topic',
  'level',
  'price',
  'rating',
  'format',
] as const satisfies readonly (keyof CatalogFilters)[]

const TOPIC_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/

function oneOf<T extends string>(values: readonly { value: T }[], raw: string | null): T | null {
  return values.find((entry) => entry.value === raw)?.value ?? null
}

/** A topic's slug (table `topics`), or null (the server also ignores a topic no book has). */
export function parseTopic(raw: string | null): string | null {
  return raw && raw.length <= 60 && TOPIC_PATTERN.test(raw) ? raw : null
}

/** The catalogue state a URL asks for; anything unknown or malformed is left at its default. */
export function parseCatalogParams(params: URLSearchParams): CatalogQuery {
  const rawPage = params.get('page')
  const page = rawPage && /^\d{1,6}$/.test(rawPage) ? Number(rawPage) : 1
  return {
    filters: {
      topic: parseTopic(params.get('topic')),
      level: oneOf(CATALOG_LEVELS, params.get('level')),
      price: oneOf(PRICE_RANGES, params.get('price')),
      rating: RATING_MINIMUMS.find((minimum) => String(minimum) === params.get('rating')) ?? null,
      format: oneOf(CATALOG_FORMATS, params.get('format')),
    },
    sort: oneOf(CATALOG_SORTS, params.get('sort')) ?? 'relevance',
    page: Math.min(MAX_PAGE, Math.max(1, page)),
  }
}

/**
 * The URL of a catalogue state on `path`: only what differs from the defaults, always in the same order (one
 * URL per state, which the page cache keys on). `extra` goes first (the search page's `q`).
 */
export function catalogUrl(path: string, state: CatalogQuery, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra)
  for (const name of FILTER_PARAMS) {
    const value = state.filters[name]
    if (value !== null) params.set(name, String(value))
  }
  if (state.sort !== 'relevance') params.set('sort', state.sort)
  if (state.page > 1) params.set('page', String(state.page))
  const search = params.toString()
  return search ? `${path}?${search}` : path
}

export function hasFilters(filters: CatalogFilters): boolean {
  return FILTER_PARAMS.some((name) => filters[name] !== null)
}

export function topicPath(slug: string): string {
  return `/topics/${slug}`
}

/** One value a facet offers, with how many books it would show. */
export type FacetOption<Value> = { value: Value; label: string; count: number }

/**
 * What a facet offers: the values that have books, and the chosen one whatever its count (so that the control
 * shows the URL's state). Nothing left: the facet is not shown at all (issue 34: no seed book has a level,
 * and 'Level' offered three options of (0)).
 */
export function offeredOptions<Value>(
  options: readonly FacetOption<Value>[],
  chosen: Value | null,
): FacetOption<Value>[] {
  return options.filter((option) => option.count > 0 || option.value === chosen)
}

/** '1 star & up', '4 stars & up'. */
export function ratingMinimumLabel(minimum: number): string {
  return `${minimum} ${minimum === 1 ? 'star' : 'stars'} & up`
}
