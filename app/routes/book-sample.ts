import { openSample } from '#app/features/library/downloads.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import {
  byteRangeIn,
  downloadHeaders,
  problemPage,
  rangeNotSatisfiable,
  rangeStillWanted,
  requestedRange,
} from '#app/server/file-response.server.ts'
import type { Route } from './+types/book-sample'

const slugPattern = /^[a-z0-9][a-z0-9-]{0,99}$/

/**
 * GET /books/<slug>/sample.pdf: the first chapter, free for anyone, unstamped; the one part a Range asks for
 * (206; 416 past its end).
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const slug = params.slug.toLowerCase()
  if (!slugPattern.test(slug)) return problemPage(404, 'There is no such eBook.')
  const app = getAppContext(context)
  const sample = await openSample(app.db, app.storage, slug)
  if (!sample) return problemPage(404, 'There is no sample of this eBook.')
  const etag = `"${sample.sha256.slice(0, 32)}"`
  if (request.headers.get('If-None-Match') === etag)
    return new Response(null, { status: 304, headers: { ETag: etag } })
  const cacheControl = 'public, max-age=3600'
  const range = requestedRange(request)
  if (range && rangeStillWanted(range, etag)) {
    const part = byteRangeIn(range, sample.size)
    if (!part) return rangeNotSatisfiable(sample.size, { href: `/books/${slug}`, label: 'Back to the book' })
    return new Response(sample.bytes.slice(part.start, part.end + 1), {
      status: 206,
      headers: downloadHeaders({ ...sample, etag }, { cacheControl, range: part }),
    })
  }
  // A copy: a Response takes bytes on an ArrayBuffer of their own (a sample is tens of KB).
  return new Response(sample.bytes.slice(), {
    headers: downloadHeaders({ ...sample, etag }, { cacheControl }),
  })
}
