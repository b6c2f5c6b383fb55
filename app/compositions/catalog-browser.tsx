import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react'
import { Form, Link, useNavigate, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { Options } from '#app/components/ui/field.tsx'
import type { CatalogPage } from '#app/features/catalog/browse.server.ts'
import {
  CATALOG_FORMATS,
  CATALOG_LEVELS,
  CATALOG_PAGE_SIZE,
  CATALOG_SORTS,
  FILTER_PARAMS,
  NO_FILTERS,
  PRICE_RANGES,
  catalogUrl,
  hasFilters,
  offeredOptions,
  parseCatalogParams,
  ratingMinimumLabel,
  type CatalogQuery,
  type FacetOption,
} from '#app/features/catalog/facets.ts'
import { BookGrid } from './book-grid.tsx'
import { formatCount } from '#app/features/locale/number-format.ts'

const selectClass =
  'w-full rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100'
const linkClass =
  'rounded-lg border border-slate-300 px-3 py-2 font-medium text-blue-700 hover:bg-slate-100 dark:border-gray-600 dark:text-sky-300 dark:hover:bg-gray-700'

/**
 * A faceted list of books (/AllBooks, /search, /topics/<slug>): a GET form of filters and a sort, each value
 * with how many books it would show, then the books and real page links. Without JavaScript the form's
 * 'Apply' button loads the filtered page; with it, each change navigates to the state's URL at once (same
 * scroll position, focus stays on the control) and the status line announces the new count.
 */
export function CatalogBrowser({
  result,
  path,
  extraParams = {},
  fixedTopic = false,
}: {
  result: Pick<CatalogPage, 'books' | 'total' | 'query' | 'pageCount' | 'counts'>
  /** Where the form and the page links go. */
  path: string
  /** Kept in every URL (the search page's `q`). */
  extraParams?: Record<string, string>
  /** A topic page: the topic is the path's, not a filter. */
  fixedTopic?: boolean
}) {
  const { books, total, query, pageCount, counts } = result
  const navigate = useNavigate()
  const navigation = useNavigation()
  const id = useId()
  const busy = navigation.state === 'loading' && navigation.location.pathname === path
  const drawer = useRef<HTMLDetailsElement>(null)
  useEffect(() => {
    // A browser without ::details-content (CSS opens the drawer on wide screens there) has it opened here.
    const details = drawer.current
    if (details && !CSS.supports('selector(::details-content)') && matchMedia('(min-width: 48rem)').matches)
      details.open = true
  }, [])

  /** The form's state as its clean URL (no empty parameters, the first page). */
  function go(form: HTMLFormElement) {
    const params = new URLSearchParams()
    for (const [name, value] of new FormData(form)) if (typeof value === 'string') params.set(name, value)
    const state = parseCatalogParams(params)
    if (fixedTopic) state.filters.topic = null
    void navigate(catalogUrl(path, { ...state, page: 1 }, extraParams), { preventScrollReset: true })
  }
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    go(event.currentTarget)
  }

  const first = total === 0 ? 0 : (query.page - 1) * CATALOG_PAGE_SIZE + 1
  const last = Math.min(total, query.page * CATALOG_PAGE_SIZE)
  const filtered = hasFilters({ ...query.filters, topic: fixedTopic ? null : query.filters.topic })
  const applied = FILTER_PARAMS.filter(
    (name) => query.filters[name] !== null && !(fixedTopic && name === 'topic'),
  ).length
  return (
    <div className="flex flex-col gap-8">
      {/* Below md a closed disclosure, so that the books are on the first screen of a phone; from md up the
          summary is hidden and the form shown as it is (CSS on ::details-content, without JavaScript). */}
      <details ref={drawer} className="md:details-content:[content-visibility:visible]">
        <summary className="cursor-pointer rounded-lg border border-slate-300 px-4 py-3 font-medium md:hidden dark:border-gray-600">
          <span>Filters</span>
          {applied > 0 ? (
            <span className="text-slate-700 dark:text-slate-300"> · {applied} applied</span>
          ) : null}
        </summary>
        <Form
          method="get"
          action={path}
          preventScrollReset
          onSubmit={onSubmit}
          onChange={(event) => go(event.currentTarget)}
          aria-label="Filter and sort"
          className="mt-3 grid gap-4 rounded-lg border border-slate-200 p-4 sm:grid-cols-2 md:mt-0 lg:grid-cols-4 xl:grid-cols-7 dark:border-gray-700"
        >
          {Object.entries(extraParams).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          {fixedTopic ? null : (
            <Facet
              id={`${id}-topic`}
              label="Topic"
              name="topic"
              value={query.filters.topic}
              anyLabel="All topics"
              options={offeredOptions(
                counts.topic.map((entry) => ({ ...entry, label: entry.name })),
                query.filters.topic,
              )}
            />
          )}
          <Facet
            id={`${id}-level`}
            label="Level"
            name="level"
            value={query.filters.level}
            anyLabel="Any level"
            options={offeredOptions(
              CATALOG_LEVELS.map((level, n) => ({ ...level, count: counts.level[n]?.count ?? 0 })),
              query.filters.level,
            )}
          />
          <Facet
            id={`${id}-price`}
            label="Price"
            name="price"
            value={query.filters.price}
            anyLabel="Any price"
            options={offeredOptions(
              PRICE_RANGES.map((range, n) => ({ ...range, count: counts.price[n]?.count ?? 0 })),
              query.filters.price,
            )}
          />
          <Facet
            id={`${id}-rating`}
            label="Rating"
            name="rating"
            value={query.filters.rating}
            anyLabel="Any rating"
            options={offeredOptions(
              counts.rating.map((entry) => ({ ...entry, label: ratingMinimumLabel(entry.value) })),
              query.filters.rating,
            )}
          />
          <Facet
            id={`${id}-format`}
            label="Format"
            name="format"
            value={query.filters.format}
            anyLabel="Any format"
            options={offeredOptions(
              CATALOG_FORMATS.map((format, n) => ({ ...format, count: counts.format[n]?.count ?? 0 })),
              query.filters.format,
            )}
          />
          <Select id={`${id}-sort`} label="Sort by" name="sort" value={query.sort}>
            <Options options={CATALOG_SORTS} />
          </Select>
          <div className="flex items-end gap-3">
            <button type="submit" className={primaryButton}>
              Apply
            </button>
            {filtered ? (
              <Link
                to={catalogUrl(path, { filters: NO_FILTERS, sort: query.sort, page: 1 }, extraParams)}
                preventScrollReset
                className="py-2 font-medium whitespace-nowrap text-blue-700 underline dark:text-sky-300"
              >
                Clear filters
              </Link>
            ) : null}
          </div>
        </Form>
      </details>
      <p role="status" aria-live="polite" className="text-center text-slate-700 dark:text-slate-300">
        {total === 0
          ? 'No books match these filters.'
          : `Showing ${formatCount(first)}–${formatCount(last)} of ${formatCount(total)} ${total === 1 ? 'book' : 'books'}`}
      </p>
      <div aria-busy={busy} className={busy ? 'opacity-60 transition-opacity' : undefined}>
        <BookGrid books={books} headingLevel={2} eagerCount={query.page === 1 ? 3 : 0} />
      </div>
      {pageCount > 1 ? (
        <Pagination path={path} query={query} pageCount={pageCount} extraParams={extraParams} />
      ) : null}
    </div>
  )
}

/**
 * A filter as a select of the values that have books, each with its count; no such value: no filter shown
 * (offeredOptions).
 */
function Facet<Value extends string | number>({
  anyLabel,
  options,
  ...select
}: {
  id: string
  label: string
  name: string
  value: Value | null
  anyLabel: string
  options: readonly FacetOption<Value>[]
}) {
  if (options.length === 0) return null
  return (
    <Select {...select}>
      <option value="">{anyLabel}</option>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label} ({formatCount(option.count)})
        </option>
      ))}
    </Select>
  )
}

function Select({
  id,
  label,
  name,
  value,
  children,
}: {
  id: string
  label: string
  name: string
  value: string | number | null
  children: ReactNode
}) {
  // Back and forward show the URL's state, not the control's last one. The element is kept (not re-keyed) so
  // that focus stays on it after a change.
  const ref = useRef<HTMLSelectElement>(null)
  useEffect(() => {
    if (ref.current) ref.current.value = value === null ? '' : String(value)
  }, [value])
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <select ref={ref} id={id} name={name} defaultValue={value ?? ''} className={selectClass}>
        {children}
      </select>
    </div>
  )
}

/** Previous, the first, the pages around this one, the last, next: plain links a crawler follows. */
function Pagination({
  path,
  query,
  pageCount,
  extraParams,
}: {
  path: string
  query: CatalogQuery
  pageCount: number
  extraParams: Record<string, string>
}) {
  const current = query.page
  const href = (page: number) => catalogUrl(path, { ...query, page }, extraParams)
  const shown = [...new Set([1, current - 2, current - 1, current, current + 1, current + 2, pageCount])]
    .filter((page) => page >= 1 && page <= pageCount)
    .sort((a, b) => a - b)
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-center gap-2">
      {current > 1 ? (
        <Link to={href(current - 1)} rel="prev" className={linkClass}>
          Previous<span className="sr-only"> page</span>
        </Link>
      ) : null}
      {shown.map((page, n) => (
        <span key={page} className="flex items-center gap-2">
          {n > 0 && page - shown[n - 1]! > 1 ? <span aria-hidden="true">…</span> : null}
          {page === current ? (
            <span aria-current="page" className="rounded-lg bg-blue-700 px-3 py-2 font-medium text-white">
              <span className="sr-only">Page </span>
              {page}
            </span>
          ) : (
            <Link to={href(page)} className={linkClass}>
              <span className="sr-only">Page </span>
              {page}
            </Link>
          )}
        </span>
      ))}
      {current < pageCount ? (
        <Link to={href(current + 1)} rel="next" className={linkClass}>
          Next<span className="sr-only"> page</span>
        </Link>
      ) : null}
    </nav>
  )
}
