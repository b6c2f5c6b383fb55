import { LRUCache } from 'lru-cache'
import type { Db } from '#app/server/db/database.server.ts'
import { listBooks, listFeaturedBooks, type BookCard } from './catalog.server.ts'
import { invalidateFacetIndex } from './facet-index.server.ts'

/**
 * The catalogue lists are the same for every visitor and change rarely, so pages read them from memory:
 * fetched at most once per TTL per database, by one query however many requests want them meanwhile (the
 * library's `fetch`). A failed read is not kept: the next request tries again. A change made through this
 * process (seeding, the back office, a review) clears them at once; a read already under way then answers
 * its own requests but is not kept. Another instance's change shows within the TTL.
 */
const TTL_MS = 10_000

type List = 'featured' | 'all'
const loaders: Record<List, (db: Db) => Promise<BookCard[]>> = {
  featured: listFeaturedBooks,
  all: listBooks,
}

// By database: each store (and each test's database) has its own. Two lists: bounded by count.
const caches = new WeakMap<Db, LRUCache<List, BookCard[], Db>>()

function read(db: Db, list: List): Promise<BookCard[]> {
  let cache = caches.get(db)
  if (!cache) {
    cache = new LRUCache<List, BookCard[], Db>({
      max: 2,
      ttl: TTL_MS,
      // A clear() lets the reads under way finish for their callers, without storing what they read.
      ignoreFetchAbort: true,
      // Drizzle's queries are lazy thenables: `async` settles one into the real promise the library awaits.
      fetchMethod: async (name, _stale, { context }) => loaders[name](context),
    })
    caches.set(db, cache)
  }
  return cache.forceFetch(list, { context: db })
}

export function readFeaturedBooks(db: Db): Promise<BookCard[]> {
  return read(db, 'featured')
}

export function readAllBooks(db: Db): Promise<BookCard[]> {
  return read(db, 'all')
}

export function invalidateCatalog(db: Db): void {
  caches.get(db)?.clear()
  invalidateFacetIndex(db)
}
