import { redirect } from 'react-router'
import { legacyAllBooksSlugs, legacyFeaturedSlugs, parseLegacyIndex } from './legacy-urls.ts'

/**
 * A permanent redirect from a seed URL (`/Details/1`, `/AllBooksDetails/%200`) to the book's canonical URL,
 * or undefined when the index names no book.
 */
export function legacyBookRedirect(list: 'featured' | 'all-books', rawIndex: string | undefined) {
  const index = parseLegacyIndex(rawIndex)
  const slugs = list === 'featured' ? legacyFeaturedSlugs : legacyAllBooksSlugs
  const slug = index === undefined ? undefined : slugs[index]
  return slug ? redirect(`/books/${slug}`, 301) : undefined
}
