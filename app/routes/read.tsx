import { useHydrated } from '#app/components/use-hydrated.ts'
import { lazy, Suspense } from 'react'
import { data, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { bookNotFound } from '#app/features/catalog/book-not-found.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { getEditionDetails } from '#app/features/library/book-contents.server.ts'
import { findReaderBook, readerAccess } from '#app/features/reader/reader-books.server.ts'
import { readerContentSecurityPolicy } from '#app/features/reader/viewer/reader-policy.server.ts'
import { chromeButton, linkClass } from '#app/features/reader/viewer/reader-styles.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { useTheme } from '#app/features/theme/theme.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/read'

/**
 * The reader itself: its own chunk, fetched by this page alone, as soon as this module runs in the browser
 * (not once the page has hydrated and rendered the reader: on a slow network that is a round trip saved).
 */
const loadBookReader = () => import('#app/features/reader/viewer/book-reader.tsx')
if (typeof document !== 'undefined') void loadBookReader()
const BookReader = lazy(loadBookReader)

export const meta: Route.MetaFunction = ({ loaderData, matches }) => {
  if (!loaderData) return privatePageMeta('Book not found', 'We could not find that eBook.', { matches })
  if (loaderData.kind === 'refused')
    return privatePageMeta(`Read ${loaderData.book.title}`, 'Only the eBook’s owner may read it here.', {
      matches,
    })
  const what = loaderData.mode === 'sample' ? 'the free sample of ' : ''
  return privatePageMeta(`Reading ${loaderData.book.title}`, `Read ${what}${loaderData.book.title} online.`, {
    matches,
  })
}

/**
 * The reader's Content-Security-Policy (blob: frames) comes with its document: reached by a navigation inside
 * the app (a link, the redirect after logging in), the page is loaded anew instead. Not run when the page
 * itself is loaded (no `hydrate`): the server's data is used.
 */
export function clientLoader({ request }: Route.ClientLoaderArgs): Promise<never> {
  window.location.assign(request.url)
  return new Promise(() => {})
}

/** The loader's: the reader's own Content-Security-Policy, and never a shared cache. */
export const headers: Route.HeadersFunction = ({ loaderHeaders }) => loaderHeaders

/**
 * GET /read/<slug> (the owner's book) and /read/<slug>/sample (the free sample, for everyone): the online
 * reader (issue 29). Someone who does not own the book gets a 403 page that says how to read it; the reader
 * is rendered in the browser, and without JavaScript the page offers the downloads instead.
 */
export async function loader({ request, context, params, url }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const slug = params.slug.toLowerCase()
  // By the whole path, so that a book whose slug is 'sample' is still its owner's at /read/sample.
  const mode =
    url.pathname.toLowerCase().replace(/\/$/, '') === `/read/${slug}/sample`
      ? ('sample' as const)
      : ('owner' as const)
  const file = await findReaderBook(db, slug)
  // An archived book stays readable by its owners; its sample goes with it from the store.
  if (!file || (mode === 'sample' && file.status !== 'published')) throw bookNotFound()
  const book = { slug: file.slug, title: file.title }
  const published = file.status === 'published'
  if (mode === 'owner') {
    const user = await getSessionUser({ request, context })
    const refusal =
      !user || user.isGuest
        ? ('signed-out' as const)
        : (await readerAccess(db, file, user.id)).whole
          ? null
          : ('not-owner' as const)
    if (refusal)
      return data(
        { kind: 'refused' as const, refusal, book, published },
        { status: 403, headers: { 'Cache-Control': 'private, no-store' } },
      )
  }
  const details = await getEditionDetails(db, file.id)
  return data(
    {
      kind: 'reader' as const,
      mode,
      // The EPUB's edition: the one the reader's file, its position and its notes are of.
      book: { ...book, edition: file.edition },
      formats: details.formats.map((format) => format.format),
      hasSamplePdf: details.sample !== null,
    },
    {
      headers: {
        'Cache-Control': 'private, no-store',
        'Content-Security-Policy': readerContentSecurityPolicy(context),
      },
    },
  )
}

export default function ReadPage({ loaderData }: Route.ComponentProps) {
  if (loaderData.kind === 'refused') return <NotYours {...loaderData} />
  return <Reader {...loaderData} />
}

type ReaderData = Extract<Route.ComponentProps['loaderData'], { kind: 'reader' }>

function Reader({ mode, book, formats, hasSamplePdf }: ReaderData) {
  const hydrated = useHydrated()
  const storeTheme = useTheme()

  return (
    <>
      {hydrated ? (
        <Suspense fallback={<ReaderShell title={book.title} mode={mode} opening />}>
          <BookReader mode={mode} book={book} storeTheme={storeTheme} />
        </Suspense>
      ) : (
        <ReaderShell title={book.title} mode={mode} opening={false} />
      )}
      <noscript>
        <section className="mx-auto flex max-w-2xl flex-col items-center gap-4 px-4 pb-16 text-center">
          <p className="text-lg">
            Reading in the browser needs JavaScript. You can download the book instead:
          </p>
          <ul className="flex flex-wrap justify-center gap-3">
            {mode === 'owner' ? (
              formats.map((format) => (
                <li key={format}>
                  <a href={`/library/${book.slug}/download.${format}`} className={primaryButton}>
                    Download {format.toUpperCase()}
                  </a>
                </li>
              ))
            ) : (
              <>
                {hasSamplePdf ? (
                  <li>
                    <a href={`/books/${book.slug}/sample.pdf`} className={primaryButton}>
                      Download the free sample (PDF)
                    </a>
                  </li>
                ) : null}
                <li>
                  <Link to={`/books/${book.slug}`} className={chromeButton}>
                    Buy the eBook
                  </Link>
                </li>
              </>
            )}
          </ul>
        </section>
      </noscript>
    </>
  )
}

/**
 * What the server renders where the reader will be: its title bar, so the page does not jump when the reader
 * arrives. 'Opening the book…' only once scripts run (without them, the downloads below say what to do).
 */
function ReaderShell({
  title,
  mode,
  opening,
}: {
  title: string
  mode: 'owner' | 'sample'
  opening: boolean
}) {
  return (
    <section
      aria-labelledby="reader-title"
      className={
        opening
          ? 'flex h-[calc(100dvh-10.5rem)] min-h-[28rem] sm:h-[calc(100dvh-7rem)] flex-col'
          : 'flex flex-col pb-8'
      }
    >
      <div className="flex items-center border-b border-slate-200 px-3 py-3 dark:border-gray-700">
        <h1 id="reader-title" className="truncate text-lg font-semibold">
          {title}
          {mode === 'sample' ? <span className="font-normal"> — free sample</span> : null}
        </h1>
      </div>
      {opening ? (
        <p role="status" className="p-6 text-center">
          Opening the book…
        </p>
      ) : null}
    </section>
  )
}

/** 403: the reader of someone else's book, or of nobody's: how to read it (log in, buy it, its sample). */
function NotYours({
  refusal,
  book,
  published,
}: Extract<Route.ComponentProps['loaderData'], { kind: 'refused' }>) {
  const signedOut = refusal === 'signed-out'
  const here = `/read/${book.slug}`
  return (
    <section className="mx-auto flex max-w-2xl flex-col items-center gap-6 px-4 py-24 text-center">
      <h1 className="text-4xl font-bold">
        {signedOut ? 'Log in to read this eBook' : 'This eBook is not in your library'}
      </h1>
      <p className="text-lg text-slate-600 dark:text-slate-300">
        {signedOut
          ? `${book.title} can be read here by the account that bought it.`
          : published
            ? `${book.title} can be read here once you own it; its free sample is open to everyone.`
            : `${book.title} can be read here by the readers who own it.`}
      </p>
      <div className="flex flex-wrap justify-center gap-3">
        {signedOut ? (
          <Link to={`/login?${new URLSearchParams({ redirectTo: here })}`} className={primaryButton}>
            Log in
          </Link>
        ) : null}
        {published ? (
          <>
            <Link to={`/books/${book.slug}`} className={signedOut ? chromeButton : primaryButton}>
              Buy the eBook
            </Link>
            <Link to={`${here}/sample`} className={linkClass}>
              Read the free sample
            </Link>
          </>
        ) : null}
      </div>
    </section>
  )
}
