import type { Db } from '#app/server/db/database.server.ts'
import { listBooks, listFeaturedBooks, type BookCard } from './catalog.server.ts'
import { invalidateFacetIndex } from './facet-index.server.ts'

/**
 * The catalogue lists are the same for every visitor and change rarely, so pages read them from memory:
 * fetched at most once per TTL per database. A change made through this process (seeding, the back office)
 * clears them at once; another instance's change shows within the TTL.
 */
const TTL_MS = 10_000

type Entry<T> = { value: Promise<T>; at: number }
const caches = new WeakMap<Db, { featured?: Entry<BookCard[]>; all?: Entry<BookCard[]> }>()

function cached<T>(db: Db, name: 'featured' | 'all', load: () => Promise<T>): Promise<T> {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = {}))
  const entry = cache[name] as Entry<T> | undefined
  if (entry && Date.now() - entry.at < TTL_MS) return entry.value
  // Drizzle's queries are lazy thenables that run again on every `then`: settle it once into a real promise.
  const value = Promise.resolve(load())
  // A failed read is not kept: the next request tries again.
  value.catch(() => {
    if (cache[name]?.value === value) delete cache[name]
  })
  ;(cache as Record<string, Entry<T>>)[name] = { value, at: Date.now() }
  return value
}

export function readFeaturedBooks(db: Db): Promise<BookCard[]> {
  return cached(db, 'featured', () => listFeaturedBooks(db))
}

export function readAllBooks(db: Db): Promise<BookCard[]> {
  return cached(db, 'all', () => listBooks(db))
}

export function invalidateCatalog(db: Db): void {
  caches.delete(db)
  invalidateFacetIndex(db)
}
