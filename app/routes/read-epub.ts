import { getSessionUser } from '#app/features/identity/session.server.ts'
import { prepareDownload } from '#app/features/library/downloads.server.ts'
import {
  findReaderBook,
  READER_OPENS_PER_DAY,
  readerAccess,
  sampleEpub,
} from '#app/features/reader/reader-books.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { hitRateLimit } from '#app/server/rate-limit.server.ts'
import {
  downloadHeaders,
  problemPage,
  publicFileResponse,
  rangeNotSatisfiable,
  requestedRange,
} from '#app/server/file-response.server.ts'
import type { Route } from './+types/read-epub'

/**
 * GET /read/<slug>/book.epub: the signed-in owner's stamped EPUB for the online reader — the same copy as the
 * library's download, with Range, but not counted as a download (issue 29). 403 for anyone else, at once after
 * a refund. GET /read/<slug>/sample.epub: the free sample as an EPUB, for everyone while the book is in the
 * store.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const app = getAppContext(context)
  const book = await findReaderBook(app.db, params.slug.toLowerCase())
  if (!book) return problemPage(404, 'There is no such eBook.')
  const user = await getSessionUser({ request, context })
  const access = await readerAccess(app.db, book, user && !user.isGuest ? user.id : null)
  const range = requestedRange(request)
  if (params.file === 'sample.epub') {
    if (!access.sample) return problemPage(404, 'There is no sample of this eBook.')
    const sample = await sampleEpub(app.db, app.storage, book)
    return publicFileResponse(request, sample.bytes, {
      etag: `"${sample.sha256.slice(0, 32)}"`,
      fileName: `${book.slug}-sample.epub`,
      contentType: 'application/epub+zip',
      cacheControl: 'public, max-age=3600',
    })
  }
  if (params.file !== 'book.epub') return problemPage(404, 'There is no such eBook file.')
  if (!user || user.isGuest)
    return problemPage(403, 'Please log in with the account that bought this eBook to read it.', {
      href: `/login?${new URLSearchParams({ redirectTo: `/read/${book.slug}` })}`,
      label: 'Log in',
    })
  if (!access.whole) return problemPage(403, 'Only the buyer of this eBook can read it whole.')
  if (!range) {
    const opened = await hitRateLimit(app.db, READER_OPENS_PER_DAY, `${user.id}:${book.id}`)
    if (!opened.allowed)
      return problemPage(
        429,
        'This eBook has been opened very many times today. Please try again tomorrow.',
        undefined,
        { 'Retry-After': String(opened.retryAfterSeconds) },
      )
  }
  const download = await prepareDownload(
    app.db,
    app.storage,
    { userId: user.id, email: user.email, slug: book.slug, format: 'epub', range, count: false },
    app.logger,
  )
  if (!download.ok)
    return download.status === 416
      ? rangeNotSatisfiable(download.size)
      : problemPage(download.status, download.message)
  return new Response(download.stream, {
    status: download.range ? 206 : 200,
    headers: downloadHeaders(download, { cacheControl: 'private, no-store', range: download.range }),
  })
}
