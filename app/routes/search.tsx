import { Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { recordEvent } from '#app/features/analytics/record.server.ts'
import { SearchCombobox } from '#app/features/search/components/search-combobox.tsx'
import { normalizeQuery, SEARCH_PATH } from '#app/features/search/search-query.ts'
import { searchCatalog, type CatalogSearchResults } from '#app/features/search/catalog-search.server.ts'
import {
  CATALOG_PAGE_SIZE,
  catalogUrl,
  hasFilters,
  parseCatalogParams,
} from '#app/features/catalog/facets.ts'
import { searchTrail } from '#app/features/seo/breadcrumbs.ts'
import { Breadcrumbs } from '#app/features/seo/components/breadcrumbs.tsx'
import { bookListJsonLd, breadcrumbJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { CatalogBrowser } from '#app/compositions/catalog-browser.tsx'
import type { Route } from './+types/search'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('Search is unavailable')
  const { query, results } = loaderData
  const origin = publicOrigin(args.matches)
  const pageNumber = results?.page.query.page ?? 1
  const page = pageNumber > 1 ? `, page ${pageNumber}` : ''
  const tags = pageMeta(args, {
    title: query ? `Search: ${query}${page}` : 'Search',
    description: query
      ? `CodeBook eBooks matching “${query}”: titles, authors and topics, with ratings and prices.`
      : 'Search the CodeBook store’s computer-science eBooks by title, author or topic.',
    // Filters and sort orders are variations of the same results: the query and its page number stay.
    path: '/search',
    keepParams: ['q', 'page'],
    jsonLd: origin
      ? [
          ...(results && results.page.books.length > 0
            ? [
                bookListJsonLd(origin, {
                  name: `Search results for ${query}`,
                  books: results.page.books,
                  offset: (pageNumber - 1) * CATALOG_PAGE_SIZE,
                }),
              ]
            : []),
          breadcrumbJsonLd(origin, searchTrail(query)),
        ]
      : [],
  })
  // Result pages are endless variations of the catalogue: not for search engines.
  return query ? [...tags, { name: 'robots', content: 'noindex' }] : tags
}

/**
 * /search shows the search box; /search?q=… also the results (the best RESULT_CAP matches), with the
 * catalogue's facets and sorts (docs/decisions/019). Any q is accepted (cut to 100 characters; an empty or
 * unusable one shows the box alone); bad filter values are ignored; a page past the last goes to the first.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const params = new URL(request.url).searchParams
  const query = normalizeQuery(params.get('q'))
  if (!query) return { query, results: null }
  const state = parseCatalogParams(params)
  const results = await searchCatalog(getAppContext(context).db, query, state)
  // Past the last page: start again from the first.
  if (results.page.query.page !== state.page)
    return redirect(catalogUrl(SEARCH_PATH, { ...results.page.query, page: 1 }, { q: query }))
  // One search event per search: not again for each filter, sort or page of its results.
  if (state.page === 1 && state.sort === 'relevance' && !hasFilters(state.filters))
    recordEvent(getAppContext(context), request, { name: 'search', query, resultCount: results.matchCount })
  return { query, results }
}

export default function Search({ loaderData }: Route.ComponentProps) {
  const { query, results } = loaderData
  return (
    <section className="mx-auto max-w-7xl px-4 pt-6 pb-12">
      <Breadcrumbs trail={searchTrail(query)} className="mb-6" />
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
      {results ? <SearchResultsView query={query} results={results} /> : null}
    </section>
  )
}

function SearchResultsView({ query, results }: { query: string; results: CatalogSearchResults }) {
  const { correctedFrom, more, page } = results
  if (results.matchCount === 0) {
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
  const total = results.matchCount
  const count = more ? `More than ${total} results` : `${total} ${total === 1 ? 'result' : 'results'}`
  return (
    <>
      <p className="mb-8 text-center text-lg text-slate-700 dark:text-slate-300">
        {correctedFrom ? (
          <>
            No books match “{correctedFrom}”. {count} for “<strong>{results.query}</strong>”.
          </>
        ) : (
          <>
            {count} for “<strong>{results.query}</strong>”
            {more ? ` — showing the best ${total}. Add a word to narrow them down.` : '.'}
          </>
        )}
      </p>
      <CatalogBrowser result={page} path={SEARCH_PATH} extraParams={{ q: query }} />
    </>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
