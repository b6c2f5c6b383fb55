import { Link } from 'react-router'
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
  const { rows, next } = await listAdminBooks(getAppContext(context).db, { q, sort, after })
  return {
    q,
    sort,
    isFirstPage: !after,
    next,
    books: rows.map((book) => ({ ...book, createdAt: book.createdAt.toISOString() })),
  }
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

export default function AdminBooks({ loaderData }: Route.ComponentProps) {
  const { q, sort, books, next, isFirstPage } = loaderData
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
    </section>
  )
}
