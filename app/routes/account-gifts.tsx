import { data, Form, Link } from 'react-router'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { GIFT_RESEND_MINUTES, resendGift } from '#app/features/gifts/gift-delivery.server.ts'
import { listGiftsOfBuyer } from '#app/features/gifts/gifts.server.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/account-gifts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('My gifts', 'The eBooks you gave at CodeBook.', { matches })

/** The gifts a reader bought (issue 30), with where each one is: waiting for its day, sent, claimed, taken back. */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url })
  return { gifts: await listGiftsOfBuyer(getAppContext(context).db, user.id) }
}

const resendMessages = {
  sent: 'The mail was sent again, with a new link (the old one no longer works).',
  'not-found': 'We could not find that gift. Please reload the page.',
  claimed: 'This gift has been claimed already.',
  revoked: 'This gift was refunded, so it cannot be sent.',
  'too-soon': `The mail went out less than ${GIFT_RESEND_MINUTES} minutes ago. Please wait a little before sending it again.`,
} as const

export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireUser({ request, context, url })
  const app = getAppContext(context)
  const form = await readForm(request)
  const giftId = String(form.get('giftId') ?? '')
  const outcome = isUuid(giftId) ? await resendGift(app.db, giftId, user.id, app.env.publicUrl) : 'not-found'
  if (outcome === 'sent') app.kickOutbox()
  return data(
    { giftId, outcome, message: resendMessages[outcome] },
    outcome === 'sent' ? 200 : outcome === 'not-found' ? 404 : outcome === 'too-soon' ? 429 : 409,
  )
}

const stateLabels = {
  unpaid: 'Not paid',
  scheduled: 'Waiting for its day',
  sent: 'Sent, not yet claimed',
  claimed: 'Claimed',
  revoked: 'Refunded: taken back',
} as const

export default function AccountGifts({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as { giftId: string; outcome: string; message: string } | undefined
  return (
    <section className="mx-auto max-w-4xl px-4 py-12">
      <SectionHeading level={1}>My gifts</SectionHeading>
      {answer ? (
        <p role={answer.outcome === 'sent' ? 'status' : 'alert'} className="mb-4 font-medium">
          {answer.message}
        </p>
      ) : null}
      {loaderData.gifts.length === 0 ? (
        <p>
          You have not given any eBooks yet. Every book and bundle page has a{' '}
          <Link to="/AllBooks" className="underline">
            Give as a gift
          </Link>{' '}
          link.
        </p>
      ) : (
        <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 dark:divide-gray-700 dark:border-gray-700">
          {loaderData.gifts.map((gift) => (
            <li key={gift.id} className="flex flex-wrap items-center gap-4 p-4">
              <div className="flex flex-1 flex-col gap-1">
                <span className="font-semibold">{gift.title}</span>
                <span className="text-sm text-slate-700 dark:text-slate-300">
                  For {gift.recipientEmail} · delivered <FormattedDate value={gift.deliverOn} />
                </span>
              </div>
              <span className="text-sm font-medium">{stateLabels[gift.state]}</span>
              {gift.orderId ? (
                <Link to={`/orders/${gift.orderId}`} className="text-sm underline">
                  Order
                </Link>
              ) : null}
              {gift.state === 'sent' || gift.state === 'scheduled' ? (
                <Form method="post">
                  <input type="hidden" name="giftId" value={gift.id} />
                  <button
                    type="submit"
                    className="rounded border border-slate-400 px-3 py-1 text-sm dark:border-gray-500"
                    aria-label={`Send the gift to ${gift.recipientEmail} again, now`}
                  >
                    Send again now
                  </button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
