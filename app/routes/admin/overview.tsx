import { Link } from 'react-router'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { getAdminOverview, type Revenue } from '#app/features/admin/overview.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/overview'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Back office', 'The CodeBook back office.', { matches })

/** Today's and this month's revenue, the last orders, and what waits for the owner. */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const overview = await getAdminOverview(getAppContext(context).db)
  return {
    ...overview,
    lastOrders: overview.lastOrders.map((order) => ({ ...order, createdAt: order.createdAt.toISOString() })),
    failedMails: overview.failedMails.map((mail) => ({ ...mail, createdAt: mail.createdAt.toISOString() })),
    refundsPending: overview.refundsPending.map((order) => ({
      ...order,
      refundRequestedAt: order.refundRequestedAt?.toISOString() ?? null,
    })),
  }
}

const cardClass = 'rounded-lg border border-slate-200 p-4 dark:border-gray-700'
const linkClass = 'text-blue-700 underline dark:text-sky-300'
const mutedClass = 'text-sm text-slate-700 dark:text-slate-300'

function RevenueFigure({ label, revenue }: { label: string; revenue: Revenue[] }) {
  return (
    <div className={cardClass}>
      <h3 className="text-sm font-medium text-slate-700 dark:text-slate-300">{label}</h3>
      {revenue.length === 0 ? (
        <p className="text-2xl font-semibold">{formatPrice(0, 'USD')}</p>
      ) : (
        revenue.map((line) => (
          <p key={line.currency}>
            <span className="text-2xl font-semibold">{formatPrice(line.totalCents, line.currency)}</span>{' '}
            <span className={mutedClass}>
              {line.orderCount} {line.orderCount === 1 ? 'order' : 'orders'}
            </span>
          </p>
        ))
      )}
    </div>
  )
}

export default function AdminOverview({ loaderData }: Route.ComponentProps) {
  const {
    today,
    month,
    lastOrders,
    reportedReviews,
    failedMails,
    failedMailCount,
    refundsPending,
    openErrata,
  } = loaderData
  const nothingWaits =
    reportedReviews === 0 && failedMailCount === 0 && refundsPending.length === 0 && openErrata === 0
  return (
    <TitledSection
      id="admin-heading"
      title="Back office"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <div className="flex flex-col gap-8">
        <TitledSection id="revenue-heading" title="Revenue" headingClassName="mb-3 text-xl font-semibold">
          <p className={`mb-3 ${mutedClass}`}>Gross, from paid orders (UTC days), per currency.</p>
          <div className="grid gap-4 sm:grid-cols-2">
            <RevenueFigure label="Today" revenue={today} />
            <RevenueFigure label="This month" revenue={month} />
          </div>
        </TitledSection>

        <TitledSection
          id="waiting-heading"
          title="Waiting for you"
          headingClassName="mb-3 text-xl font-semibold"
        >
          {nothingWaits ? (
            <p className={mutedClass}>
              Nothing: no reported review, no erratum to triage, no failed mail, no refund pending.
            </p>
          ) : (
            <ul className="flex flex-col gap-3">
              {reportedReviews > 0 ? (
                <li>
                  <Link to="/admin/reviews?filter=reported" className={linkClass}>
                    {reportedReviews} reported {reportedReviews === 1 ? 'review' : 'reviews'}
                  </Link>
                </li>
              ) : null}
              {openErrata > 0 ? (
                <li>
                  <Link to="/admin/errata" className={linkClass}>
                    {openErrata} {openErrata === 1 ? 'erratum' : 'errata'} to triage
                  </Link>
                </li>
              ) : null}
              {refundsPending.length > 0 ? (
                <li>
                  Refunds requested, not yet confirmed by the payment provider:{' '}
                  {refundsPending.map((order, index) => (
                    <span key={order.id}>
                      {index > 0 ? ', ' : ''}
                      <Link to={`/admin/orders/${order.id}`} className={linkClass}>
                        #{order.number}
                      </Link>
                    </span>
                  ))}
                </li>
              ) : null}
              {failedMailCount > 0 ? (
                <li className="flex flex-col gap-2">
                  <p>
                    {failedMailCount} {failedMailCount === 1 ? 'mail' : 'mails'} given up after every retry:
                  </p>
                  <DataTable
                    caption="Mails given up, newest first"
                    rowKey={(mail) => mail.id}
                    rows={failedMails}
                    columns={[
                      {
                        header: 'Queued',
                        cell: (mail) => <FormattedDate value={mail.createdAt} />,
                        className: 'whitespace-nowrap',
                      },
                      { header: 'To', cell: (mail) => <BreakableToken>{mail.to}</BreakableToken> },
                      { header: 'Subject', cell: (mail) => mail.subject, rowHeader: true },
                      { header: 'Last error', cell: (mail) => mail.lastError ?? '' },
                    ]}
                  />
                </li>
              ) : null}
            </ul>
          )}
        </TitledSection>

        <TitledSection
          id="last-orders-heading"
          title="Last orders"
          headingClassName="mb-3 text-xl font-semibold"
        >
          {lastOrders.length === 0 ? (
            <p className={mutedClass}>No orders yet.</p>
          ) : (
            <DataTable
              caption="The last 10 orders, newest first"
              rowKey={(order) => order.id}
              rows={lastOrders}
              columns={[
                {
                  header: 'Order',
                  rowHeader: true,
                  className: 'whitespace-nowrap',
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
                { header: 'Buyer', cell: (order) => <BreakableToken>{order.buyerEmail}</BreakableToken> },
                { header: 'Status', cell: (order) => <OrderStatus status={order.status} /> },
                {
                  header: 'Total',
                  cell: (order) => formatPrice(order.totalCents, order.currency),
                  className: 'whitespace-nowrap',
                },
              ]}
            />
          )}
          <p className="mt-3">
            <Link to="/admin/orders" className={linkClass}>
              All orders
            </Link>
          </p>
        </TitledSection>
      </div>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
