import { Link } from 'react-router'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { MONEY_LABELS } from '#app/features/accounts/components/money-table.tsx'
import type { MoneyFigures } from '#app/features/accounts/money.ts'
import { getAdminOverview } from '#app/features/admin/overview.server.ts'
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

/** Today's and this month's money, the last orders, and what waits for the owner. */
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

/** An amount taken off: '-$1.90' (a negative one, more tax refunded than charged, is added back). */
const less = (cents: number, currency: string) => formatPrice(cents === 0 ? 0 : -cents, currency)

/** A period's money, per currency: net revenue large, then how it came about. */
function RevenueFigure({ label, money }: { label: string; money: MoneyFigures[] }) {
  return (
    <div className={cardClass}>
      <h3 className="text-sm font-medium text-slate-700 dark:text-slate-300">{label}</h3>
      {money.length === 0 ? (
        <p className="text-2xl font-semibold">No sales</p>
      ) : (
        money.map((line) => (
          <div key={line.currency} className="mt-2">
            <p>
              <span className="text-2xl font-semibold">{formatPrice(line.netCents, line.currency)}</span>{' '}
              <span className={mutedClass}>{MONEY_LABELS.netCents.toLowerCase()}</span>
            </p>
            <p className={mutedClass}>
              <span>
                {line.orders} {line.orders === 1 ? 'order' : 'orders'}
              </span>
              , <span>{line.refunds === 1 ? '1 refund' : `${line.refunds} refunds`}</span>
            </p>
            <dl className="mt-1 grid grid-cols-[auto_auto] justify-start gap-x-4 text-sm">
              <dt>{MONEY_LABELS.grossCents}</dt>
              <dd className="text-right tabular-nums">{formatPrice(line.grossCents, line.currency)}</dd>
              <dt>{MONEY_LABELS.refundsCents}</dt>
              <dd className="text-right tabular-nums">{less(line.refundsCents, line.currency)}</dd>
              <dt>{MONEY_LABELS.taxCents}</dt>
              <dd className="text-right tabular-nums">{less(line.taxCents, line.currency)}</dd>
            </dl>
          </div>
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
          <p className={`mb-3 ${mutedClass}`}>
            Per currency, in UTC days: gross sales of the orders paid, less refunds confirmed, less tax, is
            net revenue.{' '}
            <Link to="/admin/accounts" className={linkClass}>
              Accounts
            </Link>{' '}
            has any period and the accountant&rsquo;s files.
          </p>
          <div className="grid gap-4 sm:grid-cols-2">
            <RevenueFigure label="Today" money={today} />
            <RevenueFigure label="This month" money={month} />
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
