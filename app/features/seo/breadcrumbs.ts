/**
 * Where a page sits, Home first and the page itself last: one trail per kind of page, shown on the page
 * (components/breadcrumbs.tsx) and given to search engines (`breadcrumbJsonLd`), so the two never differ.
 */
export type Crumb = { name: string; path: string }

export function bookTrail(book: { title: string; slug: string }): Crumb[] {
  return [
    { name: 'Home', path: '/' },
    { name: 'All eBooks', path: '/AllBooks' },
    { name: book.title, path: `/books/${book.slug}` },
  ]
}

export function topicTrail(topic: { name: string; path: string }): Crumb[] {
  return [
    { name: 'Home', path: '/' },
    { name: 'Topics', path: '/topics' },
    { name: topic.name, path: topic.path },
  ]
}

/** An author's page: Home › the author (the store has no index of authors; their books link each page). */
export function authorTrail(author: { name: string; slug: string }): Crumb[] {
  return [
    { name: 'Home', path: '/' },
    { name: author.name, path: `/authors/${author.slug}` },
  ]
}

export function searchTrail(query: string): Crumb[] {
  const search = { name: 'Search', path: '/search' }
  if (!query) return [{ name: 'Home', path: '/' }, search]
  return [
    { name: 'Home', path: '/' },
    search,
    { name: `“${query}”`, path: `/search?${new URLSearchParams({ q: query })}` },
  ]
}
