import path from 'node:path'
import type { Request as ExpressRequest, RequestHandler, Response as ExpressResponse } from 'express'
import { LRUCache } from 'lru-cache'
import { writeCachedPage, type Encoding, type PageCache } from './page-cache.ts'

/**
 * Answers a page-cache hit as early as it can (issue 35): after the request is logged, timed and told whether
 * the process is stopping, but before the middlewares whose work only a rendered page needs: a fresh nonce
 * and its policy (a stored page carries its own, by hashes), the compression wrapper (its bytes are
 * compressed already), the checks on posted bodies (a hit is a GET). It is still counted as a page view.
 *
 * Why it answers as the full chain would: a page is stored only by the request handler at the end of that
 * chain, for a GET that every middleware let through, and its key holds the whole URL. A URL the chain
 * answers itself (a file, /healthz, a refused NUL) never reaches the handler, so it has no stored page. The
 * checks below that would say so without a look-up (a file's extension, a NUL) are kept, cheaply.
 */
export function serveCachedPages(options: {
  pageCache: PageCache
  /** `recordPageViews`' logic (server/page-views.ts), for a hit, which never reaches it. */
  countPageView: (req: ExpressRequest, res: ExpressResponse, answer: { cachedPage: true }) => void
}): RequestHandler {
  const { pageCache, countPageView } = options
  const encodingOf = encodingChooser()
  return async (req, res, next) => {
    if (req.method !== 'GET' || path.extname(req.path) || /%00|\0/i.test(req.originalUrl)) return next()
    // A visitor who takes neither gzip nor no encoding at all (brotli only) is left to the compression middleware.
    const encoding = encodingOf(req)
    if (!encoding) return next()
    let key: string | undefined
    try {
      key = await pageCache.keyFor(req)
    } catch {
      // The handler works it out again and answers the error as it always has (a 503 while the database is away).
      return next()
    }
    const page = key ? pageCache.get(key) : undefined
    if (!page) {
      rememberPageCacheKey(res, key)
      return next()
    }
    countPageView(req, res, { cachedPage: true })
    writeCachedPage(res, page, encoding, 'hit')
  }
}

/**
 * The request handler's page-cache key when this middleware worked it out already (a miss), so that a
 * visitor's cart is not read twice; `undefined` when it did not.
 */
export function pageCacheKeyOf(res: ExpressResponse): { key: string | undefined } | undefined {
  return res.locals.pageCacheKey as { key: string | undefined } | undefined
}

function rememberPageCacheKey(res: ExpressResponse, key: string | undefined) {
  res.locals.pageCacheKey = { key }
}

/**
 * The stored answer for a request's Accept-Encoding, as the handler chooses it: gzip when the visitor takes
 * it (Express's negotiation, with its q-values), no encoding for a visitor who names none; otherwise
 * undefined. Remembered per header value (browsers send few), within bounds, since anyone may send any.
 */
export function encodingChooser(): (req: ExpressRequest) => Encoding | undefined {
  const choices = new LRUCache<string, Encoding | 'neither'>({
    max: 200,
    maxSize: 64 * 1024,
    sizeCalculation: (_choice, header) => Math.max(1, header.length),
  })
  return (req) => {
    const header = req.headers['accept-encoding']
    if (header === undefined) return 'identity'
    let choice = choices.get(header)
    if (choice === undefined)
      choices.set(header, (choice = req.acceptsEncodings('gzip') ? 'gzip' : 'neither'))
    return choice === 'neither' ? undefined : choice
  }
}
