import { data, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { DataTable, type Column } from '#app/components/ui/data-table.tsx'
import { Options, SelectField } from '#app/components/ui/field.tsx'
import { FilterForm } from '#app/components/ui/filter-form.tsx'
import { Pager } from '#app/components/ui/pager.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { ADMIN_QUERY_MAX, ADMIN_SORTS, type AdminSort } from '#app/features/catalog/admin-list.ts'
import { listAdminBooks } from '#app/features/catalog/admin-list.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { FillPricesForm, type FillPricesAnswer } from '#app/features/currency/components/fill-prices-form.tsx'
import { fillPricesAtRate, readFillPricesForm } from '#app/features/currency/fill-prices.server.ts'
import type { Route } from './+types/books'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Books — Back office', 'Books in the CodeBook back office.', { matches })

const sortLabels: Record<AdminSort, string> = {
  title: 'Title (A–Z)',
  newest: 'Newest first',
  price: 'Price (lowest first)',
  status: 'Status (archived, draft, published)',
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const q = (url.searchParams.get('q') ?? '').trim().slice(0, ADMIN_QUERY_MAX)
  const rawSort = url.searchParams.get('sort')
  const sort = ADMIN_SORTS.find((known) => known === rawSort) ?? 'title'
  const after = url.searchParams.get('after')
  const { db, env } = getAppContext(context)
  const { rows, next } = await listAdminBooks(db, { q, sort, after })
  return {
    // The store's currencies (STORE_CURRENCIES): the bulk fill's, base first.
    currencies: env.STORE_CURRENCIES,
    q,
    sort,
    isFirstPage: !after,
    next,
    books: rows.map((book) => ({ ...book, createdAt: book.createdAt.toISOString() })),
  }
}

/** The bulk fill of prices in another currency at the owner's rate (decision 040). */
export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db, env } = getAppContext(context)
  const form = await readForm(request)
  if (form.get('intent') !== 'fill-prices')
    return data<FillPricesAnswer>({ notice: 'This form could not be read. Please reload the page.' }, 400)
  const parsed = readFillPricesForm(form, env.STORE_CURRENCIES)
  if (!parsed.ok) return data<FillPricesAnswer>({ errors: parsed.errors, values: parsed.values }, 400)
  const base = env.STORE_CURRENCIES[0]!
  const { currency, rate } = parsed.input
  const done = await fillPricesAtRate(db, { id: admin.id, email: admin.email }, base, parsed.input)
  const books = (n: number) => `${n} ${n === 1 ? 'book' : 'books'}`
  return data<FillPricesAnswer>({
    notice: `${currency} prices set for ${books(done.filled)} at ${rate} × ${base}, rounded to .99${
      done.kept > 0
        ? `; ${books(done.kept)} kept the ${currency} price ${done.kept === 1 ? 'it' : 'they'} had`
        : ''
    }.`,
  })
}

const statusStyles = {
  published: 'border-emerald-700 text-emerald-800 dark:border-emerald-300 dark:text-emerald-200',
  draft: 'border-amber-700 text-amber-800 dark:border-amber-300 dark:text-amber-200',
  archived: 'border-slate-600 text-slate-700 dark:border-slate-300 dark:text-slate-200',
} as const

type Book = Route.ComponentProps['loaderData']['books'][number]

const columns: Column<Book>[] = [
  {
    header: 'Title',
    cell: (book) => (
      <>
        <Link
          to={`/admin/books/${book.id}`}
          className="font-medium text-blue-700 underline underline-offset-2 dark:text-sky-300"
        >
          {book.title}
        </Link>
        <br />
        <span className="text-xs text-slate-700 dark:text-slate-300">/books/{book.slug}</span>
      </>
    ),
  },
  { header: 'Author', cell: (book) => book.author },
  {
    header: 'Price',
    className: 'whitespace-nowrap',
    cell: (book) => formatPrice(book.priceCents, book.currency),
  },
  {
    header: 'Status',
    cell: (book) => (
      <>
        <span className={`rounded border px-2 py-0.5 text-xs font-semibold ${statusStyles[book.status]}`}>
          {book.status}
        </span>
        {book.featured ? <span className="ml-2 text-xs">featured</span> : null}
      </>
    ),
  },
  {
    header: 'Added',
    className: 'whitespace-nowrap',
    cell: (book) => <FormattedDate value={book.createdAt} />,
  },
]

export default function AdminBooks({ loaderData, actionData }: Route.ComponentProps) {
  const { q, sort, books, next, isFirstPage, currencies } = loaderData
  const pageLink = (after?: string) =>
    `/admin/books?${new URLSearchParams({ ...(q ? { q } : {}), sort, ...(after ? { after } : {}) })}`
  return (
    <section aria-labelledby="books-heading">
      <div className="mb-6 flex flex-wrap items-center justify-between gap-4">
        <h1 id="books-heading" className="text-2xl font-semibold">
          Books
        </h1>
        <Link to="/admin/books/new" className={primaryButton}>
          New book
        </Link>
      </div>
      <FilterForm submitLabel="Show" className="mb-6" role="search">
        <TextField
          label="Search title, author or slug"
          name="q"
          type="search"
          defaultValue={q}
          maxLength={ADMIN_QUERY_MAX}
        />
        <SelectField label="Sort by" name="sort" defaultValue={sort}>
          <Options options={ADMIN_SORTS.map((value) => ({ value, label: sortLabels[value] }))} />
        </SelectField>
      </FilterForm>
      {books.length === 0 ? (
        <p>{q ? `No book matches “${q}”.` : 'No books yet.'}</p>
      ) : (
        <DataTable
          caption={`Books, sorted by ${sortLabels[sort].toLowerCase()}`}
          columns={columns}
          rows={books}
          rowKey={(book) => book.id}
        />
      )}
      <Pager
        label="Book list pages"
        first={isFirstPage ? null : { to: pageLink(), label: 'First page' }}
        next={next === null ? null : { to: pageLink(next), label: 'Next page' }}
      />
      <FillPricesForm
        base={currencies[0]!}
        others={currencies.slice(1)}
        answer={actionData as FillPricesAnswer | undefined}
      />
    </section>
  )
}
