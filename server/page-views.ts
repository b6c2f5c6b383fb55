import path from 'node:path'
import type { ServerResponse } from 'node:http'
import type { Request as ExpressRequest, RequestHandler } from 'express'
import type { ServerBuild } from 'react-router'
import { routeMatcher } from './route-template.ts'
import type { AnalyticsSink } from '#app/server/analytics-sink.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { isFromSamePage } from '#app/server/same-page.ts'

/**
 * Records a page_view for every page a visitor opens: here in the host, because a page may come from the
 * page cache without React Router running. Only GET documents answered 200 (not React Router's '.data'
 * fetches, not files, nothing under /admin, not a visitor the sink may not record: DNT, GPC, bots), as the
 * route's path template ('/books/:slug', never the URL with its ids and query) and the referrer's host when
 * it is another site. A book page also counts as a view_item of that book (client-side navigations are
 * counted by the book's loader), once per view: not again when the page comes back from its own form (a book
 * added to the cart without JavaScript is posted, then redirected back to the book).
 */
export function recordPageViews(options: PageViewOptions): RequestHandler {
  const countPageView = pageViewCounter(options)
  return (req, res, next) => {
    countPageView(req, res)
    next()
  }
}

type PageViewOptions = {
  build: ServerBuild | (() => Promise<ServerBuild>)
  sink: AnalyticsSink
  ownHosts: string[]
  logger: Logger
}

/**
 * What `recordPageViews` does for one request, for the page cache's hits, which are answered before it
 * (server/cache-hits.ts): they are page views all the same. `cachedPage`: the answer is a stored page, a
 * 200 document by construction, whose headers `writeHead` sends without keeping them for `getHeader`.
 */
export function pageViewCounter(
  options: PageViewOptions,
): (req: ExpressRequest, res: ServerResponse, answer?: { cachedPage: true }) => void {
  const matchRoute = routeMatcher(options.build)
  const isDocument = (res: ServerResponse) =>
    res.statusCode === 200 && String(res.getHeader('Content-Type') ?? '').startsWith('text/html')
  return (req, res, answer) => {
    if (
      req.method !== 'GET' ||
      req.path.endsWith('.data') ||
      path.extname(req.path) ||
      req.path === '/admin' ||
      req.path.startsWith('/admin/') ||
      !options.sink.mayRecord({ get: (name) => req.get(name) })
    )
      return
    const occurredAt = new Date()
    res.once('finish', () => {
      if (!answer?.cachedPage && !isDocument(res)) return
      matchRoute(req.path).then(
        (match) => {
          if (!match) return
          const { template } = match
          const client = {
            ip: req.ip ?? req.socket.remoteAddress ?? '',
            userAgent: req.get('User-Agent') ?? '',
          }
          const referrerHost = externalReferrer(req, options.ownHosts)
          options.sink.push({ name: 'page_view', occurredAt, client, path: template, referrerHost })
          const slug = match.params.slug
          const ownHosts = [...options.ownHosts, req.hostname]
          if (template === '/books/:slug' && slug && !isFromSamePage(req.get('Referer'), req.path, ownHosts))
            options.sink.push({ name: 'view_item', occurredAt, client, bookSlug: slug })
        },
        (error: unknown) => options.logger.warn({ err: error }, 'could not record a page view'),
      )
    })
  }
}

/** The host of the page that linked here, when it is another site's; nothing else of its URL. */
export function externalReferrer(req: ExpressRequest, ownHosts: string[]): string | undefined {
  const referrer = req.get('Referer')
  if (!referrer) return undefined
  try {
    const url = new URL(referrer)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    const host = url.hostname.toLowerCase()
    const own = [...ownHosts, req.hostname].map((name) => name.toLowerCase())
    return own.includes(host) ? undefined : host
  } catch {
    return undefined
  }
}
