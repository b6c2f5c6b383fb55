import { data, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { formatFileSize } from '#app/features/catalog/format.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { listLibrary } from '#app/features/library/library.server.ts'
import {
  getKindleAddress,
  listKindleDeliveries,
  type KindleDelivery,
} from '#app/features/library/kindle.server.ts'
import { answerSendToKindle } from '#app/features/library/kindle-form.server.ts'
import { KindleStatus } from '#app/features/library/components/kindle-status.tsx'
import { readForm } from '#app/server/form.server.ts'
import { passOnRetryAfter } from '#app/sign-in.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/library'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('My Library', 'The eBooks you own at CodeBook, ready to download.', { matches })

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url })
  const { db } = getAppContext(context)
  const [books, kindleAddress, deliveries] = await Promise.all([
    listLibrary(db, user.id),
    getKindleAddress(db, user.id),
    listKindleDeliveries(db, user.id),
  ])
  return {
    books: books.map((book) => ({ ...book, kindle: serialize(deliveries.get(book.bookId)) })),
    email: user.email,
    kindleAddress,
  }
}

function serialize(delivery: KindleDelivery | undefined) {
  if (!delivery) return null
  return delivery.state === 'sent'
    ? { state: delivery.state, at: delivery.sentAt.toISOString() }
    : delivery.state === 'failed'
      ? { state: delivery.state, at: delivery.failedAt.toISOString(), error: delivery.error }
      : { state: delivery.state, at: delivery.queuedAt.toISOString(), retrying: delivery.lastError !== null }
}

export const headers: Route.HeadersFunction = passOnRetryAfter

/** 'Send to Kindle' on a book (issue 33): its stamped EPUB is queued for the reader's Kindle. */
export async function action({ request, context, url }: Route.ActionArgs) {
  const user = await requireUser({ request, context, url })
  const { status, retryAfterSeconds, ...body } = await answerSendToKindle(
    getAppContext(context),
    user,
    await readForm(request),
  )
  const headers = retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(retryAfterSeconds) }
  return data(body, { status, headers })
}

const formatNames = { pdf: 'PDF', epub: 'EPUB' } as const

export default function Library({ loaderData, actionData }: Route.ComponentProps) {
  const { books, email, kindleAddress } = loaderData
  return (
    <section className="mx-auto max-w-4xl px-4 py-12">
      <SectionHeading level={1}>My Library</SectionHeading>
      {books.length === 0 ? (
        <div className="flex flex-col items-center gap-6 py-8 text-center">
          <p className="max-w-prose text-lg">
            Your library is empty. The eBooks you buy appear here, ready to download as PDF and EPUB whenever
            you like, on any device.
          </p>
          <Link to="/AllBooks" className={primaryButton}>
            Browse all eBooks
          </Link>
        </div>
      ) : (
        <>
          <p className="mb-8 text-center text-slate-700 dark:text-slate-300">
            Your eBooks are DRM-free. Each copy is prepared for {email}: please keep it for yourself.
          </p>
          <ul className="flex flex-col gap-6">
            {books.map((book) => (
              <li
                key={book.bookId}
                className="flex gap-5 rounded-lg border border-slate-200 p-4 dark:border-gray-700"
              >
                <img
                  src={book.coverPath}
                  alt=""
                  width={400}
                  height={600}
                  className="h-36 w-24 shrink-0 rounded object-cover shadow"
                />
                <div className="flex flex-1 flex-col gap-2">
                  <h2 className="text-xl font-semibold">
                    <Link to={`/books/${book.slug}`} className="hover:underline">
                      {book.title}
                    </Link>
                  </h2>
                  <p className="text-sm text-slate-700 dark:text-slate-300">
                    by {book.author} ·{' '}
                    <Link
                      to={`/orders/${book.orderId}`}
                      className="text-blue-700 underline dark:text-sky-300"
                    >
                      order #{book.orderNumber}
                    </Link>{' '}
                    · downloaded {book.downloadCount} {book.downloadCount === 1 ? 'time' : 'times'}
                  </p>
                  {book.edition ? (
                    <p className="text-sm text-slate-700 dark:text-slate-300">
                      Edition {book.edition.number} · <FormattedDate value={book.edition.publishedAt} />
                    </p>
                  ) : null}
                  {book.files.length === 0 ? (
                    <p className="text-sm">
                      The files of this eBook are being prepared. Please come back soon.
                    </p>
                  ) : (
                    <>
                      {book.files.some((file) => file.format === 'epub') ? (
                        <Link
                          reloadDocument
                          to={`/read/${book.slug}`}
                          className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
                        >
                          Read online<span className="sr-only">: {book.title}</span>
                        </Link>
                      ) : null}
                      <ul className="mt-auto flex flex-wrap gap-3" aria-label={`Download ${book.title}`}>
                        {book.files.map((file) => (
                          <li key={file.format}>
                            {/* No `download` attribute: Content-Disposition already saves a 200 and leaves this
                              page in place, while Chrome turns a `download` link answered 403/429 into a failed
                              entry in its downloads list and never shows the page that says why. */}
                            <a
                              href={`/library/${book.slug}/download.${file.format}`}
                              className={primaryButton}
                            >
                              {/* One inline run: the button is a flex box, whose items' edge spaces collapse
                                ('Download PDF(21 KB)', issue 34). */}
                              <span>
                                Download {formatNames[file.format]}
                                <span className="sr-only"> of {book.title}</span>{' '}
                                <span className="font-normal">({formatFileSize(file.sizeBytes)})</span>
                              </span>
                            </a>
                          </li>
                        ))}
                      </ul>
                      {book.files.some((file) => file.format === 'epub') ? (
                        <KindleStatus
                          slug={book.slug}
                          title={book.title}
                          address={kindleAddress}
                          delivery={book.kindle}
                          answer={actionData?.slug === book.slug ? actionData : undefined}
                        />
                      ) : null}
                    </>
                  )}
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
