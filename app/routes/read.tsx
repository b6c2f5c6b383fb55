import { useHydrated } from '#app/components/use-hydrated.ts'
import { lazy, Suspense, type ReactNode } from 'react'
import { data, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { bookNotFound } from '#app/features/catalog/book-not-found.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { getEditionDetails } from '#app/features/library/book-contents.server.ts'
import { findReaderBook, readerAccess } from '#app/features/reader/reader-books.server.ts'
import { readerFirstPage } from '#app/features/reader/first-page.server.ts'
import type { FirstPage } from '#app/features/reader/first-page.ts'
import { BookFirstPage } from '#app/features/reader/viewer/first-page.tsx'
import firstPageStyles from '#app/features/reader/viewer/first-page.css?url'
import { PageBar, ReaderToolbar } from '#app/features/reader/viewer/reader-bars.tsx'
import { fetchBookEarly } from '#app/features/reader/viewer/reader-api.ts'
import { DEFAULT_FONT_SIZE } from '#app/features/reader/viewer/section-styles.ts'
import { readerContentSecurityPolicy } from '#app/features/reader/viewer/reader-policy.server.ts'
import { chromeButton, linkClass } from '#app/features/reader/viewer/reader-styles.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { useTheme } from '#app/features/theme/theme.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { modulePreloads } from '#app/server/module-preloads.server.ts'
import type { Route } from './+types/read'

/**
 * The reader itself: its own chunk, fetched by this page alone, as soon as this module runs in the browser
 * (not once the page has hydrated and rendered the reader: on a slow network that is a round trip saved).
 */
const loadBookReader = () => import('#app/features/reader/viewer/book-reader.tsx')
if (typeof document !== 'undefined') {
  void loadBookReader()
  // The book's file (and the owner's place) too, when this page is the reader of a book (not its 403): the
  // server's first screen says which (decision 041).
  const shell = document.querySelector<HTMLElement>('[data-reader-slug]')
  const slug = shell?.dataset.readerSlug
  const mode = shell?.dataset.readerMode
  if (slug && (mode === 'owner' || mode === 'sample')) fetchBookEarly(slug, mode)
}
const BookReader = lazy(loadBookReader)

/** The first screen's layout and the book's type (decision 041): this page's alone, fetched beside the store's. */
export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: firstPageStyles }]

export const meta: Route.MetaFunction = ({ loaderData, matches }) => {
  if (!loaderData) return privatePageMeta('Book not found', 'We could not find that eBook.', { matches })
  if (loaderData.kind === 'refused')
    return privatePageMeta(`Read ${loaderData.book.title}`, 'Only the eBook’s owner may read it here.', {
      matches,
    })
  const what = loaderData.mode === 'sample' ? 'the free sample of ' : ''
  return [
    ...privatePageMeta(`Reading ${loaderData.book.title}`, `Read ${what}${loaderData.book.title} online.`, {
      matches,
    }),
    // The reader's chunk and foliate-js's modules, fetched with the page rather than once it has hydrated.
    ...loaderData.preloads.map((href) => ({ tagName: 'link' as const, rel: 'modulepreload', href })),
  ]
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
  let reader: Parameters<typeof readerFirstPage>[2] = { mode: 'sample' }
  if (mode === 'owner') {
    const user = await getSessionUser({ request, context })
    const refusal =
      !user || user.isGuest
        ? ('signed-out' as const)
        : (await readerAccess(db, file, user.id)).whole
          ? null
          : ('not-owner' as const)
    if (refusal || !user)
      return data(
        { kind: 'refused' as const, refusal: refusal ?? 'signed-out', book, published },
        { status: 403, headers: { 'Cache-Control': 'private, no-store' } },
      )
    reader = { mode: 'owner', userId: user.id }
  }
  const [details, firstPage] = await Promise.all([
    getEditionDetails(db, file.id),
    // Without it the reader opens as before, in the browser: never a reason to refuse the page.
    readerFirstPage(db, file, reader).catch((error: unknown) => {
      getAppContext(context).logger.warn({ err: error, slug }, 'the reader’s first page could not be made')
      return null
    }),
  ])
  return data(
    {
      kind: 'reader' as const,
      mode,
      // The EPUB's edition: the one the reader's file, its position and its notes are of.
      book: { ...book, edition: file.edition },
      formats: details.formats.map((format) => format.format),
      hasSamplePdf: details.sample !== null,
      firstPage,
      preloads: modulePreloads(['app/features/reader/viewer/book-reader.tsx']),
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

function Reader({ mode, book, formats, hasSamplePdf, firstPage }: ReaderData) {
  const hydrated = useHydrated()
  const storeTheme = useTheme()
  const shell = (opening: boolean) => (
    <ReaderShell
      title={book.title}
      slug={book.slug}
      mode={mode}
      theme={storeTheme === 'dark' ? 'dark' : 'light'}
      firstPage={firstPage}
      opening={opening}
    >
      <noscript>
        <div className="flex flex-wrap items-center justify-center gap-3 border-b border-slate-200 px-3 py-2 text-center dark:border-gray-700">
          <p>Turning the pages needs JavaScript. You can download the book instead:</p>
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
        </div>
      </noscript>
    </ReaderShell>
  )

  return hydrated ? (
    <Suspense fallback={shell(true)}>
      <BookReader mode={mode} book={book} storeTheme={storeTheme} firstPage={firstPage} />
    </Suspense>
  ) : (
    shell(false)
  )
}

/**
 * What the server renders where the reader will be: the reader's own bars, every control disabled, and the
 * first screen of the book's text (decision 041) where foliate-js's page will be, so the book is readable
 * before any script arrives and nothing moves when the reader does. 'Opening the book…' only once scripts run
 * (without them, the downloads say what to do).
 */
function ReaderShell({
  title,
  slug,
  mode,
  theme,
  firstPage,
  opening,
  children,
}: {
  title: string
  slug: string
  mode: 'owner' | 'sample'
  /** What the theme control shows until the reader runs: the store's ('system' reads as light until then). */
  theme: 'light' | 'dark'
  firstPage: FirstPage | null
  opening: boolean
  children: ReactNode
}) {
  return (
    <section
      aria-labelledby="reader-title"
      data-reader-slug={slug}
      data-reader-mode={mode}
      className="flex h-[calc(100dvh-10.5rem)] min-h-[28rem] sm:h-[calc(100dvh-7rem)] flex-col"
    >
      <ReaderToolbar
        title={title}
        owner={mode === 'owner'}
        ready={false}
        appearance={{ theme, fontSize: DEFAULT_FONT_SIZE }}
      />
      {children}
      <div className="relative flex min-h-0 flex-1">
        {firstPage ? <BookFirstPage page={firstPage} /> : null}
        {opening ? (
          <p
            role="status"
            className={firstPage ? 'sr-only' : 'absolute inset-x-0 top-6 mx-auto p-4 text-center'}
          >
            Opening the book…
          </p>
        ) : null}
      </div>
      <PageBar ready={false} chapter="" percent={0} onTurn={() => {}} />
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
