import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import path from 'node:path'
import type { Express, Request as ExpressRequest, Response as ExpressResponse } from 'express'
import { LRUCache } from 'lru-cache'
import { writeCachedPage, type Encoding, type PageCache } from './page-cache.ts'

/** What the host does with every request before it reaches a page (its log line, its metrics). */
export type RequestWatcher = (req: ExpressRequest, res: ServerResponse) => void

/**
 * The server's request listener: a page-cache hit is answered before Express sees the request (issue 35);
 * everything else goes to the Express app. Measured on a cached `/`, a hit cost about 460 µs of CPU through
 * Express (its request and response prototypes, the router's walk through ten middlewares, a nonce and
 * compression wrappers it did not need) and about 125 µs here (docs/measurements/035-cache-hit.md).
 *
 * A hit is still logged and counted in the metrics (`watchers`, the same functions the app's first
 * middlewares run), answered with `Connection: close` while the process is stopping, and counted as a page
 * view. It is answered as the full chain would answer it: a page is stored only by the request handler at
 * the end of that chain, for a GET every middleware let through, under a key holding the whole URL; a URL
 * the chain answers itself (a file, /healthz, a refused NUL) never reaches the handler, so has no stored
 * page. The checks that say so without a look-up (a file's extension, a NUL) are kept, cheaply. The
 * security headers, the policy by hashes and the encoding were worked out when the page was stored.
 */
export function answerCachedPagesFirst(
  app: Express,
  options: {
    pageCache: PageCache
    watchers: RequestWatcher[]
    isStopping?: () => boolean
    /** `recordPageViews`' logic (server/page-views.ts), for a hit, which never reaches it. */
    countPageView: (req: ExpressRequest, res: ServerResponse, answer: { cachedPage: true }) => void
  },
): RequestListener {
  const { pageCache, watchers, countPageView } = options
  const encodingOf = encodingChooser(app)
  const serveHit = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const encoding = encodingOf(req.headers['accept-encoding'])
    if (!encoding) return false
    const request = expressRequestOf(app, req)
    if (path.extname(request.path) || /%00|\0/i.test(request.originalUrl)) return false
    let key: string | undefined
    try {
      key = await pageCache.keyFor(request)
    } catch {
      // The handler works it out again and answers the error as it always has (a 503 while the database is away).
      return false
    }
    const page = key ? pageCache.get(key) : undefined
    if (!page) {
      // So that the handler does not read the visitor's cart a second time.
      Object.assign(res, { locals: Object.assign(Object.create(null) as object, { pageCacheKey: { key } }) })
      return false
    }
    for (const watch of watchers) watch(request, res)
    countPageView(request, res, { cachedPage: true })
    // While stopping, no connection is kept alive for another request (as the app's own middleware does).
    if (options.isStopping?.()) res.setHeader('Connection', 'close')
    writeCachedPage(res, page, encoding, 'hit')
    return true
  }
  return (req, res) => {
    // A URL in absolute form, or any other method, is Express's to read.
    if (req.method !== 'GET' || !req.url?.startsWith('/')) return app(req, res)
    serveHit(req, res).then(
      (served) => served || app(req, res),
      // Not expected; Express answers it as any other error, unless the hit had begun to be sent.
      (error: unknown) => (res.headersSent ? res.destroy(error as Error) : app(req, res)),
    )
  }
}

/**
 * The request as Express's getters read it (`path`, `ip` through the trust-proxy setting, `hostname`,
 * `get`), without turning the Node request itself into an Express one: that change of prototype, done for
 * every request Express handles, is part of what a hit saves.
 */
function expressRequestOf(app: Express, req: IncomingMessage): ExpressRequest {
  return Object.assign(Object.create(app.request) as ExpressRequest, {
    method: req.method,
    url: req.url,
    originalUrl: req.url,
    headers: req.headers,
    socket: req.socket,
    connection: req.socket,
  })
}

/**
 * The request handler's page-cache key when the listener worked it out already (a miss), so that a
 * visitor's cart is not read twice; `undefined` when it did not.
 */
export function pageCacheKeyOf(res: ExpressResponse): { key: string | undefined } | undefined {
  return res.locals.pageCacheKey as { key: string | undefined } | undefined
}

/**
 * The stored answer for an Accept-Encoding, as the handler chooses it: gzip when the visitor takes it
 * (Express's negotiation, with its q-values), no encoding for a visitor who names none; otherwise undefined
 * (one who takes only brotli is left to the compression middleware). Remembered per header value (browsers
 * send few), within bounds, since anyone may send any.
 */
export function encodingChooser(app: Express): (header: string | undefined) => Encoding | undefined {
  const choices = new LRUCache<string, Encoding | 'neither'>({
    max: 200,
    maxSize: 64 * 1024,
    sizeCalculation: (_choice, header) => Math.max(1, header.length),
  })
  const takesGzip = (header: string) =>
    Boolean(app.request.acceptsEncodings.call({ headers: { 'accept-encoding': header } }, 'gzip'))
  return (header) => {
    if (header === undefined) return 'identity'
    let choice = choices.get(header)
    if (choice === undefined) choices.set(header, (choice = takesGzip(header) ? 'gzip' : 'neither'))
    return choice === 'neither' ? undefined : choice
  }
}
