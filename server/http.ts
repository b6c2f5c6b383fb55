import crypto from 'node:crypto'
import http from 'node:http'
import path from 'node:path'
import compression from 'compression'
import express, { type RequestHandler } from 'express'
import { RouterContextProvider, type ServerBuild } from 'react-router'
import type { ViteDevServer } from 'vite'
import { appContext, cspNonceContext } from '#app/server/context.server.ts'
import { contentSecurityPolicy, formTargetsOf } from '#app/server/content-security-policy.server.ts'
import type { DatabaseHandle } from '#app/server/db/database.server.ts'
import type { Env } from '#app/server/env.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'
import type { StoreServices } from '#app/services.server.ts'
import { PAGE_VISITOR_HEADERS, visitorKey } from '#app/visitor-key.server.ts'
import { answerCachedPagesFirst, type RequestWatcher } from './cache-hits.ts'
import { PageCache } from './page-cache.ts'
import { createMetrics, metricsEndpoint } from './metrics.ts'
import { serveAssets } from './precompressed-assets.ts'
import { pageViewCounter, recordPageViews } from './page-views.ts'
import { reactRouterHandler } from './react-router-handler.ts'
import { refuse, SAFE_METHODS } from './refuse.ts'
import { limitRequestBodies } from './request-bodies.ts'
import { outageProbe, sendUnavailable } from './unavailable.ts'
import { withTimeout } from './with-timeout.ts'

export type HttpAppOptions = {
  database: DatabaseHandle
  /** The store's services (app/services.server.ts): a request's context is these and its address. */
  services: StoreServices
  build: ServerBuild | (() => Promise<ServerBuild>)
  /** Development: Vite serves the assets and transforms modules. */
  vite?: ViteDevServer
  /** Pages for visitors who carry no state, rendered once per TTL (server/page-cache.ts); none without it. */
  pageCache?: { ttlMs: number; maxEntries: number; maxBytes: number }
  /** Turns true when the process is stopping: /readyz then fails so a load balancer stops sending work. */
  isStopping?: () => boolean
}

const READY_TIMEOUT_MS = 2_000

/** The store's Express app (for tests of what it answers before React Router). */
export function createHttpApp(options: HttpAppOptions): express.Express {
  return createHost(options).app
}

/**
 * The store's HTTP server: page-cache hits answered before Express (server/cache-hits.ts), everything else
 * by the app.
 */
export function createHttpServer(options: HttpAppOptions): http.Server {
  return http.createServer(createHost(options).listener)
}

function createHost(options: HttpAppOptions): { app: express.Express; listener: http.RequestListener } {
  const { database, services, vite } = options
  const { env, logger } = services
  const pageCache =
    options.pageCache &&
    new PageCache({
      ...options.pageCache,
      visitorKey: (request) => visitorKey(request, services),
      visitorHeaders: PAGE_VISITOR_HEADERS,
      defaultHeaders: securityHeadersOf(env),
      policy: (scriptHashes) => contentSecurityPolicy(scriptHashes, Boolean(vite), formTargetsOf(env)),
    })
  const pageViews = {
    build: options.build,
    sink: services.analytics,
    ownHosts: [env.publicUrl.hostname],
    logger,
  }
  const app = express()
  app.disable('x-powered-by')
  app.set('trust proxy', env.TRUST_PROXY)

  const whatIsDown = outageProbe(database, services.storage)
  const metrics = createMetrics({ build: options.build, database })
  // Run for every request, page-cache hits included (server/cache-hits.ts).
  const watchers = [logRequest(logger), metrics.observeRequest]
  app.use((req, res, next) => {
    for (const watch of watchers) watch(req, res)
    // While stopping, no connection is kept alive for another request.
    if (options.isStopping?.()) res.set('Connection', 'close')
    next()
  })
  app.use(securityHeaders(env, Boolean(vite)))
  app.use(compression())
  app.use(rejectCrossSiteWrites(env))
  app.use(limitRequestBodies(options.build))
  app.use(rejectNulInUrls())

  app.get('/metrics', metricsEndpoint(metrics, env.METRICS_TOKEN))
  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' })
  })
  app.get('/readyz', async (_req, res) => {
    res.set('Cache-Control', 'no-store')
    if (options.isStopping?.()) {
      res.status(503).json({ status: 'stopping' })
      return
    }
    try {
      await withTimeout(database.ping(), READY_TIMEOUT_MS)
      res.json({ status: 'ok', database: database.kind })
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed: database unreachable')
      res.status(503).json({ status: 'unavailable', database: database.kind })
    }
  })

  if (vite) {
    app.use(vite.middlewares)
  } else {
    const client = path.join(findProjectRoot(), 'build', 'client')
    // Fingerprinted by Vite: a changed file gets a new name, so it can be cached for ever.
    app.use('/assets', serveAssets(path.join(client, 'assets')))
    // Public files all have an extension; pages never do, so they skip the file-system lookup.
    const publicFiles = express.static(client, { maxAge: '1d', index: false, redirect: false })
    app.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()))
  }

  app.use(recordPageViews(pageViews))
  app.use(
    reactRouterHandler({
      build: options.build,
      mode: vite ? 'development' : 'production',
      pageCache,
      getLoadContext: (req, res) => {
        const context = new RouterContextProvider()
        context.set(appContext, { ...services, clientIp: req.ip ?? req.socket.remoteAddress ?? '' })
        context.set(cspNonceContext, String(res.locals.cspNonce))
        return context
      },
      whatIsDown,
    }),
  )
  // An error outside React Router (e.g. the page cache reading a visitor's cart) while the database or the
  // file store is unreachable: a 503 to try again; any other error goes on to Express's own 500.
  app.use(async (error: unknown, req: express.Request, res: express.Response, next: express.NextFunction) => {
    const down = res.headersSent ? null : await whatIsDown()
    if (!down) return next(error)
    logger.warn({ err: error }, `${down} unreachable: answered 503`)
    sendUnavailable(req, res, req.accepts(['html', 'json']) === 'html', down)
  })
  const listener = pageCache
    ? answerCachedPagesFirst(app, {
        pageCache,
        watchers,
        isStopping: options.isStopping,
        countPageView: pageViewCounter(pageViews),
      })
    : app
  return { app, listener }
}

function logRequest(logger: Logger): RequestWatcher {
  return (req, res) => {
    const started = process.hrtime.bigint()
    res.once('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6
      // The path only: query strings can hold what a visitor typed (search terms, tokens).
      logger.info(
        {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          ip: req.ip,
        },
        'request',
      )
    })
  }
}

/** The host's security headers besides the policy, on every answer; a route may replace one of its own. */
function securityHeadersOf(env: Env): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(env.publicUrl.protocol === 'https:'
      ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' }
      : {}),
  }
}

function securityHeaders(env: Env, development: boolean): RequestHandler {
  const headers = securityHeadersOf(env)
  const formTargets = formTargetsOf(env)
  return (_req, res, next) => {
    const nonce = crypto.randomBytes(16).toString('base64')
    res.locals.cspNonce = nonce
    res.set({
      'Content-Security-Policy': contentSecurityPolicy([`'nonce-${nonce}'`], development, formTargets),
      ...headers,
    })
    next()
  }
}

/**
 * CSRF defence for every state-changing request (cart, theme, and the forms to come): a browser tells us
 * where a request comes from (Sec-Fetch-Site; Origin for older ones), and only this site's own pages may
 * post. SameSite=Lax cookies are the second line. Requests with neither header (curl, server-to-server)
 * carry no browser's ambient credentials and pass.
 */
function rejectCrossSiteWrites(env: Env): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next()
    const site = req.get('Sec-Fetch-Site')
    const origin = req.get('Origin')
    const ownOrigins = [env.publicUrl.origin, `${req.protocol}://${req.get('host') ?? ''}`]
    // A page sent with `Referrer-Policy: no-referrer` (the ones whose URL holds a mailed token) makes the
    // browser send `Origin: null` on its own form posts; Sec-Fetch-Site, which no page can forge, still says
    // same-origin, and then the opaque origin is ours.
    const ownOpaqueOrigin = origin === 'null' && site === 'same-origin'
    const crossSite =
      (site !== undefined && site !== 'same-origin' && site !== 'none') ||
      (origin !== undefined && !ownOrigins.includes(origin) && !ownOpaqueOrigin)
    if (!crossSite) {
      // React Router's own check refuses an Origin that is not the request's host; this one is ours.
      if (ownOpaqueOrigin) delete req.headers.origin
      return next()
    }
    refuse(
      req,
      res,
      403,
      'Cross-site request refused: this form can only be sent from the store’s own pages.',
    )
  }
}

/**
 * A NUL character (%00) in a path or a query string reaches the database as a parameter, and PostgreSQL refuses
 * text holding one (`invalid byte sequence for encoding "UTF8": 0x00`): an error, a 500. No address of the
 * store holds one, so it is a bad request (found by `npm run drill:fuzz`).
 */
export function rejectNulInUrls(): RequestHandler {
  return (req, res, next) => {
    if (/%00|\0/i.test(req.originalUrl))
      refuse(req, res, 400, 'Bad request: the address holds a NUL character (%00).')
    else next()
  }
}
