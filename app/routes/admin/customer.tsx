import { data, Link } from 'react-router'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { getCustomer } from '#app/features/admin/customers.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/customer'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'

export const meta: Route.MetaFunction = ({ data: loaderData, matches }) =>
  privatePageMeta(`${loaderData?.customer.email ?? 'Customer'} — Back office`, 'A customer of the store.', {
    matches,
  })

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const found = await getCustomer(getAppContext(context).db, params.userId)
  if (!found) throw data({ title: 'Customer not found' }, { status: 404 })
  const iso = (date: Date) => date.toISOString()
  return {
    customer: { ...found.customer, createdAt: iso(found.customer.createdAt) },
    orders: found.orders.map((order) => ({ ...order, createdAt: iso(order.createdAt) })),
    library: found.library.map((item) => ({ ...item, acquiredAt: iso(item.acquiredAt) })),
    reviews: found.reviews.map((review) => ({ ...review, createdAt: iso(review.createdAt) })),
    audit: found.audit.map((entry) => ({
      id: entry.id,
      action: entry.action,
      actorEmail: entry.actorEmail,
      createdAt: iso(entry.createdAt),
    })),
  }
}

const linkClass = 'text-blue-700 underline dark:text-sky-300'
const headingClass = 'mb-3 text-xl font-semibold'

export default function Customer({ loaderData }: Route.ComponentProps) {
  const { customer } = loaderData
  return (
    <TitledSection
      id="customer-heading"
      title={<BreakableToken>{customer.email}</BreakableToken>}
      level={1}
      headingClassName="mb-2 text-2xl font-semibold"
    >
      <p className="mb-6 text-sm text-slate-700 dark:text-slate-300">
        {customer.role} · {customer.emailVerified ? 'email confirmed' : 'email not confirmed'} · since{' '}
        <FormattedDate value={customer.createdAt} />
      </p>
      <div className="flex flex-col gap-8">
        <TitledSection
          id="customer-orders"
          title={`Orders (${loaderData.orders.length})`}
          headingClassName={headingClass}
        >
          <DataTable
            caption="Orders, newest first"
            rowKey={(order) => order.id}
            rows={loaderData.orders}
            columns={[
              {
                header: 'Order',
                rowHeader: true,
                cell: (order) => (
                  <Link to={`/admin/orders/${order.id}`} className={linkClass}>
                    #{order.number}
                  </Link>
                ),
              },
              {
                header: 'Date',
                cell: (order) => <FormattedDate value={order.createdAt} />,
                className: 'whitespace-nowrap',
              },
              { header: 'Status', cell: (order) => <OrderStatus status={order.status} /> },
              { header: 'Total', cell: (order) => formatPrice(order.totalCents, order.currency) },
            ]}
          />
        </TitledSection>
        <TitledSection
          id="customer-library"
          title={`Library (${loaderData.library.length})`}
          headingClassName={headingClass}
        >
          <DataTable
            caption="Books owned, by title"
            rowKey={(item) => item.bookId}
            rows={loaderData.library}
            columns={[
              {
                header: 'Book',
                rowHeader: true,
                cell: (item) => (
                  <Link to={`/admin/books/${item.bookId}`} className={linkClass}>
                    {item.title}
                  </Link>
                ),
              },
              {
                header: 'Since',
                cell: (item) => <FormattedDate value={item.acquiredAt} />,
                className: 'whitespace-nowrap',
              },
              { header: 'Downloads', cell: (item) => item.downloadCount },
            ]}
          />
        </TitledSection>
        <TitledSection
          id="customer-reviews"
          title={`Reviews (${loaderData.reviews.length})`}
          headingClassName={headingClass}
        >
          <DataTable
            caption="Reviews, newest first"
            rowKey={(review) => review.id}
            rows={loaderData.reviews}
            columns={[
              { header: 'Book', rowHeader: true, cell: (review) => review.bookTitle },
              { header: 'Rating', cell: (review) => `${review.rating} of 5` },
              { header: 'Title', cell: (review) => review.title },
              { header: 'Shown', cell: (review) => (review.visible ? 'yes' : 'hidden') },
            ]}
          />
        </TitledSection>
        <TitledSection id="customer-audit" title="Audit log" headingClassName={headingClass}>
          <DataTable
            caption="Changes made to this account by admins, newest first"
            rowKey={(entry) => entry.id}
            rows={loaderData.audit}
            columns={[
              {
                header: 'When',
                cell: (entry) => <FormattedDate value={entry.createdAt} style="dateTime" />,
                className: 'whitespace-nowrap',
              },
              { header: 'Action', rowHeader: true, cell: (entry) => entry.action },
              { header: 'By', cell: (entry) => <BreakableToken>{entry.actorEmail}</BreakableToken> },
            ]}
          />
        </TitledSection>
      </div>
      <p className="mt-6">
        <Link to="/admin/customers" className={linkClass}>
          All customers
        </Link>
      </p>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
