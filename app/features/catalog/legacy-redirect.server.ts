import { redirect } from 'react-router'
import { legacyAllBooksSlugs, legacyFeaturedSlugs, parseLegacyIndex } from './legacy-urls.ts'

/**
 * A permanent redirect from a seed URL (`/Details/1`, `/AllBooksDetails/%200`) to the book's canonical URL,
 * or undefined when the index names no book. The path's first segment says which of the seed's two lists the
 * index counts in (paths match case-insensitively).
 */
export function legacyBookRedirect(pathname: string, rawIndex: string | undefined) {
  const list = legacyLists.get(pathname.split('/')[1]?.toLowerCase() ?? '')
  const index = parseLegacyIndex(rawIndex)
  const slug = list && index !== undefined ? list[index] : undefined
  return slug ? redirect(`/books/${slug}`, 301) : undefined
}

const legacyLists = new Map<string, readonly string[]>([
  ['details', legacyFeaturedSlugs],
  ['allbooksdetails', legacyAllBooksSlugs],
])
