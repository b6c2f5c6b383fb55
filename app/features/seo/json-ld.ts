import type {
  BreadcrumbList,
  ItemList,
  Organization,
  Person,
  SearchAction,
  WebSite,
  WithContext,
} from 'schema-dts'
import { SITE_NAME } from './meta.ts'

/**
 * schema.org documents for the store's pages, typed with schema-dts (a wrong property does not compile) and
 * checked against the vocabulary itself in tests/schema-org.ts. Every URL is absolute, from the public origin.
 */

/** `/`: who runs the store, and where its search is (a crawler may offer it as a search box). */
export function storeJsonLd(origin: string): [WithContext<Organization>, WithContext<WebSite>] {
  // schema.org's Actions annotation `<property>-input` (here SearchAction's `query`), which schema-dts omits.
  const searchAction: SearchAction & { 'query-input': string } = {
    '@type': 'SearchAction',
    target: { '@type': 'EntryPoint', urlTemplate: `${origin}/search?q={search_term_string}` },
    'query-input': 'required name=search_term_string',
  }
  return [
    {
      '@context': 'https://schema.org',
      '@type': 'Organization',
      name: SITE_NAME,
      url: `${origin}/`,
      logo: `${origin}/logo.svg`,
    },
    {
      '@context': 'https://schema.org',
      '@type': 'WebSite',
      name: SITE_NAME,
      url: `${origin}/`,
      potentialAction: searchAction,
    },
  ]
}

export type ListedBook = { slug: string; title: string }

/**
 * A list page's books in the order shown: /AllBooks, /search, /topics/<slug>. `offset` is how many came on
 * the pages before, so that positions run on across pages.
 */
export function bookListJsonLd(
  origin: string,
  list: { name: string; books: readonly ListedBook[]; offset?: number },
): WithContext<ItemList> {
  const offset = list.offset ?? 0
  return {
    '@context': 'https://schema.org',
    '@type': 'ItemList',
    name: list.name,
    numberOfItems: list.books.length,
    itemListElement: list.books.map((book, index) => ({
      '@type': 'ListItem',
      position: offset + index + 1,
      url: `${origin}/books/${book.slug}`,
      name: book.title,
    })),
  }
}

/** Where a page sits: Home › … › the page itself; each crumb is a name and a path. */
export function breadcrumbJsonLd(
  origin: string,
  crumbs: ReadonlyArray<{ name: string; path: string }>,
): WithContext<BreadcrumbList> {
  return {
    '@context': 'https://schema.org',
    '@type': 'BreadcrumbList',
    itemListElement: crumbs.map((crumb, index) => ({
      '@type': 'ListItem',
      position: index + 1,
      name: crumb.name,
      item: `${origin}${crumb.path}`,
    })),
  }
}

/**
 * An author's page (/authors/<slug>): the `Person`, with their bio's words, their photo and the books of theirs
 * the page lists (each a `Book` with its URL, the same URL the book page's `author` points back from).
 */
export function authorJsonLd(
  origin: string,
  author: { name: string; slug: string; description: string; image?: string; books: readonly ListedBook[] },
): WithContext<Person> {
  return {
    '@context': 'https://schema.org',
    '@type': 'Person',
    name: author.name,
    url: `${origin}/authors/${author.slug}`,
    ...(author.description ? { description: author.description } : {}),
    ...(author.image ? { image: `${origin}${author.image}` } : {}),
    ...(author.books.length > 0
      ? {
          subjectOf: author.books.map((book) => ({
            '@type': 'Book' as const,
            name: book.title,
            url: `${origin}/books/${book.slug}`,
          })),
        }
      : {}),
  }
}
