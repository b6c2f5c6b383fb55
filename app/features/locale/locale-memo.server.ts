import { LRUCache } from 'lru-cache'
import { resolveLocale } from './locale.ts'

/**
 * `resolveLocale`, remembered per Accept-Language value. Resolving builds several `Intl` objects, on every
 * request the page cache answers (app/visitor-key.server.ts computes the cache's key), while browsers send
 * few distinct values. Bounded in entries and in the headers' length, since anyone may send any header.
 */
export function memoizeLocales(
  resolve: (header: string) => string = resolveLocale,
  bounds: { maxEntries: number; maxHeaderChars: number } = { maxEntries: 1_000, maxHeaderChars: 256 * 1024 },
): (header: string | null | undefined) => string {
  const locales = new LRUCache<string, string>({
    max: bounds.maxEntries,
    maxSize: bounds.maxHeaderChars,
    sizeCalculation: (_locale, header) => Math.max(1, header.length),
  })
  return (header) => {
    if (!header) return resolveLocale(header)
    let locale = locales.get(header)
    if (locale === undefined) locales.set(header, (locale = resolve(header)))
    return locale
  }
}
