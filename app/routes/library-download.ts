import { recordEvent } from '#app/features/analytics/record.server.ts'
import { prepareDownload, probeDownload } from '#app/features/library/downloads.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { refusedSignIn, signInApp } from '#app/features/opds/opds-auth.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import {
  downloadHeaders,
  problemPage,
  rangeNotSatisfiable,
  requestedRange,
} from '#app/server/file-response.server.ts'
import type { Route } from './+types/library-download'

const fileNamePattern = /^download\.(pdf|epub)$/
const slugPattern = /^[a-z0-9][a-z0-9-]{0,99}$/

/**
 * GET /library/<slug>/download.pdf|.epub: the signed-in owner's stamped copy, streamed, or the one part a Range
 * asks for (206; 416 past its end); with DOWNLOAD_DELIVERY=redirect, a 302 to the copy in the bucket, signed
 * for a minute, once allowed and counted (decision 034). Anyone else gets 403 (404 for a book or file name that does not exist);
 * more than 50 downloads of a book in a day get 429 (a HEAD too), a file's worth of parts counting as one
 * (decision 010). The parameters only ever select a row of the database: they never reach a storage path.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const format = fileNamePattern.exec(params.file)?.[1] as 'pdf' | 'epub' | undefined
  if (!format || !slugPattern.test(params.slug)) return problemPage(404, 'There is no such eBook file.')
  const app = getAppContext(context)
  // A reading app downloads with the reader's email and an app password (issue 33); a browser with its session.
  if (request.headers.has('Authorization')) {
    const signIn = await signInApp(app.db, request, app.clientIp)
    if (!signIn.ok) return refusedSignIn(signIn, app.env.publicUrl.origin)
    return sendCopy(request, app, {
      userId: signIn.user.id,
      email: signIn.user.email,
      slug: params.slug,
      format,
    })
  }
  const user = await getSessionUser({ request, context })
  if (!user || user.isGuest)
    return problemPage(403, 'Please log in with the account that bought this eBook to download it.', {
      href: `/login?${new URLSearchParams({ redirectTo: '/account/library' })}`,
      label: 'Log in',
    })
  return sendCopy(request, app, { userId: user.id, email: user.email, slug: params.slug, format })
}

/** The owner's copy, whoever signed them in: what HEAD may probe and GET streams, counted the same way. */
async function sendCopy(
  request: Request,
  app: ReturnType<typeof getAppContext>,
  wanted: { userId: string; email: string; slug: string; format: 'pdf' | 'epub' },
): Promise<Response> {
  if (request.method === 'HEAD') {
    // Only whether it may be downloaded now, and as what: a probe is neither stamped nor counted.
    const probe = await probeDownload(app.db, app.storage, wanted)
    if (!probe.ok) return refused(probe)
    const headers = downloadHeaders(
      { ...probe, size: probe.copy?.size ?? 0, etag: probe.copy?.etag },
      { cacheControl: 'private, no-store' },
    )
    // The length is known only once the reader's copy has been stamped (a probe stamps nothing).
    if (!probe.copy) delete headers['Content-Length']
    return new Response(null, { headers })
  }
  const download = await prepareDownload(
    app.db,
    app.storage,
    { ...wanted, range: requestedRange(request) },
    app.logger,
  )
  if (!download.ok) return download.status === 416 ? rangeNotSatisfiable(download.size) : refused(download)
  app.logger.info(
    {
      slug: wanted.slug,
      format: wanted.format,
      cached: download.cached,
      range: download.range,
      counted: download.counted,
    },
    'download',
  )
  if (download.counted) recordEvent(app, request, { name: 'download', bookSlug: wanted.slug })
  if (app.env.DOWNLOAD_DELIVERY === 'redirect' && app.storage.signedUrl) {
    // Allowed and counted: the object store sends the bytes (a Range is sent again there by the client).
    await download.stream.cancel()
    const location = await app.storage.signedUrl(download.key, {
      expiresInSeconds: app.env.DOWNLOAD_URL_SECONDS,
      fileName: download.fileName,
      contentType: download.contentType,
    })
    return new Response(null, {
      status: 302,
      headers: { Location: location, 'Cache-Control': 'private, no-store', 'Referrer-Policy': 'no-referrer' },
    })
  }
  return new Response(download.stream, {
    status: download.range ? 206 : 200,
    headers: downloadHeaders(download, { cacheControl: 'private, no-store', range: download.range }),
  })
}

function refused(refusal: { status: number; message: string; retryAfterSeconds?: number }): Response {
  const headers: HeadersInit =
    refusal.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(refusal.retryAfterSeconds) }
  return problemPage(refusal.status, refusal.message, undefined, headers)
}
