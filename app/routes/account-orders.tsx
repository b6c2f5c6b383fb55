import { Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'
import { listOrdersForUser } from '#app/features/orders/order-history.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/account-orders'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('My orders', 'The orders you placed at CodeBook, with their receipts.', { matches })

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url })
  return { orders: await listOrdersForUser(getAppContext(context).db, user.id) }
}

export default function AccountOrders({ loaderData }: Route.ComponentProps) {
  const { orders } = loaderData
  return (
    <section className="mx-auto max-w-4xl px-4 py-12">
      <SectionHeading level={1}>My orders</SectionHeading>
      {orders.length === 0 ? (
        <div className="flex flex-col items-center gap-6 py-8 text-center">
          <p className="text-lg">You have not bought any eBooks yet.</p>
          <Link to="/AllBooks" className={primaryButton}>
            Browse all eBooks
          </Link>
        </div>
      ) : (
        <ol className="flex flex-col gap-4">
          {orders.map((order) => (
            <li key={order.id} className="rounded-lg border border-slate-200 p-4 dark:border-gray-700">
              <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
                <h2 className="text-lg font-semibold">
                  <Link to={`/orders/${order.id}`} className="hover:underline">
                    Order #{order.number}
                  </Link>
                </h2>
                <FormattedDate value={order.createdAt} className="text-sm" />
                <OrderStatus status={order.status} />
                <span className="ml-auto font-semibold">{formatPrice(order.totalCents, order.currency)}</span>
              </div>
              <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
                {order.lines.map((line) => line.title).join(' · ')}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
