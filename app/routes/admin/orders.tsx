import { data, Form, Link } from 'react-router'
import { formatPrice } from '#app/features/catalog/format.ts'
import {
  BUYER_FILTER_MAX_LENGTH,
  ORDER_STATUS_OPTIONS,
  orderFiltersQuery,
  type OrderFilterField,
} from '#app/features/orders/admin-order-filters.ts'
import { parseOrderFilters } from '#app/features/orders/admin-order-filters.server.ts'
import { listBookChoices, listOrdersForAdmin } from '#app/features/orders/admin-orders.server.ts'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/orders'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = () =>
  privatePageMeta('Orders — Back office', 'Orders in the CodeBook back office.')

const MAX_ORDER_NUMBER = 2_147_483_647

/**
 * The store's orders, filtered by the GET form (status, dates, buyer, book), newest first, paged by keyset
 * (`before` = the last order number of the previous page). A bad filter is answered 400 with its message
 * next to the field, and no list.
 */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const parsed = parseOrderFilters(url.searchParams)
  const raw = url.searchParams.get('before')
  // A malformed cursor shows the first page rather than failing (as the audit log does); so does one beyond
  // what an order number (a PostgreSQL integer) can hold, which the database would refuse.
  const beforeNumber =
    raw && /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= MAX_ORDER_NUMBER ? Number(raw) : undefined
  const bookChoices = await listBookChoices(db)
  const base = { values: parsed.values, bookChoices, isFirstPage: beforeNumber === undefined }
  if (!parsed.ok)
    return data({ ...base, errors: parsed.errors, orders: [], nextBeforeNumber: null }, { status: 400 })
  const { rows, nextBeforeNumber } = await listOrdersForAdmin(db, parsed.filters, { beforeNumber })
  return {
    ...base,
    errors: {} as Partial<Record<OrderFilterField, string>>,
    nextBeforeNumber,
    orders: rows.map((row) => ({
      id: row.id,
      number: row.number,
      createdAt: row.createdAt.toISOString(),
      buyerEmail: row.buyerEmail,
      titles: row.titles,
      lineCount: row.lineCount,
      total: formatPrice(row.totalCents, row.currency),
      status: row.status,
    })),
  }
}

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'medium',
  timeStyle: 'short',
  timeZone: 'UTC',
})

const statusLabels: Record<(typeof ORDER_STATUS_OPTIONS)[number], string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  failed: 'Payment failed',
  refunded: 'Refunded',
}

const selectClass =
  'rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400'
const linkClass = 'text-blue-700 underline dark:text-blue-300'

export default function AdminOrders({ loaderData }: Route.ComponentProps) {
  const { values, errors, bookChoices, orders, nextBeforeNumber, isFirstPage } = loaderData
  const query = orderFiltersQuery(values)
  const withQuery = (path: string, extra: Record<string, string> = {}) => {
    const params = new URLSearchParams(query)
    for (const [key, value] of Object.entries(extra)) params.set(key, value)
    const search = params.toString()
    return search ? `${path}?${search}` : path
  }
  const hasErrors = Object.keys(errors).length > 0
  return (
    <section aria-labelledby="orders-heading">
      <h1 id="orders-heading" className="mb-4 text-2xl font-semibold">
        Orders
      </h1>
      <Form method="get" className="mb-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Filter orders">
        <FilterSelect label="Status" name="status" value={values.status} error={errors.status}>
          <option value="">Any status</option>
          {ORDER_STATUS_OPTIONS.map((status) => (
            <option key={status} value={status}>
              {statusLabels[status]}
            </option>
          ))}
        </FilterSelect>
        <TextField
          label="From (UTC)"
          name="from"
          type="date"
          defaultValue={values.from}
          error={errors.from}
        />
        <TextField label="To (UTC)" name="to" type="date" defaultValue={values.to} error={errors.to} />
        <TextField
          label="Buyer email contains"
          name="buyer"
          type="search"
          maxLength={BUYER_FILTER_MAX_LENGTH}
          defaultValue={values.buyer}
          error={errors.buyer}
        />
        <FilterSelect label="Book" name="book" value={values.book} error={errors.book}>
          <option value="">Any book</option>
          {bookChoices.map((book) => (
            <option key={book.id} value={book.id}>
              {book.title}
            </option>
          ))}
        </FilterSelect>
        <div className="flex items-end gap-4">
          <button type="submit" className={primaryButton}>
            Filter
          </button>
          <Link to="/admin/orders" className={linkClass}>
            Clear filters
          </Link>
        </div>
      </Form>
      {hasErrors ? (
        <p role="alert" className="mb-4 text-red-700 dark:text-red-300">
          Please correct the filters marked above.
        </p>
      ) : (
        <p className="mb-4">
          <a href={withQuery('/admin/orders/export.csv')} className={linkClass} download>
            Export CSV
          </a>
          <span className="ml-2 text-sm text-slate-700 dark:text-slate-300">
            (every order matching these filters)
          </span>
        </p>
      )}
      {!hasErrors && orders.length === 0 ? (
        <p>No orders match these filters.</p>
      ) : orders.length > 0 ? (
        <div className="overflow-x-auto">
          <table className="w-full border-collapse text-left text-sm">
            <caption className="sr-only">Orders, newest first (times in UTC)</caption>
            <thead>
              <tr className="border-b border-slate-300 dark:border-gray-600">
                {['Order', 'Date (UTC)', 'Buyer', 'Books', 'Total', 'Status'].map((heading) => (
                  <th key={heading} scope="col" className="py-2 pr-4">
                    {heading}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {orders.map((order) => (
                <tr key={order.id} className="border-b border-slate-200 align-top dark:border-gray-700">
                  <th scope="row" className="py-2 pr-4 font-medium">
                    <Link to={`/admin/orders/${order.id}`} className={linkClass}>
                      #{order.number}
                    </Link>
                  </th>
                  <td className="py-2 pr-4 whitespace-nowrap">
                    <time dateTime={order.createdAt}>{dateFormat.format(new Date(order.createdAt))}</time>
                  </td>
                  <td className="py-2 pr-4 break-all">{order.buyerEmail}</td>
                  <td className="py-2 pr-4">
                    {order.titles}
                    {order.lineCount > 1 ? (
                      <span className="text-slate-700 dark:text-slate-300"> ({order.lineCount} books)</span>
                    ) : null}
                  </td>
                  <td className="py-2 pr-4 whitespace-nowrap">{order.total}</td>
                  <td className="py-2 pr-4 whitespace-nowrap">
                    <OrderStatus status={order.status} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <nav aria-label="Order pages" className="mt-6 flex gap-4">
        {!isFirstPage && (
          <Link to={withQuery('/admin/orders')} className={linkClass}>
            Newest orders
          </Link>
        )}
        {nextBeforeNumber !== null && (
          <Link to={withQuery('/admin/orders', { before: String(nextBeforeNumber) })} className={linkClass}>
            Older orders
          </Link>
        )}
      </nav>
    </section>
  )
}

function FilterSelect({
  label,
  name,
  value,
  error,
  children,
}: {
  label: string
  name: string
  value: string
  error?: string
  children: React.ReactNode
}) {
  const errorId = `${name}-filter-error`
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={`${name}-filter`} className="text-sm font-medium">
        {label}
      </label>
      <select
        id={`${name}-filter`}
        name={name}
        defaultValue={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        className={selectClass}
      >
        {children}
      </select>
      {error ? (
        <p id={errorId} className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
