import { Form, Link } from 'react-router'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

type Delivery =
  | { state: 'queued'; at: string; retrying: boolean }
  | { state: 'sent'; at: string }
  | { state: 'failed'; at: string; error: string }

const textButton =
  'inline-flex items-center rounded-lg border border-slate-400 px-3 py-1.5 text-sm font-medium hover:bg-slate-100 dark:border-gray-500 dark:hover:bg-gray-800'
const muted = 'text-sm text-slate-700 dark:text-slate-300'

/**
 * A library book's Send to Kindle (issue 33): the button (or where to set it up), and where the last send
 * stands — queued, sent or failed — with what the button just did.
 */
export function KindleStatus({
  slug,
  title,
  address,
  delivery,
  answer,
}: {
  slug: string
  title: string
  address: string | null
  delivery: Delivery | null
  answer: { notice?: string; error?: string } | undefined
}) {
  if (!address) {
    return (
      <p className={muted}>
        <Link to="/account#kindle" className="font-medium text-blue-700 underline dark:text-sky-300">
          Set up Send to Kindle
        </Link>{' '}
        to mail this eBook to your Kindle.
      </p>
    )
  }
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <Form method="post">
        <input type="hidden" name="intent" value="send-to-kindle" />
        <input type="hidden" name="slug" value={slug} />
        <button type="submit" className={textButton} aria-label={`Send to Kindle: ${title}`}>
          Send to Kindle
        </button>
      </Form>
      {answer?.notice ? (
        <p role="status" className="text-sm font-medium text-emerald-800 dark:text-emerald-300">
          {answer.notice}
        </p>
      ) : answer?.error ? (
        <p role="alert" className="text-sm font-medium text-red-700 dark:text-red-300">
          {answer.error}
        </p>
      ) : null}
      {delivery ? <DeliveryState delivery={delivery} /> : null}
    </div>
  )
}

function DeliveryState({ delivery }: { delivery: Delivery }) {
  if (delivery.state === 'sent') {
    return (
      <p className={muted}>
        Sent to your Kindle <FormattedDate value={delivery.at} style="dateTime" />
      </p>
    )
  }
  if (delivery.state === 'failed') {
    return (
      <p className="text-sm text-red-700 dark:text-red-300">
        Could not be sent to your Kindle (<FormattedDate value={delivery.at} style="dateTime" />; the mail
        server said: {delivery.error}). Check your Kindle address on your{' '}
        <Link to="/account#kindle" className="underline">
          account page
        </Link>
        , then send it again.
      </p>
    )
  }
  return (
    <p className={muted}>
      Queued for your Kindle <FormattedDate value={delivery.at} style="dateTime" />
      {delivery.retrying ? ': the first attempt failed, we are trying again.' : ''}
    </p>
  )
}
