import crypto from 'node:crypto'
import { data, Link, redirect, useNavigation } from 'react-router'
import { z } from 'zod'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { parseRefundForm } from '#app/features/orders/admin-order-filters.server.ts'
import {
  getOrderForAdmin,
  issueInvoiceFromBackOffice,
  refundFromBackOffice,
} from '#app/features/orders/admin-order.server.ts'
import { AdminOrderDocuments } from '#app/features/orders/components/order-documents.tsx'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'
import { RefundForm, type RefundFormResult } from '#app/features/orders/components/refund-form.tsx'
import { RefundList } from '#app/features/orders/components/refund-list.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/order'
import { errorPageMeta, privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'
import { adminOrderView } from '#app/features/orders/admin-order-view.server.ts'

export const meta: Route.MetaFunction = ({ data: loaderData, matches }) =>
  loaderData
    ? privatePageMeta(
        `Order #${loaderData.order.number} — Back office`,
        'An order in the CodeBook back office.',
        { matches },
      )
    : errorPageMeta()

function notFound(): never {
  throw data(
    { title: 'Page not found', message: 'We could not find the page you asked for.' },
    { status: 404 },
  )
}

function orderIdOf(params: { orderId?: string }) {
  const parsed = z.uuid().safeParse(params.orderId)
  return parsed.success ? parsed.data : notFound()
}

export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const orderId = orderIdOf(params)
  const { db } = getAppContext(context)
  const order = await getOrderForAdmin(db, orderId)
  if (!order) notFound()
  const { rows: audit } = await listAuditLog(db, { entity: { type: 'order', id: orderId }, limit: 20 })
  const notice =
    url.searchParams.get('refund') ?? (url.searchParams.get('invoice') === 'issued' ? 'invoice' : null)
  return {
    notice: notice === 'done' || notice === 'requested' || notice === 'invoice' ? notice : null,
    /** The refund form's key: fresh in every rendering, so a second post of one rendering refunds nothing more. */
    refundKey: crypto.randomUUID(),
    order: adminOrderView(order),
    audit: audit.map((entry) => ({
      id: entry.id,
      at: entry.createdAt.toISOString(),
      actor: entry.actorEmail,
      action: entry.action,
      after: entry.after === null ? null : JSON.stringify(entry.after),
    })),
  }
}

type ActionData = RefundFormResult & { invoiceError?: string }

/**
 * The order page's two forms. The refund (decision 014, issue 31): bad input → 400 with each field's message
 * and nothing changed (an amount more than is left too); an order that is not paid, or whose refund is already
 * on its way → 409 and nothing changes; the provider failing → 502, nothing given back. 'Issue invoice' for a
 * paid order without one: issued now, or 409 with why not.
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const orderId = orderIdOf(params)
  const app = getAppContext(context)
  const actor = { id: admin.id, email: admin.email }
  const form = await readForm(request)
  if (form.get('intent') === 'issue-invoice') {
    const issued = await issueInvoiceFromBackOffice(app, { orderId, actor })
    if (issued.outcome === 'not-found') return notFound()
    if (issued.outcome === 'refused')
      return data<ActionData>({ invoiceError: issued.message }, { status: 409 })
    return redirect(`/admin/orders/${orderId}?invoice=issued`)
  }
  const parsed = parseRefundForm(form)
  if (!parsed.ok)
    return data<ActionData>({ fieldErrors: parsed.fieldErrors, ...parsed.values }, { status: 400 })
  const { reason, what, key } = parsed.data
  const result = await refundFromBackOffice(app, { orderId, actor, reason, what, key: key ?? null })
  switch (result.outcome) {
    case 'not-found':
      return notFound()
    case 'invalid':
      return data<ActionData>(
        { fieldErrors: { [result.field]: result.message }, ...parsed.values },
        { status: 400 },
      )
    case 'conflict':
      return data<ActionData>({ formError: result.message, ...parsed.values }, { status: 409 })
    case 'provider-error':
      return data<ActionData>({ formError: result.message, ...parsed.values }, { status: 502 })
    case 'refunded':
      return redirect(`/admin/orders/${orderId}?refund=done`)
    case 'requested':
      return redirect(`/admin/orders/${orderId}?refund=requested`)
  }
}

/** An instant, with its time (in UTC, as it says), or a dash when it has not happened. */
function When({ at }: { at: string | null }) {
  return at ? <FormattedDate value={at} style="dateTime" /> : '—'
}
const muted = 'text-slate-700 dark:text-slate-300'
const sectionHeading = 'mb-2 text-lg font-semibold'
const cell = 'py-2 pr-4'

export default function AdminOrder({ loaderData, actionData }: Route.ComponentProps) {
  const { order, audit, notice, refundKey } = loaderData
  const result = actionData as ActionData | undefined
  const navigation = useNavigation()
  const refundable = order.lines.filter((line) => line.leftCents > 0)
  return (
    <article aria-labelledby="order-heading" className="flex flex-col gap-8">
      <header className="flex flex-wrap items-center gap-4">
        <h1 id="order-heading" className="text-2xl font-semibold">
          Order #{order.number}
        </h1>
        <OrderStatus status={order.status} />
        <Link to="/admin/orders" className="text-blue-700 underline dark:text-blue-300">
          All orders
        </Link>
      </header>
      {notice === 'done' ? (
        <p role="status" className="rounded-lg border border-emerald-700 p-3 dark:border-emerald-400">
          {order.status === 'refunded'
            ? 'The order was refunded: its books left the buyer’s library and the buyer is being mailed.'
            : 'The refund went through and the buyer is being mailed. A book leaves their library once its line is refunded in full.'}
        </p>
      ) : notice === 'requested' ? (
        <p role="status" className="rounded-lg border border-amber-700 p-3 dark:border-amber-400">
          Stripe accepted the refund. It counts (books taken back, credit note, the buyer mailed) when Stripe
          confirms it.
        </p>
      ) : notice === 'invoice' ? (
        <p role="status" className="rounded-lg border border-emerald-700 p-3 dark:border-emerald-400">
          The invoice was issued: the buyer can download it from their order’s page.
        </p>
      ) : null}

      <TitledSection id="buyer-heading" title="Buyer" headingClassName={sectionHeading}>
        <p>
          {order.buyer.name ? (
            <>
              {order.buyer.name} &lt;{order.buyer.email}&gt;
            </>
          ) : (
            order.buyer.email
          )}
        </p>
        <p className={`text-sm ${muted}`}>
          Ordered <When at={order.createdAt} />
        </p>
      </TitledSection>

      <TitledSection id="lines-heading" title="Books and downloads" headingClassName={sectionHeading}>
        <table className="w-full border-collapse text-left text-sm">
          <thead>
            <tr className="border-b border-slate-300 dark:border-gray-600">
              <th scope="col" className={cell}>
                Title
              </th>
              <th scope="col" className={cell}>
                Price
              </th>
              <th scope="col" className={cell}>
                Refunded
              </th>
              <th scope="col" className={cell}>
                Downloads by the buyer
              </th>
            </tr>
          </thead>
          <tbody>
            {order.lines.map((line) => (
              <tr key={line.bookId} className="border-b border-slate-200 dark:border-gray-700">
                <th scope="row" className={`${cell} font-medium`}>
                  {line.title}
                </th>
                <td className={cell}>{line.price}</td>
                <td className={cell}>{line.refunded ?? '—'}</td>
                <td className={cell}>
                  {line.library.kind === 'revoked' ? (
                    'Revoked (refunded)'
                  ) : line.library.kind === 'none' ? (
                    'Not in the library'
                  ) : (
                    <>
                      {`${line.library.downloadCount} download${line.library.downloadCount === 1 ? '' : 's'}`}
                      {line.library.lastDownloadedAt ? (
                        <>
                          , last <When at={line.library.lastDownloadedAt} />
                        </>
                      ) : null}
                      {line.library.kind === 'other-order' ? ' (owned through another order)' : null}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" className={cell}>
                Total
              </th>
              <td className={`${cell} font-semibold`}>{order.total}</td>
              <td />
              <td />
            </tr>
          </tfoot>
        </table>
      </TitledSection>

      <TitledSection id="payment-heading" title="Payment and refund" headingClassName={sectionHeading}>
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="font-medium">Provider</dt>
          <dd>{order.payment.provider}</dd>
          <dt className="font-medium">Reference</dt>
          <dd>
            {order.payment.reference ? <BreakableToken>{order.payment.reference}</BreakableToken> : '—'}
          </dd>
          <dt className="font-medium">Card</dt>
          <dd>{order.payment.card ?? '—'}</dd>
          <dt className="font-medium">Paid</dt>
          <dd>
            <When at={order.payment.paidAt} />
          </dd>
          <dt className="font-medium">Tax</dt>
          <dd>{order.tax.charged}</dd>
          {order.tax.evidence ? (
            <>
              <dt className="font-medium">Where the buyer is</dt>
              <dd>
                {order.tax.evidence.sources}. {order.tax.evidence.judgement}
                {order.tax.evidence.warning ? (
                  <strong className="block font-semibold">{order.tax.evidence.warning}</strong>
                ) : null}
              </dd>
            </>
          ) : null}
          {order.payment.failureReason ? (
            <>
              <dt className="font-medium">Failure</dt>
              <dd>{order.payment.failureReason}</dd>
            </>
          ) : null}
          <dt className="font-medium">Refund asked for</dt>
          <dd>
            <When at={order.refund.requestedAt} />
          </dd>
          <dt className="font-medium">Refund reference</dt>
          <dd>{order.refund.reference ? <BreakableToken>{order.refund.reference}</BreakableToken> : '—'}</dd>
          <dt className="font-medium">Refunded</dt>
          <dd>
            <When at={order.refund.refundedAt} />
          </dd>
        </dl>
      </TitledSection>

      <TitledSection
        id="documents-heading"
        title="Invoice and credit notes"
        headingClassName={sectionHeading}
      >
        <AdminOrderDocuments
          documents={order.documents}
          missingInvoice={order.missingInvoice}
          error={result?.invoiceError}
          submitting={navigation.state === 'submitting'}
        />
      </TitledSection>

      {order.refunds.length > 0 ? (
        <TitledSection id="refunds-heading" title="Refunds" headingClassName={sectionHeading}>
          <RefundList refunds={order.refunds} />
        </TitledSection>
      ) : null}

      {order.canRefund ? (
        <TitledSection
          id="refund-heading"
          title="Refund this order"
          headingClassName={sectionHeading}
          className="rounded-lg border border-red-700 p-4 dark:border-red-400"
        >
          <p className={`mb-3 text-sm ${muted}`}>
            Gives money back to the buyer ({order.left} is left of {order.total}). A book leaves their library
            once its line is refunded in full. The buyer gets an email, with a credit note if the order has an
            invoice.
          </p>
          <RefundForm
            order={{
              number: order.number,
              buyerEmail: order.buyer.email,
              left: order.left,
              currency: order.currency,
            }}
            lines={refundable}
            refundKey={refundKey}
            result={result}
            submitting={navigation.state === 'submitting'}
          />
        </TitledSection>
      ) : null}
      {result?.formError ? (
        <p role="alert" className="text-red-700 dark:text-red-300">
          {result.formError}
        </p>
      ) : null}

      <TitledSection id="mail-heading" title="Mail about this order" headingClassName={sectionHeading}>
        {order.mail.length === 0 ? (
          <p className="text-sm">None.</p>
        ) : (
          <ul className="flex flex-col gap-2 text-sm">
            {order.mail.map((mail) => (
              <li key={mail.id}>
                <span className="font-medium">{mail.kind}</span> to {mail.to}: “{mail.subject}” —{' '}
                {mail.state === 'sent' ? (
                  <>
                    sent <When at={mail.sentAt} />
                  </>
                ) : (
                  `${mail.state}, ${mail.attempts} attempt${mail.attempts === 1 ? '' : 's'}`
                )}
                {mail.lastError && mail.state !== 'sent' ? (
                  <span className={muted}> (last error: {mail.lastError})</span>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </TitledSection>

      <TitledSection
        id="history-heading"
        title="Changes made in the back office"
        headingClassName={sectionHeading}
      >
        {audit.length === 0 ? (
          <p className="text-sm">None.</p>
        ) : (
          <ul className="flex flex-col gap-1 text-sm">
            {audit.map((entry) => (
              <li key={entry.id}>
                <When at={entry.at} /> — {entry.actor}: {entry.action}
              </li>
            ))}
          </ul>
        )}
      </TitledSection>
    </article>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
