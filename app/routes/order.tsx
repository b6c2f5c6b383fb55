import { useEffect } from 'react'
import { data, Link, useRevalidator } from 'react-router'
import { z } from 'zod'
import { errorData } from '#app/components/error-boundary.tsx'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { OrderLines } from '#app/features/orders/components/order-lines.tsx'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'
import { getOrderForUser } from '#app/features/orders/order-history.server.ts'
import { OrderDocuments } from '#app/features/orders/components/order-documents.tsx'
import { listInvoicesOfOrder } from '#app/features/invoices/invoices.server.ts'
import { SellerBlock } from '#app/features/settings/components/seller-block.tsx'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/order'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
  privatePageMeta(
    loaderData ? headingOf(loaderData.order) : 'Order not found',
    'An order you placed at CodeBook.',
    { matches },
  )

/**
 * A failed payment is not an order to its buyer (My orders leaves it out), but its page stays: a Stripe
 * payment can fail after the buyer came back to this page, which must then say so.
 */
function headingOf(order: { number: number; status: string }) {
  return order.status === 'failed' ? 'Payment failed' : `Order #${order.number}`
}

/** An order's page, for its buyer only: for anyone else it does not exist (404, never 403). */
export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url })
  const orderId = z.uuid().safeParse(params.orderId)
  const { db } = getAppContext(context)
  const order = orderId.success ? await getOrderForUser(db, user.id, orderId.data) : undefined
  if (!order)
    throw data(errorData('Order not found', 'We could not find that order in your account.'), { status: 404 })
  // The order is this buyer's: so are its invoice and credit notes, each a download (routes/order-invoice.ts).
  const documents = (await listInvoicesOfOrder(db, order.id)).map((document) => ({
    id: document.id,
    kind: document.kind,
    number: document.number,
    issuedAt: document.issuedAt.toISOString(),
    total: formatPrice(document.totalCents, document.currency),
    href: `/orders/${order.id}/invoices/${document.id}`,
  }))
  return { order, documents }
}

export default function Order({ loaderData }: Route.ComponentProps) {
  const { order, documents } = loaderData
  const price = (cents: number) => formatPrice(cents, order.currency)
  return (
    <section className="mx-auto max-w-3xl px-4 py-12">
      <SectionHeading level={1}>{headingOf(order)}</SectionHeading>
      {order.status === 'paid' && order.refundedCents > 0 ? (
        <p role="status" className="mb-6 text-center text-lg">
          {price(order.refundedCents)} of this order was refunded. A book left your library if its price was
          refunded in full; the others are still yours.
        </p>
      ) : order.status === 'paid' ? (
        <p role="status" className="mb-6 text-center text-lg">
          Thank you! Your payment went through and your eBooks are in your library. A receipt is on its way.
        </p>
      ) : order.status === 'pending' ? (
        <p role="status" className="mb-6 text-center text-lg">
          We are waiting for the payment to be confirmed. This page updates when it is; if it does not, reload
          it in a moment.
          <RefreshWhilePending />
        </p>
      ) : order.status === 'failed' ? (
        <p role="status" className="mb-6 text-center text-lg">
          This payment did not go through: nothing was charged, and it is not an order. The eBooks are still
          in your cart;{' '}
          <Link to="/checkout" className="font-medium text-blue-700 underline dark:text-sky-300">
            try again at checkout
          </Link>
          .
        </p>
      ) : order.status === 'refunded' ? (
        <p role="status" className="mb-6 text-center text-lg">
          This order was refunded: its eBooks left your library, except any you paid for in another order.
        </p>
      ) : null}
      <dl className="mb-6 grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className="font-semibold">Status</dt>
          <dd className="mt-1">
            <OrderStatus status={order.status} />
          </dd>
        </div>
        <div>
          <dt className="font-semibold">Date</dt>
          <dd className="mt-1">
            <FormattedDate value={order.createdAt} />
          </dd>
        </div>
        <div>
          <dt className="font-semibold">Paid with</dt>
          <dd className="mt-1">
            {order.cardLast4
              ? `${order.cardBrand} ending ${order.cardLast4}`
              : order.totalCents === 0 && order.paidAt
                ? 'Nothing to pay'
                : '—'}
          </dd>
        </div>
        {order.discountCents > 0 ? (
          <div>
            <dt className="font-semibold">Coupon {order.couponCode}</dt>
            <dd className="mt-1">
              −{price(order.discountCents)}
              <span className="text-sm"> (list price {price(order.totalCents + order.discountCents)})</span>
            </dd>
          </div>
        ) : null}
        <div>
          <dt className="font-semibold">Total</dt>
          <dd className="mt-1">{price(order.totalCents)}</dd>
        </div>
        {order.refundedCents > 0 ? (
          <div>
            <dt className="font-semibold">Refunded</dt>
            <dd className="mt-1">{price(order.refundedCents)}</dd>
          </div>
        ) : null}
      </dl>
      <OrderLines lines={order.lines} linkTitles />
      {documents.length > 0 ? (
        <section aria-labelledby="documents-heading" className="mt-8">
          <h2 id="documents-heading" className="mb-3 text-lg font-semibold">
            Invoice and credit notes
          </h2>
          <OrderDocuments documents={documents} />
        </section>
      ) : null}
      <SellerBlock />
      <p className="mt-8 flex flex-wrap justify-center gap-6">
        {order.status === 'paid' ? (
          <Link to="/account/library" className="font-medium text-blue-700 underline dark:text-sky-300">
            Download your eBooks from My Library
          </Link>
        ) : null}
        <Link to="/account/orders" className="font-medium text-blue-700 underline dark:text-sky-300">
          All my orders
        </Link>
        <Link to="/AllBooks" className="font-medium text-blue-700 underline dark:text-sky-300">
          Keep browsing
        </Link>
      </p>
    </section>
  )
}

/**
 * A pending order (Stripe's webhook not yet in) is looked up again every few seconds with JavaScript, so the
 * status region announces 'Paid' when it comes; without JavaScript the text asks for a reload.
 */
function RefreshWhilePending() {
  const revalidator = useRevalidator()
  useEffect(() => {
    const timer = setInterval(() => {
      if (revalidator.state === 'idle') void revalidator.revalidate()
    }, 3_000)
    return () => clearInterval(timer)
  }, [revalidator])
  return null
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
