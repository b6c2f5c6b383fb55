import { Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { recordEvent } from '#app/features/analytics/record.server.ts'
import { SearchCombobox } from '#app/features/search/components/search-combobox.tsx'
import { normalizeQuery, parsePage, SEARCH_PATH, searchUrl } from '#app/features/search/search-query.ts'
import { searchBooks, type SearchResults } from '#app/features/search/search.server.ts'
import { bookListJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { BookGrid } from '#app/components/book-grid.tsx'
import type { Route } from './+types/search'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('Search is unavailable')
  const { query, results } = loaderData
  const origin = publicOrigin(args.matches)
  const page = results && results.page > 1 ? `, page ${results.page}` : ''
  const tags = pageMeta(args, {
    title: query ? `Search: ${query}${page}` : 'Search',
    description: query
      ? `CodeBook eBooks matching “${query}”: titles, authors and topics, with ratings and prices.`
      : 'Search the CodeBook store’s computer-science eBooks by title, author or topic.',
    // Filters and sort orders are variations of the same results: the query and its page number stay.
    path: '/search',
    keepParams: ['q', 'page', 'after'],
    jsonLd:
      origin && results && results.books.length > 0
        ? [
            bookListJsonLd(origin, {
              name: `Search results for ${query}`,
              books: results.books,
            }),
          ]
        : [],
  })
  // Result pages are endless variations of the catalogue: not for search engines.
  return query ? [...tags, { name: 'robots', content: 'noindex' }] : tags
}

/**
 * /search shows the search box; /search?q=…&page=… also the results, 20 a page. Any q is accepted (cut to
 * 100 characters; an empty or unusable one shows the box alone); a page past the last goes to the first.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams
  const query = normalizeQuery(params.get('q'))
  if (!query) return { query, results: null }
  const page = parsePage(params.get('page'))
  const results = await searchBooks(getAppContext(context).db, query, { page })
  if (results.page !== page) return redirect(searchUrl(query, results.page))
  if (page === 1)
    recordEvent(getAppContext(context), request, { name: 'search', query, resultCount: results.total })
  return { query, results }
}

export default function Search({ loaderData }: Route.ComponentProps) {
  const { query, results } = loaderData
  return (
    <section className="mx-auto max-w-7xl px-4 py-12">
      <SectionHeading level={1}>Search</SectionHeading>
      <Form
        method="get"
        action={SEARCH_PATH}
        role="search"
        aria-label="Search the catalogue"
        className="mx-auto mb-8 flex max-w-2xl gap-2"
      >
        {/* A new query (another page's header box, back and forward) starts a fresh box. */}
        <SearchCombobox key={query} label="Search books" defaultValue={query} autoFocus={!query} />
        <button type="submit" className={`${primaryButton} shrink-0`}>
          Search
        </button>
      </Form>
      {results ? <SearchResultsView results={results} /> : null}
    </section>
  )
}

function SearchResultsView({ results }: { results: SearchResults }) {
  const { query, correctedFrom, books, total, more, page, pageCount } = results
  if (total === 0) {
    return (
      <div className="mx-auto flex max-w-2xl flex-col items-center gap-4 text-center">
        <p className="text-lg font-medium">No books match “{correctedFrom ?? query}”.</p>
        <p className="text-slate-700 dark:text-slate-300">
          Check the spelling, try fewer or other words — a title, an author or a topic — or browse the whole
          catalogue.
        </p>
        <Link to="/AllBooks" className={primaryButton}>
          Browse all eBooks
        </Link>
      </div>
    )
  }
  const count = more ? `More than ${total} results` : `${total} ${total === 1 ? 'result' : 'results'}`
  return (
    <>
      <p className="mb-8 text-center text-lg text-slate-700 dark:text-slate-300">
        {correctedFrom ? (
          <>
            No books match “{correctedFrom}”. {count} for “<strong>{query}</strong>”.
          </>
        ) : (
          <>
            {count} for “<strong>{query}</strong>”
            {more ? ` — showing the best ${total}. Add a word to narrow them down.` : '.'}
          </>
        )}
      </p>
      <BookGrid books={books} headingLevel={2} eagerCount={page === 1 ? 3 : 0} />
      {pageCount > 1 ? <Pagination query={query} page={page} pageCount={pageCount} /> : null}
    </>
  )
}

function Pagination({ query, page, pageCount }: { query: string; page: number; pageCount: number }) {
  const link =
    'rounded-lg border border-slate-300 px-4 py-2 font-medium text-blue-700 hover:bg-slate-100 dark:border-gray-600 dark:text-sky-300 dark:hover:bg-gray-700'
  return (
    <nav aria-label="Result pages" className="mt-10 flex items-center justify-center gap-4">
      {page > 1 ? (
        <Link to={searchUrl(query, page - 1)} className={link}>
          Previous page
        </Link>
      ) : null}
      <p>
        Page {page} of {pageCount}
      </p>
      {page < pageCount ? (
        <Link to={searchUrl(query, page + 1)} className={link}>
          Next page
        </Link>
      ) : null}
    </nav>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
