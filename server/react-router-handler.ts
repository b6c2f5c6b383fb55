import zlib from 'node:zlib'
import { createReadableStreamFromReadable, writeReadableStreamToWritable } from '@react-router/node'
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express'
import { createRequestHandler, type RouterContextProvider, type ServerBuild } from 'react-router'
import { renderedScriptsContext, type RenderedScripts } from '#app/server/context.server.ts'
import { sendMethodNotAllowed } from './error-page.ts'
import { pageCacheKeyOf } from './cache-hits.ts'
import { writeCachedPage, type PageCache } from './page-cache.ts'
import { routeMatcher } from './route-template.ts'
import { RETRY_AFTER_SECONDS, sendUnavailable, type Outage } from './unavailable.ts'

/**
 * React Router's request handler for Express (after @react-router/express, which it replaces), with the
 * page cache in front for visitors who carry no state (server/page-cache.ts).
 */
export function reactRouterHandler(options: {
  build: ServerBuild | (() => Promise<ServerBuild>)
  mode: 'development' | 'production'
  getLoadContext: (req: ExpressRequest, res: ExpressResponse) => RouterContextProvider
  pageCache?: PageCache
  /**
   * What cannot be reached (the database, the file store), if anything: a 5xx then becomes a 503 to try again
   * (server/unavailable.ts).
   */
  whatIsDown?: () => Promise<Outage>
}): RequestHandler {
  const handle = createRequestHandler(options.build, options.mode)
  const matchRoute = routeMatcher(options.build)
  return async (req, res, next) => {
    try {
      // Hits are mostly answered earlier (server/cache-hits.ts), which may have worked out the key already.
      const known = pageCacheKeyOf(res)
      const key = known ? known.key : await options.pageCache?.keyFor(req)
      // Without gzip, the compression middleware may still encode the page another way (brotli).
      const encoding = () => (req.acceptsEncodings('gzip') ? 'gzip' : 'identity')
      const cached = key ? options.pageCache!.get(key) : undefined
      if (cached) return writeCachedPage(res, cached, encoding(), 'hit')

      const context = options.getLoadContext(req, res)
      // A page that may be kept: its render reports the scripts it wrote, which the cached page allows by hash.
      const scripts: RenderedScripts | undefined = key ? {} : undefined
      if (scripts) context.set(renderedScriptsContext, scripts)
      const response = await handle(toFetchRequest(req, res), context)
      const isDocument = response.headers.get('Content-Type')?.startsWith('text/html') ?? false
      // The root's own 503 page (the visitor could not be read) is kept; any other 5xx during an outage
      // is one too.
      if (response.status === 503 && !response.headers.has('Retry-After'))
        response.headers.set('Retry-After', String(RETRY_AFTER_SECONDS))
      // React Router's own data requests (.data) keep their encoding: its client shows the root's error.
      const down =
        response.status >= 500 && !(response.status === 503 && isDocument) && !req.path.endsWith('.data')
          ? await options.whatIsDown?.()
          : null
      if (down) {
        await response.body?.cancel()
        return sendUnavailable(req, res, isDocument, down)
      }
      // React Router's answer to a method the route has no handler for (a POST to /robots.txt) says which it has.
      // Its data requests (.data) keep their encoding, and a page is the store's error page, but a resource
      // route's answer was `{"message":"Unexpected Server Error"}`, which the host replaces (issue 28).
      if (response.status === 405 && !response.headers.has('Allow')) {
        const route = await matchRoute(req.path.replace(/\.data$/, ''))
        response.headers.set('Allow', route?.methods.join(', ') || 'GET, HEAD')
        const asPage = req.accepts(['html', 'json']) !== 'json'
        if (!req.path.endsWith('.data') && !(isDocument && asPage)) {
          await response.body?.cancel()
          return sendMethodNotAllowed(res, response.headers.get('Allow')!, asPage)
        }
      }
      if (!isDocument) return await sendResponse(res, response)
      // Bytes as rendered: decoded to a string only for the page cache.
      const body = Buffer.from(await response.arrayBuffer())
      const stored =
        key && scripts?.hashes
          ? options.pageCache!.store(
              key,
              response,
              body.toString(),
              String(res.locals.cspNonce),
              scripts.hashes,
            )
          : undefined
      if (stored) return writeCachedPage(res, stored, encoding(), 'miss')
      sendDocument(req, res, response, body)
    } catch (error) {
      next(error)
    }
  }
}

/**
 * Pages are small and use no deferred data, so a document is compressed in one go rather than as React's
 * many small streamed chunks: measured here, streaming gzip cost a third of the throughput of a page.
 */
function sendDocument(req: ExpressRequest, res: ExpressResponse, response: Response, body: Buffer) {
  res.statusMessage = response.statusText
  res.status(response.status)
  copyHeaders(res, response.headers)
  res.vary('Accept-Encoding')
  if (body.length > 1024 && req.acceptsEncodings('gzip')) {
    res.setHeader('Content-Encoding', 'gzip')
    res.end(zlib.gzipSync(body, { level: 4 }))
  } else {
    res.end(body)
  }
}

/**
 * A route's headers onto the answer. Each replaces the host's default of that name (a page whose URL holds a
 * token sends `Referrer-Policy: no-referrer` instead of the host's policy); cookies are added, one header each.
 */
function copyHeaders(res: ExpressResponse, headers: Headers) {
  for (const [name, value] of headers) {
    if (name === 'set-cookie') res.append(name, value)
    else res.set(name, value)
  }
}

function toFetchRequest(req: ExpressRequest, res: ExpressResponse): Request {
  const url = new URL(`${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else if (value !== undefined) headers.set(name, value)
  }
  // A visitor who goes away aborts the work done for them.
  const controller = new AbortController()
  res.on('close', () => {
    if (!res.writableFinished) controller.abort()
  })
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers, signal: controller.signal }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    init.body = createReadableStreamFromReadable(req)
    init.duplex = 'half'
  }
  return new Request(url, init)
}

async function sendResponse(res: ExpressResponse, response: Response) {
  if (res.destroyed || res.writableEnded) {
    await response.body?.cancel()
    return
  }
  res.statusMessage = response.statusText
  res.status(response.status)
  copyHeaders(res, response.headers)
  if (!response.body) {
    res.end()
    return
  }
  try {
    await writeReadableStreamToWritable(response.body, res)
  } catch (error) {
    if (!res.destroyed && !res.writableEnded) throw error
  }
}
