/**
 * `npm run drill:fuzz [-- --runs N --quick --route <pattern> --db postgres --seed S]`: property-based fuzzing
 * (fast-check) of every action and resource route of the store, and of the host's own endpoints, against the
 * production build run as a real process.
 *
 * The targets are read from app/routes.ts: every route module with an `action`, every resource route (a `.ts`
 * module: downloads, sitemaps, Open Graph images, search suggestions, theme, webhooks, CSV exports, media),
 * plus /healthz, /readyz and /metrics. Each is sent random and adversarial requests (bodies form-encoded,
 * multipart, JSON or of lying types, huge fields, invalid UTF-8, nested, duplicate and prototype-polluting
 * keys; Origin, Referer, Content-Length, Accept, Range headers; garbage, forged and huge cookies; path
 * parameters and query strings with unicode, `..`, encoded slashes and very long values) as four visitors:
 * nobody, a guest, a signed-in customer (with a cart and a paid order) and an admin. Valid requests are made
 * from the forms the store itself shows each of them, then mutated, so the guarded code runs, not only the doors.
 *
 * Properties: no 5xx, ever; the store stays up (/healthz after every batch); no row changed by a rejected
 * request: every table's fingerprint (row count and a hash of its rows) is taken before and after each batch;
 * a batch whose answers were all refusals (4xx, or a redirect that reports an error) must leave every table as
 * it was, and a batch with accepted requests may only change the tables its route is meant to change.
 * Batches: on PostgreSQL, every 50 requests (read live); on PGlite, whose folder only one process may open,
 * the store is stopped to read them: once per route (`--quick`: once per phase).
 *
 * Phase 1 sends requests invalid by construction (cross-site, wrong content types, bodies over the limit,
 * chunked bodies, garbage fields, forged sessions); phase 2 sends the store's own forms, mutated.
 */
import http from 'node:http'
import os from 'node:os'
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { sql } from 'drizzle-orm'
import routes from '#app/routes.ts'
import {
  cleanUp,
  ensureBuild,
  freePort,
  METRICS_TOKEN,
  prepareStoreData,
  startStore,
  type Prepared,
} from './harness.ts'
import { parseDrillOptions } from './options.ts'
import { CookieJar, cookieHeader } from '#harness/cookie-jar.ts'
import type { StoreProcess } from '#harness/store-process.ts'

const options = parseDrillOptions({
  name: 'fuzz',
  summary:
    'Property-based fuzzing of every action and resource route and the host’s endpoints, against the production build: no 5xx, the store stays up, no row changed by a rejected request.',
  options: {
    runs: { type: 'number', value: 'N', help: 'requests per route (default 10,000; --quick: 200)' },
    route: { type: 'string', value: 'PATTERN', help: 'only the routes whose file or path contains it' },
    seed: {
      type: 'number',
      value: 'S',
      help: 'fast-check’s seed, to replay a run (default: from the clock)',
    },
    verbose: { type: 'boolean', help: 'print every request sent' },
  },
})
const { quick, db: kind, verbose = false } = options
const runsPerRoute = options.runs ?? (quick ? 200 : 10_000)
const routeFilter = options.route
const seed = options.seed ?? Date.now() % 2 ** 31
const CONCURRENCY = 8
const BATCH = kind === 'postgres' ? 50 : Infinity
const REQUEST_TIMEOUT_MS = 15_000

// ---------------------------------------------------------------------------------------------------------
// The targets, from app/routes.ts.

type Target = {
  /** The route's file (app/…), or `host` for the host's endpoints. */
  file: string
  /** e.g. /books/:slug/sample.pdf */
  pattern: string
  hasAction: boolean
  hasLoader: boolean
}

type RouteEntry = { path?: string; file: string; index?: boolean; children?: RouteEntry[] }

function flatten(entries: RouteEntry[], prefix = ''): { pattern: string; file: string }[] {
  return entries.flatMap((entry) => {
    const pattern = entry.path ? `${prefix}/${entry.path}` : prefix || '/'
    return [{ pattern, file: entry.file }, ...flatten(entry.children ?? [], pattern)]
  })
}

function readTargets(): Target[] {
  const found: Target[] = []
  for (const { pattern, file } of flatten(routes as RouteEntry[])) {
    if (pattern.includes('*')) continue
    const source = fs.readFileSync(path.join('app', file), 'utf8')
    const hasAction = /export (async )?function action\b|export const action\b/.test(source)
    const hasLoader = /export (async )?function loader\b|export const loader\b/.test(source)
    const resource = file.endsWith('.ts')
    if (hasAction || resource) found.push({ file, pattern, hasAction, hasLoader })
  }
  for (const pattern of ['/healthz', '/readyz', '/metrics'])
    found.push({ file: 'host', pattern, hasAction: false, hasLoader: true })
  return found
}

/**
 * The tables an accepted request to each route may change (the bookkeeping tables below aside). A route not
 * listed may change nothing.
 */
const identity = ['user', 'session', 'account', 'verification']
/**
 * Buying and refunding: the library's trigger shows or hides the buyer's review of a book they own or no
 * longer own, and the book's ratings and sales follow.
 */
const buying = [
  'carts',
  'cart_items',
  // Issue 30: a bundle leaves the cart once its books are bought.
  'cart_bundles',
  'orders',
  'order_items',
  'library_items',
  'email_outbox',
  'reviews',
  'books',
  // Issue 30: an order claims its coupon's use (given back when it fails unpaid).
  'coupons',
  'coupon_redemptions',
  // Issue 31: a paid order's invoice takes the year's next number; a refund is a row and a credit note.
  'invoices',
  'invoice_counters',
  'order_refunds',
  // …and the day's money follows every order and refund written (triggers, decision 039).
  'revenue_daily',
]
// A book's topics (named things with a join table), its table of contents (from the manuscript) and its
// author (a row the book's author name is copied from) came with issue 34.
const catalogue = [
  'books',
  'topics',
  'book_topics',
  // A book's prices in other currencies (issue 31), set on its edit page.
  'book_prices',
  'book_contents',
  'authors',
  'book_files',
  'book_editions',
  'book_manuscripts',
  'book_slug_redirects',
  'audit_log',
  'email_outbox',
]
const allowedWrites: Record<string, string[]> = {
  // The cart takes and drops bundles too (issue 30: intents add-bundle and remove-bundle).
  'routes/cart.tsx': ['carts', 'cart_items', 'cart_bundles'],
  // A coupon link puts its code on the visitor's cart (made for them if need be).
  'routes/coupon-link.ts': ['carts'],
  // A coupon made or switched on mails the wishlists it applies to (issue 30).
  'routes/admin/coupons.tsx': [
    'coupons',
    'coupon_books',
    'coupon_topics',
    'audit_log',
    'wishlists',
    'email_outbox',
  ],
  // Bundles are made and changed in the back office (issue 30), each change audited.
  'routes/admin/bundles.tsx': ['bundles', 'bundle_books', 'audit_log'],
  'routes/admin/bundle-edit.tsx': ['bundles', 'bundle_books', 'audit_log'],
  // The wishlist (issue 30): the heart; the owner's page shares it and turns its mails on or off; the mails'
  // unsubscribe link turns them off. Signing in joins a visitor's wishlist to the account's.
  'routes/wishlist.tsx': ['wishlists', 'wishlist_items'],
  'routes/account-wishlist.tsx': ['wishlists'],
  'routes/wishlist-unsubscribe.tsx': ['wishlists'],
  'routes/login.tsx': [...identity, 'carts', 'cart_items', 'cart_bundles', 'wishlists', 'wishlist_items'],
  'routes/register.tsx': [
    ...identity,
    'carts',
    'cart_items',
    'cart_bundles',
    'email_outbox',
    'wishlists',
    'wishlist_items',
  ],
  'routes/logout.tsx': ['session'],
  'routes/forgot-password.tsx': ['verification', 'email_outbox'],
  'routes/reset-password.tsx': [...identity, 'email_outbox'],
  // App passwords and the Kindle address (issue 33) are set on the account page, and go with a deleted account.
  'routes/account.tsx': [...identity, 'email_outbox', 'app_passwords', 'kindle_addresses'],
  'routes/account-verify-email.tsx': [...identity, 'email_outbox'],
  'routes/account-delete.tsx': [
    ...identity,
    'app_passwords',
    'kindle_addresses',
    'kindle_deliveries',
    'email_attachments',
    ...buying,
    'reviews',
    'review_votes',
    'review_reports',
    'books',
    // Issue 29: the reader's positions and annotations go, their name leaves the errata they reported.
    'reading_positions',
    'annotations',
    'errata',
    'wishlists',
    'wishlist_items',
  ],
  'routes/auth-callback.ts': [
    ...identity,
    'carts',
    'cart_items',
    'cart_bundles',
    'wishlists',
    'wishlist_items',
  ],
  // A gift's checkout links its order to the gift (issue 30).
  'routes/checkout.tsx': [...identity, ...buying, 'gifts'],
  // Gifts (issue 30): the form writes the buyer's draft; the claim link puts the books in a library; My gifts
  // sends the mail again (a new link).
  'routes/gift.tsx': ['gifts'],
  'routes/gift-claim.tsx': ['gifts', 'library_items'],
  'routes/account-gifts.tsx': ['gifts', 'email_outbox'],
  'routes/book.tsx': ['reviews', 'review_votes', 'review_reports', 'books', 'errata'],
  // The online reader (issue 29): its owner's place and annotations; errata from the reader or the sample.
  'routes/read-position.ts': ['reading_positions'],
  'routes/read-annotations.ts': ['annotations'],
  'routes/read-annotation.ts': ['annotations'],
  'routes/book-errata.ts': ['errata'],
  'routes/admin/errata.tsx': ['errata', 'audit_log'],
  // Tax rates and settings (issue 31), each change audited.
  'routes/admin/tax.tsx': ['tax_rates', 'store_settings', 'audit_log'],
  'routes/library-download.ts': ['library_items', 'book_files'],
  // Send to Kindle (issue 33): the stamped EPUB is queued as a mail with its file, and counted as a download.
  'routes/library.tsx': [
    'library_items',
    'book_files',
    'kindle_deliveries',
    'email_outbox',
    'email_attachments',
  ],
  'routes/admin/book-new.tsx': catalogue,
  // Prices in another currency filled at the owner's rate (issue 31), audited.
  'routes/admin/books.tsx': ['book_prices', 'audit_log'],
  // A lower price mails the wishlists that hold the book (issue 30): claimed, and the price told remembered.
  'routes/admin/book-edit.tsx': [
    ...catalogue,
    'carts',
    'cart_items',
    'cart_bundles',
    'wishlists',
    'wishlist_items',
  ],
  'routes/admin/book-cover.ts': catalogue,
  // Publishing an edition marks the confirmed errata fixed in it.
  'routes/admin/book-manuscript.tsx': [...catalogue, 'errata'],
  // A refund takes back a gift not yet claimed (issue 30).
  'routes/admin/order.tsx': [...buying, 'audit_log', 'gifts'],
  'routes/admin/reviews.tsx': ['reviews', 'review_reports', 'review_votes', 'books', 'audit_log'],
}

/**
 * The routes whose GET may write: a download counts against its limits, a provider's callback signs in, an
 * email's link verifies the address. Any other GET, HEAD or OPTIONS answered must leave the tables as they were.
 */
const writingLoaders = new Set([
  'routes/library-download.ts',
  'routes/auth-callback.ts',
  'routes/account-verify-email.tsx',
])

function mayWrite(target: Target, request: FuzzRequest): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(request.method) || writingLoaders.has(target.file)
}

/**
 * Tables that record requests rather than what a request asked for (page views and events for the analytics,
 * rate-limit counters: a refused request counts against the limit, that is their point), or that the store's
 * background workers change on their own (the mail outbox: only its rows' ids are compared).
 */
const bookkeeping = /^(analytics_|rate_limits$)/
const projections: Record<string, string> = {
  email_outbox: 'id',
}

// ---------------------------------------------------------------------------------------------------------
// Fingerprints of every table.

type Fingerprint = Map<string, string>

async function fingerprint(prepared: Prepared): Promise<Fingerprint> {
  const database = await prepared.open()
  try {
    const query = async <Row>(statement: ReturnType<typeof sql.raw>) =>
      ((await database.db.execute(statement)) as unknown as { rows: Row[] }).rows
    const tables = (
      await query<{ tablename: string }>(
        sql`select tablename from pg_tables where schemaname = 'public' order by tablename`,
      )
    )
      .map((row) => row.tablename)
      .filter((table) => !bookkeeping.test(table))
    const parts = tables.map((table) => {
      const columns = projections[table] ? `t.${projections[table]}` : 't'
      return `select '${table}' as name, count(*)::text || ':' || coalesce(md5(string_agg(md5((${columns})::text), '' order by md5((${columns})::text))), '') as print from "${table}" t`
    })
    const rows = await query<{ name: string; print: string }>(sql.raw(parts.join(' union all ')))
    return new Map(rows.map((row) => [row.name, row.print]))
  } finally {
    await database.close()
  }
}

function changedTables(before: Fingerprint, after: Fingerprint): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter(
    (table) => before.get(table) !== after.get(table),
  )
}

// ---------------------------------------------------------------------------------------------------------
// Requests.

type FuzzRequest = {
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
  /** Sent as the Content-Length instead of the body's length (a lie). */
  claimedLength?: number
  persona: PersonaName
  phase: 1 | 2
}

type Answer = {
  status: number
  location?: string
  body: string
  error?: string
  /** The store began an answer and then broke it off (a stream that failed after its status was sent). */
  cutShort?: boolean
  /** The request went out on a kept-alive connection (Node's `reusedSocket`). */
  reused?: boolean
  ms: number
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })

/**
 * Sends `request`; once more on a new connection when a kept-alive one was reset as it was reused. The store
 * closes a connection idle for 5 s (Node's keepAliveTimeout) and a request can leave on it in that instant —
 * the race Node documents for `request.reusedSocket` — which says nothing of the store: longer manuscripts made
 * publishing slow enough for other connections to sit idle that long.
 */
async function send(base: URL, request: FuzzRequest): Promise<Answer> {
  const answer = await sendOnce(base, request, agent)
  const resetOnReuse =
    answer.status === 0 && answer.reused && /ECONNRESET|socket hang up/.test(answer.error ?? '')
  return resetOnReuse ? sendOnce(base, request, false) : answer
}

function sendOnce(base: URL, request: FuzzRequest, via: http.Agent | false): Promise<Answer> {
  const started = performance.now()
  return new Promise((resolve) => {
    const done = (answer: Omit<Answer, 'ms'>) => resolve({ ...answer, ms: performance.now() - started })
    let req: http.ClientRequest
    try {
      const headers: Record<string, string> = { ...request.headers }
      if (request.body && request.claimedLength === undefined)
        headers['Content-Length'] = String(request.body.length)
      if (request.claimedLength !== undefined) headers['Content-Length'] = String(request.claimedLength)
      // A lying length makes the connection unusable for another request.
      const lying = request.claimedLength !== undefined || headers['Transfer-Encoding'] !== undefined
      req = http.request({
        host: base.hostname,
        port: base.port,
        method: request.method,
        path: request.path,
        headers,
        agent: lying ? false : via,
        timeout: REQUEST_TIMEOUT_MS,
      })
    } catch (error) {
      // A request Node will not send (e.g. a character a header may not hold): not the store's business.
      done({ status: -1, body: '', error: String(error) })
      return
    }
    req.on('response', (response) => {
      const chunks: Buffer[] = []
      let size = 0
      response.on('data', (chunk: Buffer) => {
        if (size < 4096) chunks.push(chunk)
        size += chunk.length
      })
      response.on('end', () =>
        done({
          status: response.statusCode ?? 0,
          location: response.headers.location,
          body: Buffer.concat(chunks).toString('utf8').slice(0, 4096),
        }),
      )
      response.on('error', (error) =>
        done({ status: response.statusCode ?? 0, body: '', error: String(error), cutShort: true }),
      )
      response.on('close', () => {
        if (!response.complete)
          done({
            status: response.statusCode ?? 0,
            body: '',
            error: 'connection closed mid-answer',
            cutShort: true,
          })
      })
    })
    req.on('timeout', () => {
      req.destroy(new Error('timeout'))
    })
    req.on('error', (error) => done({ status: 0, body: '', error: String(error), reused: req.reusedSocket }))
    if (request.claimedLength !== undefined && request.body) {
      // Send what we have and half-close after a moment: the store must answer or drop, not hang for ever.
      req.write(request.body)
      setTimeout(() => req.destroy(), 2_000).unref()
    } else {
      req.end(request.body)
    }
  })
}

// ---------------------------------------------------------------------------------------------------------
// Generators.

type PersonaName = 'nobody' | 'guest' | 'customer' | 'admin'
const personaNames: PersonaName[] = ['nobody', 'guest', 'customer', 'admin']

type FormTemplate = { action: string; fields: [string, string][] }

type World = {
  base: URL
  cookies: Record<PersonaName, string>
  /** The forms each visitor was shown, by the route pattern they post to. */
  forms: Map<string, FormTemplate[]>
  /** Values seen for each field name, across all forms. */
  values: Map<string, Set<string>>
  paramValues: Record<string, string[]>
}

const adversarialStrings = [
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  "' or 1=1 --",
  '"; drop table books; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '%00',
  '\u0000',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '🦄🏳️‍🌈',
  'ｆｕｌｌｗｉｄｔｈ',
  'a'.repeat(300),
  'x'.repeat(5_000),
  '//evil.example/',
  'https://evil.example/',
  'javascript:alert(1)',
  '\\\\evil.example',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '9'.repeat(40),
  '12/34',
  '4242424242424242',
  '4000000000000002',
  '2026-13-45',
  '1970-01-01',
  '9999-12-31',
]

const adversarialKeys = [
  '__proto__',
  '__proto__[admin]',
  'constructor[prototype][admin]',
  'constructor.prototype.isAdmin',
  'a[b][c][d]',
  'items[]',
  'role',
  'isAdmin',
  'userId',
  'id',
  '',
  '_data',
  '$$typeof',
  'toString',
]

const adversarialSegments = [
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%E0%A4%A',
  '%ff%fe',
  '%C0%AF',
  encodeURIComponent('Ünïcødé-📚'),
  encodeURIComponent('\u202e'),
  'a'.repeat(3_000),
  '-',
  '0',
  '99999999999999999999',
  'download.pdf',
  'download.epub',
  'books-0.xml',
  'books-1.xml',
  'books-999999.xml',
  'static.xml',
  'x.avif',
  'UPPER-CASE',
]

const foreignOrigins = ['https://evil.example', 'null', 'http://127.0.0.1:1', 'file://', 'garbage']
const acceptValues = [
  'text/html',
  'application/json',
  '*/*',
  'text/html;q=0, application/json',
  'image/avif,image/webp',
  'text/x-garbage',
  '',
]

function percentEncodeValue(value: string): string {
  return encodeURIComponent(value)
}

function formEncode(pairs: [string, string][]): Buffer {
  return Buffer.from(
    pairs.map(([key, value]) => `${encodeURIComponent(key)}=${percentEncodeValue(value)}`).join('&'),
  )
}

function multipart(pairs: [string, string][], boundary: string, withFile: boolean): Buffer {
  const parts: Buffer[] = []
  for (const [key, value] of pairs)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${key.replaceAll('"', '%22')}"\r\n\r\n${value}\r\n`,
      ),
    )
  if (withFile)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="../../x.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0xfe]),
      Buffer.from('\r\n'),
    )
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(parts)
}

const invalidUtf8 = Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc, 0xff])

function fillPattern(pattern: string, world: World): fc.Arbitrary<string> {
  const segments = pattern.split('/').slice(1)
  return fc
    .tuple(
      ...segments.map((segment) => {
        if (!segment.startsWith(':')) return fc.constant(segment)
        const known = world.paramValues[segment.slice(1)] ?? []
        return fc.oneof(
          { weight: 3, arbitrary: known.length ? fc.constantFrom(...known) : fc.constant('x') },
          { weight: 1, arbitrary: fc.constantFrom(...adversarialSegments) },
          {
            weight: 1,
            arbitrary: fc
              .string({ unit: 'grapheme', maxLength: 40 })
              .map((text) => encodeURIComponent(text) || '-'),
          },
        )
      }),
    )
    .map((parts) => `/${parts.join('/')}`.replace(/\/+$/, '') || '/')
}

const queryArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(
              'q',
              'page',
              'sort',
              'redirectTo',
              'token',
              'from',
              'to',
              'range',
              'status',
              'index',
              '_data',
              'error',
              'code',
              'state',
              'topic',
              'level',
              'format',
              'filter',
              'cover-error',
              'saved',
            ),
            fc.constantFrom(...adversarialKeys),
          ),
          fc.oneof(
            fc.constantFrom(...adversarialStrings.filter((text) => text.length < 400)),
            fc.string({ unit: 'grapheme', maxLength: 30 }),
          ),
        ),
        { maxLength: 5 },
      )
      .map(
        (pairs) =>
          `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '?',
      '?&&&',
      '?%',
      '?q=%E0%A4%A',
      `?q=${'a'.repeat(6000)}`,
      '?a=1&a=2&a=3',
      '?index',
      '?_data=root',
    ),
  },
)

function cookieArb(persona: PersonaName, world: World): fc.Arbitrary<string> {
  const own = world.cookies[persona]
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(own) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'better-auth.session_token=forged.c2lnbmF0dXJl',
        'better-auth.session_token=' + 'A'.repeat(32) + '.' + 'B'.repeat(43),
        'better-auth.session_token=%E0%A4%A',
        'cb_cart=00000000-0000-0000-0000-000000000000.forged',
        'cb_cart=garbage',
        'theme=<script>',
        '=; ;; a',
        `big=${'x'.repeat(7_000)}`,
      ),
    },
    {
      weight: 1,
      // The visitor's own cookies with the signature cut or altered: an expired or forged copy.
      arbitrary: fc.constant(own.replace(/(=[^.;]+\.)[^;]{4}/g, '$1AAAA')),
    },
  )
}

function headersArb(persona: PersonaName, world: World, extra: fc.Arbitrary<Record<string, string>>) {
  return fc
    .record({
      accept: fc.constantFrom(...acceptValues),
      cookie: cookieArb(persona, world),
      referer: fc.oneof(
        fc.constant(''),
        fc.constant(`${world.base.origin}/`),
        fc.constantFrom(...foreignOrigins),
      ),
      forwarded: fc.oneof(
        fc.constant(''),
        fc.ipV4(),
        fc.constantFrom('garbage', '::1', '1.1.1.1, 2.2.2.2', 'unknown'),
      ),
      range: fc.oneof(
        fc.constant(''),
        fc.constant(''),
        fc.constantFrom('bytes=0-10', 'bytes=-5', 'bytes=9999999-', 'bytes=garbage', 'bytes=5-1'),
      ),
      ifNoneMatch: fc.oneof(fc.constant(''), fc.constant(''), fc.constantFrom('*', '"x"', 'W/"garbage"')),
      extra,
    })
    .map(({ accept, cookie, referer, forwarded, range, ifNoneMatch, extra }) => {
      const headers: Record<string, string> = {}
      if (accept) headers.Accept = accept
      if (cookie) headers.Cookie = cookie
      if (referer) headers.Referer = referer
      if (forwarded) headers['X-Forwarded-For'] = forwarded
      if (range) headers.Range = range
      if (ifNoneMatch) headers['If-None-Match'] = ifNoneMatch
      return { ...headers, ...extra }
    })
}

/** Pairs from one of the store's forms for this route, mutated; or garbage keys. */
function fieldsArb(target: Target, world: World, phase: 1 | 2): fc.Arbitrary<[string, string][]> {
  const garbage = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...adversarialKeys), fc.string({ maxLength: 12 })),
      fc.oneof(fc.constantFrom(...adversarialStrings), fc.string({ unit: 'grapheme', maxLength: 50 })),
    ),
    { maxLength: 8 },
  )
  if (phase === 1) return garbage
  const templates = world.forms.get(target.pattern) ?? []
  // Without a form of its own (none shown to these visitors), fields named as the store's forms name theirs.
  const names = [...world.values.keys()]
  const knownFields = fc.array(
    fc
      .constantFrom(...names)
      .chain((name) =>
        fc.tuple(
          fc.constant(name),
          fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom(...(world.values.get(name) ?? new Set(['']))) },
            { weight: 1, arbitrary: fc.constantFrom(...adversarialStrings) },
          ),
        ),
      ),
    { minLength: 1, maxLength: 6 },
  )
  const knownValue = (name: string) => {
    const seen = [...(world.values.get(name) ?? [])]
    return seen.length ? fc.constantFrom(...seen) : fc.constantFrom(...adversarialStrings)
  }
  // A field keeps the form's value, or takes another value seen in a form, an adversarial one, random text,
  // or one too long.
  const mutatedValue = (name: string) =>
    fc.oneof(
      { weight: 2, arbitrary: knownValue(name) },
      { weight: 2, arbitrary: fc.constantFrom(...adversarialStrings) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }) },
      { weight: 1, arbitrary: fc.constant('y'.repeat(60_000)) },
    )
  const field = (name: string, value: string, mutationRate: number) =>
    fc
      .tuple(
        fc.double({ min: 0, max: 1, noNaN: true }),
        mutatedValue(name),
        fc.double({ min: 0, max: 1, noNaN: true }),
      )
      .map(([roll, other, dropRoll]) =>
        dropRoll < mutationRate / 3
          ? null
          : ([name, roll < mutationRate ? other : value] as [string, string]),
      )
  const fromTemplate =
    templates.length === 0
      ? knownFields
      : fc
          .tuple(fc.constantFrom(...templates), fc.constantFrom(0, 0, 0.15, 0.4, 1))
          .chain(([template, mutationRate]) =>
            fc
              .tuple(
                fc.tuple(...template.fields.map(([name, value]) => field(name, value, mutationRate))),
                fc.oneof(
                  { weight: 4, arbitrary: fc.constant([] as [string, string][]) },
                  { weight: 1, arbitrary: garbage },
                ),
                fc.constantFrom(false, false, false, true),
              )
              .map(([pairs, extra, duplicate]) => {
                // A pristine form two times in five; else some fields changed or dropped, sometimes extra keys,
                // sometimes a field twice.
                const kept = pairs.filter((pair): pair is [string, string] => pair !== null)
                if (duplicate && kept[0]) kept.push([kept[0][0], 'duplicate'])
                return [...kept, ...extra]
              }),
          )
  return fc.oneof({ weight: 4, arbitrary: fromTemplate }, { weight: 1, arbitrary: garbage })
}

type BodyShape = { contentType?: string; body?: Buffer; claimedLength?: number; chunked?: boolean }

function bodyArb(target: Target, world: World, phase: 1 | 2): fc.Arbitrary<BodyShape> {
  const fields = fieldsArb(target, world, phase)
  const boundary = '----fuzz' + 'b'.repeat(8)
  const wellFormed = fc.oneof(
    {
      weight: 6,
      arbitrary: fields.map((pairs) => ({
        contentType: 'application/x-www-form-urlencoded',
        body: formEncode(pairs),
      })),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(fields, fc.boolean()).map(([pairs, file]) => ({
        contentType: `multipart/form-data; boundary=${boundary}`,
        body: multipart(pairs, boundary, file),
      })),
    },
    {
      weight: 1,
      arbitrary: fields.map((pairs) => ({
        contentType: 'application/x-www-form-urlencoded; charset=utf-8',
        body: Buffer.concat([
          formEncode(pairs),
          Buffer.from('&bad='),
          invalidUtf8,
          Buffer.from('&%zz=%E0%A4%A&=&&'),
        ]),
      })),
    },
  )
  const broken = fc.oneof(
    fc.constant({ contentType: 'multipart/form-data', body: Buffer.from('no boundary here') }),
    fc.constant({
      contentType: `multipart/form-data; boundary=${boundary}`,
      body: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated`),
    }),
    fc.constant({ contentType: 'application/x-www-form-urlencoded', body: invalidUtf8 }),
  )
  const refused = fc.oneof(
    fields.map((pairs) => ({
      contentType: 'application/json',
      body: Buffer.from(JSON.stringify(Object.fromEntries(pairs))),
    })),
    fc.constant({
      contentType: 'application/json',
      body: Buffer.from('{"__proto__":{"isAdmin":true},"a":{"b":{"c":[1,2,{"d":null}]}}}'),
    }),
    fc.constant({ contentType: 'text/plain', body: Buffer.from('intent=add') }),
    fc.constant({
      contentType: 'application/xml',
      body: Buffer.from(
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
      ),
    }),
    fc.constant({ contentType: undefined, body: Buffer.from('intent=add') }),
    fc.constant({ contentType: 'application/x-www-form-urlencoded', body: Buffer.alloc(70 * 1024, 'a') }),
    fc.constant({
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from('a=1'),
      claimedLength: 50 * 1024 * 1024,
    }),
    fc.constant({
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from('a=1'),
      chunked: true,
    }),
  )
  return phase === 1
    ? fc.oneof(
        { weight: 3, arbitrary: refused },
        { weight: 1, arbitrary: broken },
        { weight: 2, arbitrary: wellFormed },
      )
    : fc.oneof(
        { weight: 12, arbitrary: wellFormed },
        { weight: 1, arbitrary: broken },
        { weight: 1, arbitrary: refused },
      )
}

function requestArb(
  target: Target,
  world: World,
  persona: PersonaName,
  phase: 1 | 2,
): fc.Arbitrary<FuzzRequest> {
  const writes = target.hasAction
  const methods = writes
    ? phase === 1
      ? ['POST', 'POST', 'PUT', 'DELETE', 'PATCH', 'GET']
      : ['POST', 'POST', 'POST', 'POST', 'GET', 'HEAD', 'DELETE']
    : ['GET', 'GET', 'GET', 'HEAD', 'POST', 'OPTIONS']
  return fc
    .record({
      method: fc.constantFrom(...methods),
      path: fillPattern(target.pattern, world),
      dataSuffix: fc.constantFrom('', '', '', '', '.data'),
      query: queryArb,
      body: bodyArb(target, world, phase),
      crossSite:
        phase === 1
          ? fc.constantFrom<'origin' | 'fetch-site' | ''>('origin', 'fetch-site', '', '')
          : fc.constantFrom<'origin' | ''>('', '', '', '', '', '', '', '', '', 'origin'),
      origin: fc.constantFrom(...foreignOrigins),
      sameOrigin: fc.boolean(),
      headers: headersArb(persona, world, fc.constant({})),
    })
    .map(({ method, path: urlPath, dataSuffix, query, body, crossSite, origin, sameOrigin, headers }) => {
      const all: Record<string, string> = { ...headers }
      const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS'
      if (hasBody && body.contentType) all['Content-Type'] = body.contentType
      if (hasBody && body.chunked) all['Transfer-Encoding'] = 'chunked'
      if (crossSite === 'origin') all.Origin = origin
      else if (crossSite === 'fetch-site') all['Sec-Fetch-Site'] = 'cross-site'
      else if (sameOrigin && hasBody) {
        all.Origin = world.base.origin
        all['Sec-Fetch-Site'] = 'same-origin'
      }
      if (target.pattern === '/metrics' && sameOrigin) all.Authorization = `Bearer ${METRICS_TOKEN}`
      const suffix = target.file === 'host' || urlPath === '/' ? '' : dataSuffix
      return {
        method,
        path: `${urlPath}${suffix}${query}`,
        headers: all,
        body: hasBody && !body.chunked ? body.body : hasBody ? body.body : undefined,
        claimedLength: hasBody ? body.claimedLength : undefined,
        persona,
        phase,
      }
    })
}

// ---------------------------------------------------------------------------------------------------------
// The visitors and what the store shows them.

async function get(base: URL, pathname: string, cookie: string) {
  const response = await fetch(new URL(pathname, base), {
    headers: { Cookie: cookie, Accept: 'text/html' },
    redirect: 'manual',
  })
  return { status: response.status, text: await response.text(), response }
}

function decodeEntities(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)
  return match ? decodeEntities(match[1]!) : undefined
}

/** Turns a URL path into the pattern of the target it reaches. */
function patternOf(pathname: string, targets: Target[]): string | undefined {
  const clean = pathname.split('?')[0]!.toLowerCase()
  for (const target of targets) {
    const regex = new RegExp(`^${target.pattern.replace(/:[a-zA-Z]+/g, '[^/]+').replace(/\./g, '\\.')}$`, 'i')
    if (regex.test(clean)) return target.pattern
  }
  return undefined
}

function scrapeForms(html: string, page: string, targets: Target[], world: World) {
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const [, formAttributes, inner] = match
    if (!/method="post"/i.test(formAttributes!)) continue
    const action = attribute(formAttributes!, 'action') ?? page
    const pattern = patternOf(action, targets)
    if (!pattern) continue
    const fields: [string, string][] = []
    const buttons: [string, string][] = []
    for (const tag of inner!.matchAll(/<(input|textarea|select|button)\b([^>]*)>/g)) {
      const name = attribute(tag[2]!, 'name')
      if (!name) continue
      const type = attribute(tag[2]!, 'type')
      let value = attribute(tag[2]!, 'value') ?? ''
      if (tag[1] === 'select') value = /<option[^>]*value="([^"]*)"/.exec(inner!.slice(tag.index))?.[1] ?? ''
      if (tag[1] === 'textarea') value = /^[^>]*>([^<]*)/.exec(inner!.slice(tag.index))?.[1] ?? ''
      if (type === 'checkbox') value = value || 'on'
      if (!value && name === 'email') value = `fuzz.${Math.random().toString(36).slice(2)}@example.com`
      if (!value && /password/i.test(name)) value = 'fuzz passphrase that is long enough'
      if (!value && name === 'cvc') value = '123'
      if (!value && name === 'number') value = '4242424242424242'
      if (!value && name === 'expiry') value = '12/34'
      if (!value && name === 'name') value = 'Fuzz Tester'
      ;(tag[1] === 'button' ? buttons : fields).push([name, decodeEntities(value)])
      const seen = world.values.get(name) ?? new Set()
      seen.add(decodeEntities(value))
      world.values.set(name, seen)
    }
    // One template per submit button (the button's name and value are part of what it sends).
    const variants = buttons.length ? buttons.map((button) => [...fields, button]) : [fields]
    const templates = world.forms.get(pattern) ?? []
    for (const variant of variants)
      if (!templates.some((template) => JSON.stringify(template.fields) === JSON.stringify(variant)))
        templates.push({ action, fields: variant })
    world.forms.set(pattern, templates.slice(0, 40))
  }
}

/**
 * Reads the forms each visitor is shown now (a checkout's key changes with the cart, a fuzzed sign-out ends a
 * session): before every route, or with --quick before each phase.
 */
async function discover(world: World, targets: Target[], prepared: Prepared) {
  world.forms = new Map()
  const slug = prepared.bookSlugs[0]!
  const orderId = prepared.personas.customer.orderId
  const bookId = prepared.bookIds[0]!
  const pages = [
    '/',
    '/AllBooks',
    ...prepared.bookSlugs.slice(0, 3).map((each) => `/books/${each}`),
    '/cart',
    '/checkout',
    '/login',
    '/Register',
    '/forgot-password',
    '/reset-password?token=garbage',
    '/account',
    '/account/verify-email',
    '/account/delete',
    '/account/library',
    `/orders/${orderId}`,
    '/admin',
    '/admin/books',
    '/admin/books/new',
    `/admin/books/${bookId}`,
    `/admin/books/${bookId}/manuscript`,
    '/admin/orders',
    `/admin/orders/${orderId}`,
    '/admin/reviews',
    // Bundles (issue 30): the page's Add Bundle To Cart form, and the back office's forms.
    `/bundles/${prepared.bundle.slug}`,
    '/admin/bundles',
    `/admin/bundles/${prepared.bundle.id}`,
  ]
  for (const persona of personaNames)
    for (const page of pages) {
      const { status, text } = await get(world.base, page, world.cookies[persona])
      if (status === 200) scrapeForms(text, page.split('?')[0]!, targets, world)
      for (const cover of text.matchAll(/\/media\/covers\/([^"?\s,]+)/g))
        world.paramValues.file!.push(cover[1]!)
    }
  world.paramValues.file = [...new Set(world.paramValues.file)].slice(0, 20)
  void slug
}

/** Is the visitor still signed in (a fuzzed logout or session revocation may have signed them out)? */
async function signedIn(world: World, persona: PersonaName): Promise<boolean> {
  const { status } = await get(world.base, '/account/orders', world.cookies[persona])
  return status === 200
}

async function signInAgain(world: World, persona: 'customer' | 'admin', email: string, password: string) {
  const response = await fetch(new URL('/login', world.base), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'X-Forwarded-For': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    },
    body: new URLSearchParams({ email, password, redirectTo: '/' }),
  })
  const token = new CookieJar().take(response).get('better-auth.session_token')
  if (token) world.cookies[persona] = `better-auth.session_token=${token}`
  return token !== undefined
}

async function startGuest(world: World) {
  const response = await fetch(new URL('/login', world.base), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'X-Forwarded-For': `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    },
    body: new URLSearchParams({ intent: 'guest', redirectTo: '/' }),
  })
  world.cookies.guest = cookieHeader(response)
}

// ---------------------------------------------------------------------------------------------------------
// The run.

type RouteStats = {
  requests: number
  /** Wall-clock time spent on the route (its fingerprints included). */
  seconds: number
  statuses: Map<number, number>
  ms: number
  fiveHundreds: number
}

const failures: string[] = []
function fail(message: string) {
  failures.push(message)
  console.log(`  ✗ ${message}`)
}

/** The errors the store logged in `output` (its output since a batch began). */
function loggedErrors(output: string): string {
  const lines = output.split('\n').filter((line) => line.includes('"level":50'))
  return lines.length === 0 ? '(nothing logged)' : lines.slice(0, 3).join('\n      ')
}

/** The request in a line; the path is cut at `pathLimit` characters (a failure prints it whole). */
function describe(request: FuzzRequest, pathLimit = 300): string {
  const body = request.body
    ? ` body(${request.body.length} B${request.claimedLength !== undefined ? `, claimed ${request.claimedLength}` : ''}): ${JSON.stringify(request.body.subarray(0, 300).toString('latin1'))}`
    : ''
  const headers = Object.entries(request.headers)
    .map(
      ([name, value]) =>
        `${name}: ${value.length > 120 ? `${value.slice(0, 120)}…(${value.length})` : value}`,
    )
    .join(' | ')
  return `[${request.persona}, phase ${request.phase}] ${request.method} ${request.path.length > pathLimit ? `${request.path.slice(0, pathLimit)}…` : request.path} {${headers}}${body}`
}

/** A refusal: an error status, or a redirect back carrying an error (e.g. the cover upload's `?cover-error=`). */
function refused(answer: Answer): boolean {
  if (answer.status >= 400 && answer.status < 500) return true
  return answer.status >= 300 && answer.status < 400 && /error/i.test(answer.location ?? '')
}

ensureBuild(options.build)
const started = performance.now()
const prepared = await prepareStoreData(kind)
const port = await freePort()
let store: StoreProcess = await startStore(prepared, port, { LOG_LEVEL: 'error' }, { keepOutput: true })
const targets = readTargets().filter(
  (target) => !routeFilter || target.pattern.includes(routeFilter) || target.file.includes(routeFilter),
)
const world: World = {
  base: new URL(store.url),
  cookies: {
    nobody: '',
    guest: prepared.personas.guest.cookie,
    customer: prepared.personas.customer.cookie,
    admin: prepared.personas.admin.cookie,
  },
  forms: new Map(),
  values: new Map(),
  paramValues: {
    // A bundle's slug too: /bundles/:slug takes it (and a book's route answers it 404).
    slug: [...prepared.bookSlugs, prepared.bundle.slug],
    bookId: prepared.bookIds,
    bundleId: [prepared.bundle.id, crypto.randomUUID()],
    orderId: [prepared.personas.customer.orderId, crypto.randomUUID()],
    index: ['0', '1', '6', '7', '-1', '1.5'],
    file: ['download.pdf', 'download.epub', 'static.xml', 'books-1.xml', 'books-2.xml'],
    provider: ['github', 'oidc', 'google'],
    // A shared wishlist's or an unsubscribe link's token: well-formed but unknown, and malformed.
    token: ['AAAAAAAAAAAAAAAAAAAAAA', 'not-a-token'],
  },
}

async function restartStore() {
  await store.stop()
  store = await startStore(prepared, port, { LOG_LEVEL: 'error' }, { keepOutput: true })
}

/** Reads the tables' fingerprints (PGlite: with the store stopped, as only one process may open its folder). */
async function checkpoint(): Promise<Fingerprint> {
  if (kind === 'postgres') return fingerprint(prepared)
  await store.stop()
  const print = await fingerprint(prepared)
  store = await startStore(prepared, port, { LOG_LEVEL: 'error' }, { keepOutput: true })
  return print
}

/** What was sent since the last fingerprint: the accepted requests by route file, and a few of them. */
type Window = { accepted: Map<string, number>; total: number; samples: string[] }
const newWindow = (): Window => ({ accepted: new Map(), total: 0, samples: [] })
let window = newWindow()

const stats = new Map<string, RouteStats>()
/** Fingerprint comparisons, and those of batches whose every request was refused (nothing may change). */
let windowsChecked = 0
let windowsAllRefused = 0
let exitCode = 1
try {
  await discover(world, targets, prepared)
  console.log(
    `ready in ${((performance.now() - started) / 1000).toFixed(1)} s (data prepared, store started, forms read)`,
  )
  console.log(
    `fuzz: ${targets.length} targets, ${runsPerRoute} requests each, database ${kind}, seed ${seed}` +
      `; forms found for ${world.forms.size} routes: ${[...world.forms.keys()].join(' ')}`,
  )
  let before = await checkpoint()
  const phases: (1 | 2)[] = [1, 2]
  // Per phase, per route, per visitor: the requests, in batches checked against the tables' fingerprints.
  for (const phase of phases) {
    for (const [targetIndex, target] of targets.entries()) {
      const routeStats: RouteStats = stats.get(target.pattern) ?? {
        requests: 0,
        seconds: 0,
        statuses: new Map(),
        ms: 0,
        fiveHundreds: 0,
      }
      stats.set(target.pattern, routeStats)
      const routeStarted = performance.now()
      if (!quick || targetIndex === 0) {
        // Pages are read with GET: they may change no table (the next comparison checks that too).
        await discover(world, targets, prepared)
      }
      for (const [personaIndex, persona] of personaNames.entries()) {
        const count = Math.ceil(runsPerRoute / phases.length / personaNames.length)
        const requests = fc.sample(requestArb(target, world, persona, phase), {
          numRuns: count,
          seed: seed + phase * 100_000 + targetIndex * 1_000 + personaIndex,
        })
        for (let offset = 0; offset < requests.length; offset += Math.min(BATCH, requests.length)) {
          const batch = requests.slice(offset, offset + Math.min(BATCH, requests.length))
          const answers: { request: FuzzRequest; answer: Answer }[] = []
          const logFrom = store.output().length
          let next = 0
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (next < batch.length) {
                const request = batch[next++]!
                const answer = await send(world.base, request)
                answers.push({ request, answer })
              }
            }),
          )
          for (const { request, answer } of answers) {
            if (verbose)
              console.log(
                `    ${answer.status} ${describe(request).slice(0, 500)}\n      ← ${answer.location ?? answer.body.slice(0, 160).replaceAll('\n', ' ')}`,
              )
            if (answer.status === -1) continue
            window.total++
            if (answer.status > 0 && !refused(answer) && mayWrite(target, request)) {
              window.accepted.set(target.file, (window.accepted.get(target.file) ?? 0) + 1)
              if (window.samples.length < 20)
                window.samples.push(`${answer.status} ${describe(request).slice(0, 400)}`)
            }
            routeStats.requests++
            routeStats.ms += answer.ms
            routeStats.statuses.set(answer.status, (routeStats.statuses.get(answer.status) ?? 0) + 1)
            // A stream the store broke off after sending its status (say, a CSV export whose query failed
            // half-way) is a server error too, whatever the status said.
            const brokenOff =
              answer.cutShort && request.claimedLength === undefined && !request.headers['Transfer-Encoding']
            if (answer.status >= 500 || brokenOff) {
              routeStats.fiveHundreds++
              if (routeStats.fiveHundreds <= 3) {
                fail(
                  `${answer.status}${brokenOff ? ` cut short (${answer.error})` : ''} from ${describe(request, Infinity)}\n      → ${answer.body.slice(0, 300).replaceAll('\n', ' ')}`,
                )
                // What the store logged meanwhile (errors only: LOG_LEVEL=error).
                console.log(`      store log: ${loggedErrors(store.output().slice(logFrom)).slice(0, 4000)}`)
              }
            }
            if (
              answer.status === 0 &&
              request.claimedLength === undefined &&
              !request.headers['Transfer-Encoding']
            )
              fail(`no answer (${answer.error}) to ${describe(request)}`)
          }
          if (store.child.exitCode !== null || store.child.signalCode !== null) {
            fail(
              `the store exited (${store.child.exitCode ?? store.child.signalCode}) during ${target.pattern}:\n${store.output().slice(-3000)}`,
            )
            await restartStore()
          }
          const health = await fetch(new URL('/healthz', world.base)).catch(() => undefined)
          if (health?.status !== 200)
            fail(`/healthz answered ${health?.status} after a batch of ${target.pattern}`)
          // Compared per batch on PostgreSQL; per route (all visitors) on PGlite, per phase with --quick.
          const lastOfRoute =
            personaIndex === personaNames.length - 1 && offset + batch.length >= requests.length
          const lastOfPhase = lastOfRoute && targetIndex === targets.length - 1
          if (kind === 'postgres' || (quick ? lastOfPhase : lastOfRoute)) {
            const after = await checkpoint()
            windowsChecked++
            if (window.accepted.size === 0) windowsAllRefused++
            judgeWrites(
              changedTables(before, after),
              window,
              quick && kind === 'pglite' ? `phase ${phase}` : target.pattern,
            )
            before = after
            window = newWindow()
          }
        }
      }
      const elapsed = (performance.now() - routeStarted) / 1000
      routeStats.seconds += elapsed
      console.log(
        `  phase ${phase} ${target.pattern.padEnd(38)} ${String(routeStats.requests).padStart(6)} requests ` +
          `${elapsed.toFixed(1)} s  ${[...routeStats.statuses.entries()]
            .sort(([a], [b]) => a - b)
            .map(([status, n]) => `${status}×${n}`)
            .join(' ')}`,
      )
      // A fuzzed logout or revocation may have signed a visitor out: sign them in again for the next route
      // (which writes sessions: the fingerprints are read again).
      if (await keepVisitorsSignedIn()) {
        if (kind === 'postgres' || !quick) before = await checkpoint()
        else window.accepted.set('routes/login.tsx', (window.accepted.get('routes/login.tsx') ?? 0) + 1)
      }
    }
  }
  printSummary()
  exitCode = failures.length === 0 ? 0 : 1
  console.log(exitCode === 0 ? 'fuzz: PASS' : `fuzz: FAIL (${failures.length} findings)`)
} catch (error) {
  console.error(error)
  console.error(store.output().slice(-3000))
} finally {
  agent.destroy()
  await cleanUp()
}
process.exit(exitCode)

/**
 * The property on the rows: requests that were all refused change nothing; accepted requests change only
 * their routes' tables. `window`: what was sent since the last fingerprint.
 */
function judgeWrites(changed: string[], window: Window, where: string) {
  if (changed.length === 0) return
  const allowed = new Set([...window.accepted.keys()].flatMap((file) => allowedWrites[file] ?? []))
  const unexpected = changed.filter((table) => !allowed.has(table))
  if (unexpected.length === 0) return
  const acceptedCount = [...window.accepted.values()].reduce((sum, n) => sum + n, 0)
  fail(
    `${where}: tables changed that ${acceptedCount ? 'these routes should not change' : 'refused requests should not change'}: ${unexpected.join(', ')} ` +
      `(${acceptedCount} accepted of ${window.total} requests since the last fingerprint: ${[...window.accepted.entries()].map(([file, n]) => `${file}×${n}`).join(' ')})` +
      (window.samples.length ? `\n      e.g. ${window.samples.slice(0, 4).join('\n      e.g. ')}` : ''),
  )
}

async function keepVisitorsSignedIn(): Promise<boolean> {
  let changed = false
  for (const persona of ['customer', 'admin'] as const)
    if (!(await signedIn(world, persona))) {
      changed = true
      if (!(await signInAgain(world, persona, prepared.personas[persona].email, prepared.personas.password)))
        console.log(`  (the ${persona} could not sign in again: their account was changed by the fuzz)`)
    }
  if (!(await signedIn(world, 'guest'))) {
    changed = true
    await startGuest(world)
  }
  return changed
}

function printSummary() {
  const rows = [...stats.entries()].map(([pattern, routeStats]) => ({
    route: pattern,
    requests: routeStats.requests,
    '5xx': routeStats.fiveHundreds,
    seconds: routeStats.seconds.toFixed(1),
    'mean ms': (routeStats.ms / Math.max(1, routeStats.requests)).toFixed(1),
    statuses: [...routeStats.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}×${n}`)
      .join(' '),
  }))
  console.table(rows)
  const total = rows.reduce((sum, row) => sum + row.requests, 0)
  console.log(
    `tables compared ${windowsChecked} times; ${windowsAllRefused} of those batches were refused whole ` +
      `(nothing may change), the others may change only their routes' tables`,
  )
  console.log(
    `${total} requests in ${((performance.now() - started) / 1000).toFixed(0)} s; seed ${seed}; ` +
      `load average ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')} (shared machine)`,
  )
}
