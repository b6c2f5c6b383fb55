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
import { OrderStatus, orderStatusLabel } from '#app/features/orders/components/order-status.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { DataTable, type Column } from '#app/components/ui/data-table.tsx'
import { formFields, Options, SelectField } from '#app/components/ui/field.tsx'
import { Pager } from '#app/components/ui/pager.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/orders'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Orders — Back office', 'Orders in the CodeBook back office.', { matches })

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

const linkClass = 'text-blue-700 underline dark:text-blue-300'

type Order = Route.ComponentProps['loaderData']['orders'][number]

const columns: Column<Order>[] = [
  {
    header: 'Order',
    rowHeader: true,
    className: 'font-medium',
    cell: (order) => (
      <Link to={`/admin/orders/${order.id}`} className={linkClass}>
        #{order.number}
      </Link>
    ),
  },
  {
    header: 'Date (UTC)',
    className: 'whitespace-nowrap',
    cell: (order) => <FormattedDate value={order.createdAt} style="dateTime" />,
  },
  { header: 'Buyer', cell: (order) => <BreakableToken>{order.buyerEmail}</BreakableToken> },
  {
    header: 'Books',
    cell: (order) => (
      <>
        {order.titles}
        {order.lineCount > 1 ? (
          <span className="text-slate-700 dark:text-slate-300"> ({order.lineCount} books)</span>
        ) : null}
      </>
    ),
  },
  { header: 'Total', className: 'whitespace-nowrap', cell: (order) => order.total },
  {
    header: 'Status',
    className: 'whitespace-nowrap',
    cell: (order) => <OrderStatus status={order.status} />,
  },
]

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
  const field = formFields(values, errors)
  return (
    <TitledSection
      id="orders-heading"
      title="Orders"
      level={1}
      headingClassName="mb-4 text-2xl font-semibold"
    >
      <Form method="get" className="mb-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Filter orders">
        <SelectField label="Status" {...field('status')}>
          <option value="">Any status</option>
          <Options
            options={ORDER_STATUS_OPTIONS.map((value) => ({ value, label: orderStatusLabel(value) }))}
          />
        </SelectField>
        <TextField label="From (UTC)" {...field('from')} type="date" />
        <TextField label="To (UTC)" {...field('to')} type="date" />
        <TextField
          label="Buyer email contains"
          {...field('buyer')}
          type="search"
          maxLength={BUYER_FILTER_MAX_LENGTH}
        />
        <SelectField label="Book" {...field('book')}>
          <option value="">Any book</option>
          <Options options={bookChoices.map((book) => ({ value: book.id, label: book.title }))} />
        </SelectField>
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
        <DataTable
          caption="Orders, newest first (times in UTC)"
          columns={columns}
          rows={orders}
          rowKey={(order) => order.id}
        />
      ) : null}
      <Pager
        label="Order pages"
        first={isFirstPage ? null : { to: withQuery('/admin/orders'), label: 'Newest orders' }}
        next={
          nextBeforeNumber === null
            ? null
            : { to: withQuery('/admin/orders', { before: String(nextBeforeNumber) }), label: 'Older orders' }
        }
      />
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
