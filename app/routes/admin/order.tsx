import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { z } from 'zod'
import { dangerButton } from '#app/components/ui/button-styles.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { REFUND_REASON_MAX_LENGTH } from '#app/features/orders/admin-order-filters.ts'
import { parseRefundForm } from '#app/features/orders/admin-order-filters.server.ts'
import { getOrderForAdmin, refundFromBackOffice } from '#app/features/orders/admin-order.server.ts'
import { OrderStatus } from '#app/features/orders/components/order-status.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/order'
import { errorPageMeta, privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'

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

/** The buyer's name, when it says more than their email (an account registered by email is named by it). */
function nameBesideEmail(buyer: { name: string; email: string }): string | null {
  const name = buyer.name.trim()
  return name && name.toLowerCase() !== buyer.email.toLowerCase() ? name : null
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
  const iso = (date: Date | null) => date?.toISOString() ?? null
  const notice = url.searchParams.get('refund')
  return {
    notice: notice === 'done' || notice === 'requested' ? notice : null,
    order: {
      id: order.id,
      number: order.number,
      status: order.status,
      total: formatPrice(order.totalCents, order.currency),
      createdAt: order.createdAt.toISOString(),
      buyer: { ...order.buyer, name: nameBesideEmail(order.buyer) },
      payment: {
        provider: order.paymentProvider,
        reference: order.paymentReference,
        card: order.cardBrand && order.cardLast4 ? `${order.cardBrand} ending ${order.cardLast4}` : null,
        paidAt: iso(order.paidAt),
        failureReason: order.failureReason,
      },
      refund: {
        requestedAt: iso(order.refundRequestedAt),
        reference: order.refundReference,
        refundedAt: iso(order.refundedAt),
      },
      canRefund: order.canRefund,
      lines: order.lines.map((line) => ({
        bookId: line.bookId,
        title: line.title,
        price: formatPrice(line.priceCents, line.currency),
        library:
          line.library.kind === 'none' || line.library.kind === 'revoked'
            ? { kind: line.library.kind }
            : {
                kind: line.library.kind,
                downloadCount: line.library.downloadCount,
                lastDownloadedAt: iso(line.library.lastDownloadedAt),
              },
      })),
      mail: order.mail.map((mail) => ({
        id: mail.id,
        kind: mail.kind,
        to: mail.to,
        subject: mail.subject,
        attempts: mail.attempts,
        state: mail.state,
        sentAt: iso(mail.sentAt),
        lastError: mail.lastError,
      })),
    },
    audit: audit.map((entry) => ({
      id: entry.id,
      at: entry.createdAt.toISOString(),
      actor: entry.actorEmail,
      action: entry.action,
      after: entry.after === null ? null : JSON.stringify(entry.after),
    })),
  }
}

type ActionData = {
  fieldErrors?: Partial<Record<'confirm' | 'reason', string>>
  formError?: string
  reason?: string
}

/**
 * The refund form (decision 014). Bad input → 400 with the field's message; an order that is not paid, or
 * whose refund is already on its way → 409 and nothing changes; the provider failing → 502, nothing changed.
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const orderId = orderIdOf(params)
  const app = getAppContext(context)
  const parsed = parseRefundForm(await readForm(request))
  if (!parsed.ok)
    return data<ActionData>({ fieldErrors: parsed.fieldErrors, reason: parsed.reason }, { status: 400 })
  const { reason } = parsed.data
  const result = await refundFromBackOffice(app, {
    orderId,
    actor: { id: admin.id, email: admin.email },
    reason,
  })
  switch (result.outcome) {
    case 'not-found':
      return notFound()
    case 'conflict':
      return data<ActionData>({ formError: result.message, reason }, { status: 409 })
    case 'provider-error':
      return data<ActionData>({ formError: result.message, reason }, { status: 502 })
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
  const { order, audit, notice } = loaderData
  const result = actionData as ActionData | undefined
  const navigation = useNavigation()
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
          The order was refunded: its books left the buyer’s library and the buyer is being mailed.
        </p>
      ) : notice === 'requested' ? (
        <p role="status" className="rounded-lg border border-amber-700 p-3 dark:border-amber-400">
          Stripe accepted the refund. The order is marked refunded (and the buyer mailed) when Stripe confirms
          it.
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

      {order.canRefund ? (
        <TitledSection
          id="refund-heading"
          title="Refund this order"
          headingClassName={sectionHeading}
          className="rounded-lg border border-red-700 p-4 dark:border-red-400"
        >
          <p className={`mb-3 text-sm ${muted}`}>
            Gives {order.total} back to the buyer and takes the books out of their library. The buyer gets an
            email.
          </p>
          <Form method="post" className="flex flex-col gap-3">
            <div className="flex flex-col gap-1">
              <label htmlFor="refund-reason" className="text-sm font-medium">
                Reason (optional, kept in the audit log)
              </label>
              <textarea
                id="refund-reason"
                name="reason"
                rows={3}
                maxLength={REFUND_REASON_MAX_LENGTH}
                defaultValue={result?.reason ?? ''}
                aria-invalid={result?.fieldErrors?.reason ? true : undefined}
                aria-describedby={result?.fieldErrors?.reason ? 'refund-reason-error' : undefined}
                className="rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100"
              />
              {result?.fieldErrors?.reason ? (
                <p id="refund-reason-error" className="text-sm text-red-700 dark:text-red-300">
                  {result.fieldErrors.reason}
                </p>
              ) : null}
            </div>
            <div className="flex flex-col gap-1">
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  name="confirm"
                  value="yes"
                  required
                  aria-invalid={result?.fieldErrors?.confirm ? true : undefined}
                  aria-describedby={result?.fieldErrors?.confirm ? 'refund-confirm-error' : undefined}
                />
                Yes, refund order #{order.number} ({order.total}) to {order.buyer.email}
              </label>
              {result?.fieldErrors?.confirm ? (
                <p id="refund-confirm-error" className="text-sm text-red-700 dark:text-red-300">
                  {result.fieldErrors.confirm}
                </p>
              ) : null}
            </div>
            <div>
              <button type="submit" className={dangerButton} disabled={navigation.state === 'submitting'}>
                Refund
              </button>
            </div>
          </Form>
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
