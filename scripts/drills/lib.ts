/**
 * What the failure drills share (scripts/drills/*.ts): their options (options.ts), a cleanup that runs on every
 * exit path, requests bounded in time, buyers who check out and download over HTTP as a browser without
 * JavaScript would, and the check that every order a buyer was shown is in the database, paid once, with its books.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { openDatabase, type DatabaseHandle, type Db } from '#app/server/db/database.server.ts'
import { createReader } from '#harness/factories/buyers.ts'
import { startPostgres, type PostgresServer } from '#harness/postgres-server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import type { DbKind } from './options.ts'

export { parseDrillOptions, type DbKind } from './options.ts'

/** The secret the test factories sign sessions with: the store must share it to accept the buyers' cookies. */
export const FACTORY_AUTH_SECRET = 'test-secret-that-is-long-enough-0123456789'

/** The production build the drills run: built first when missing, or when `rebuild` (the drill's `--build`). */
export function ensureBuild(rebuild: boolean) {
  if (fs.existsSync('build/server/index.js') && !rebuild) return
  const build = spawnSync('npx', ['react-router', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const cleanups: Array<() => unknown> = []
let cleaning: Promise<void> | undefined

/** Runs `cleanup` (last registered first) when the drill ends, however it ends. */
export function onExit(cleanup: () => unknown) {
  cleanups.push(cleanup)
}

export function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup()
      } catch (error) {
        console.error('cleanup failed:', error)
      }
    }
  })()
  return cleaning
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`\n${signal}: cleaning up`)
    void cleanUp().then(() => process.exit(130))
  })
for (const event of ['uncaughtException', 'unhandledRejection'] as const)
  process.once(event, (error: unknown) => {
    console.error(`${event}:`, error)
    void cleanUp().then(() => process.exit(1))
  })

/** Runs the drill; exits 0 when it returns true, 1 when it returns false or throws; always cleans up. */
export async function runDrill(main: () => Promise<boolean>): Promise<never> {
  let ok = false
  try {
    ok = await main()
  } catch (error) {
    console.error(error)
  }
  await cleanUp()
  console.log(ok ? 'DRILL PASSED' : 'DRILL FAILED')
  process.exit(ok ? 0 : 1)
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function tempDir(name: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `codebook-drill-${name}-`))
  onExit(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The machine's load, printed with the figures (the machine is shared: figures are noisy). */
export function loadAverage() {
  return os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ')
}

export type Answer = { status: number; headers: Headers; text: string; bytes: Uint8Array; ms: number }

/**
 * One request, bounded: it answers within `timeoutMs` or throws ('timeout'); a refused or cut connection
 * throws too. Redirects are not followed.
 */
export async function request(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Answer> {
  const started = performance.now()
  const response = await fetch(url, {
    redirect: 'manual',
    ...init,
    signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
  })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const text = new TextDecoder().decode(bytes)
  return { status: response.status, headers: response.headers, text, bytes, ms: performance.now() - started }
}

export function isTimeout(error: unknown) {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
}

export type Book = { id: string; slug: string }

/**
 * The store's data before it starts: migrated, the catalogue seeded, and `readers` registered readers signed
 * in (their session cookies), made through the store's own code; the books to buy.
 */
export async function prepareStoreData(
  kind: DbKind,
  where: { dataDir: string; url?: string },
  readers: number,
): Promise<{ buyers: BuyerRecord[]; books: Book[] }> {
  const database = await openDrillDatabase(kind, where)
  try {
    await database.migrate()
    await seedCatalog(database.db)
    const books = (await listBooks(database.db)).map((book) => ({ id: book.id, slug: book.slug }))
    const buyers: BuyerRecord[] = []
    for (let index = 0; index < readers; index++) {
      const email = `drill-buyer-${index}-${crypto.randomUUID().slice(0, 8)}@example.com`
      const reader = await createReader(database.db, { email })
      buyers.push({
        userId: reader.userId,
        cookie: reader.cookie,
        redirected: new Set(),
        confirmed: new Set(),
        downloaded: new Set(),
      })
    }
    return { buyers, books }
  } finally {
    await database.close()
  }
}

/**
 * A drill's store before it starts (`prepareStoreData`): a data folder and, on PostgreSQL, a throwaway server
 * and database, all removed on exit. `where` opens its database, `env` starts the store on it (accepting the
 * buyers' cookies); `postgres` is the server, for a drill that stops it.
 */
export async function prepareDrillStore(name: string, kind: DbKind, readers: number) {
  const dataDir = path.join(tempDir(name), 'data')
  let postgres: PostgresServer | undefined
  let url: string | undefined
  if (kind === 'postgres') {
    const server = await startPostgres()
    onExit(() => server.destroy())
    postgres = server
    url = server.createDatabase(`drill_${name.replaceAll('-', '_')}`)
  }
  const where = { dataDir, url }
  const { buyers, books } = await prepareStoreData(kind, where, readers)
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    ...(url ? { DATABASE_URL: url } : {}),
    BETTER_AUTH_SECRET: FACTORY_AUTH_SECRET,
  }
  return { where, env, buyers, books, postgres }
}

/** What a buyer saw: orders whose checkout answered with a redirect to them, and those whose page loaded. */
export type BuyerRecord = {
  userId: string
  cookie: string
  /** Order ids the checkout post redirected to (303). */
  redirected: Set<string>
  /** Order ids whose confirmation page answered 200. */
  confirmed: Set<string>
  /** The files whose download answered 200, as `<slug>.<pdf|epub>`. */
  downloaded: Set<string>
}

export type LoadFigures = {
  checkoutsAttempted: number
  checkoutPostsRetried: number
  downloads: number
  pageViews: number
  /** Requests that failed (refused, cut, timed out, or a 5xx) and were tried again. */
  failedRequests: number
  statuses: Map<number, number>
}

export function newFigures(): LoadFigures {
  return {
    checkoutsAttempted: 0,
    checkoutPostsRetried: 0,
    downloads: 0,
    pageViews: 0,
    failedRequests: 0,
    statuses: new Map(),
  }
}

type BuyerOptions = {
  baseUrl: () => string
  books: Book[]
  figures: LoadFigures
  /** Resolves when the store may be asked again (after a kill: when it is ready). */
  whenUp: () => Promise<unknown>
  until: () => boolean
  /** Called with every answer (the PostgreSQL drill checks none is a 500 and all are quick). */
  observe?: (what: string, answer: Answer | Error) => void
  /** Called as each request is sent (the kill drill kills some while a checkout is being paid). */
  sending?: (what: string) => void
  timeoutMs?: number
}

/**
 * One buyer's load: for each book they do not own yet, add it to the cart, open the checkout, pay with the
 * test card, open the confirmation page and download the book. A step whose request fails is tried again
 * once the store is up; a checkout post is retried with the same form (the same idempotency key and attempt
 * id), as a browser resubmitting it would.
 */
export async function runBuyer(buyer: BuyerRecord, options: BuyerOptions) {
  const { figures } = options
  const step = async (what: string, url: () => string, init: RequestInit = {}): Promise<Answer> => {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        if (what === 'checkout post') figures.checkoutPostsRetried++
        await options.whenUp()
        await sleep(50 + Math.random() * 200)
      }
      try {
        options.sending?.(what)
        const answer = await request(url(), {
          ...init,
          headers: { Cookie: buyer.cookie, ...(init.headers ?? {}) },
          timeoutMs: options.timeoutMs,
        })
        options.observe?.(what, answer)
        figures.statuses.set(answer.status, (figures.statuses.get(answer.status) ?? 0) + 1)
        if (answer.status < 500) return answer
      } catch (error) {
        options.observe?.(what, error as Error)
      }
      figures.failedRequests++
      if (attempt > 200) throw new Error(`${what}: no answer after ${attempt} tries`)
    }
  }
  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })
  const base = options.baseUrl
  for (const book of options.books) {
    if (options.until()) return
    const added = await step(
      'add to cart',
      () => `${base()}/cart`,
      form({ intent: 'add', bookId: book.id, redirectTo: '/' }),
    )
    // 400: already owned (an earlier checkout went through although its answer was lost to a kill).
    if (added.status !== 303) continue
    const page = await step('checkout page', () => `${base()}/checkout`)
    const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(page.text)?.[1]
    const attemptId = /name="attemptId" value="([^"]+)"/.exec(page.text)?.[1]
    // The country the page was priced for (features/tax): posted as the billing country, confirmed, as a buyer
    // who keeps the one shown does (the drill's requests come from 127.0.0.1, a country no IP lookup knows).
    const country = /name="pricedCountry" value="([A-Z]{2})"/.exec(page.text)?.[1]
    if (page.status !== 200 || !idempotencyKey || !attemptId || !country) continue
    figures.checkoutsAttempted++
    const paid = await step(
      'checkout post',
      () => `${base()}/checkout`,
      form({
        idempotencyKey: decodeEntities(idempotencyKey),
        attemptId,
        billingCountry: country,
        pricedCountry: country,
        confirmCountry: 'yes',
        name: 'Ada Reader',
        number: '4242 4242 4242 4242',
        expiry: '12/34',
        cvc: '123',
      }),
    )
    const orderId = /^\/orders\/([0-9a-f-]{36})$/.exec(paid.headers.get('location') ?? '')?.[1]
    if (paid.status !== 303 || !orderId) continue
    buyer.redirected.add(orderId)
    const confirmation = await step('confirmation page', () => `${base()}/orders/${orderId}`)
    if (confirmation.status === 200 && confirmation.text.includes('Order #')) buyer.confirmed.add(orderId)
    const format = Math.random() < 0.5 ? 'pdf' : 'epub'
    const download = await step('download', () => `${base()}/library/${book.slug}/download.${format}`)
    if (download.status === 200) {
      figures.downloads++
      buyer.downloaded.add(`${book.slug}.${format}`)
    }
  }
}

/** Page views of a signed-in reader (every one reads the session and the cart from the database). */
export async function runViewer(
  cookie: string,
  books: Book[],
  options: Omit<BuyerOptions, 'books'> & { pauseMs?: number },
) {
  const paths = [
    '/',
    '/AllBooks',
    '/cart',
    '/account/orders',
    '/search?q=react',
    ...books.map((b) => `/books/${b.slug}`),
  ]
  while (!options.until()) {
    const pagePath = paths[Math.floor(Math.random() * paths.length)]!
    try {
      const answer = await request(`${options.baseUrl()}${pagePath}`, {
        headers: { Cookie: cookie, Accept: 'text/html' },
        timeoutMs: options.timeoutMs,
      })
      options.observe?.('page view', answer)
      options.figures.pageViews++
      options.figures.statuses.set(answer.status, (options.figures.statuses.get(answer.status) ?? 0) + 1)
    } catch (error) {
      options.observe?.('page view', error as Error)
      options.figures.failedRequests++
      await options.whenUp()
    }
    await sleep(options.pauseMs ?? 20)
  }
}

function decodeEntities(value: string) {
  return value
    .replaceAll('&quot;', '"')
    .replaceAll('&#x27;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
}

export function openDrillDatabase(kind: DbKind, where: { dataDir: string; url?: string }) {
  return kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: where.url!, poolSize: 2 })
    : openDatabase({ kind: 'pglite', dataDir: path.join(where.dataDir, 'db') })
}

async function rows<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows
}

export type OrderCheck = {
  redirected: number
  confirmed: number
  found: number
  /** Paid orders no buyer was shown (committed, then the answer was lost to a kill): not a loss. */
  paidUnseen: number
  problems: string[]
}

/**
 * Every order a buyer was redirected to is in the database, paid exactly once (one paid order per cart key,
 * a payment reference, paid_at), with one library row per line pointing at it; no book is paid twice by one
 * reader; no library row lacks its paid order.
 */
export async function checkOrders(database: DatabaseHandle, buyers: BuyerRecord[]): Promise<OrderCheck> {
  const { db } = database
  const problems: string[] = []
  const userIds = buyers.map((buyer) => buyer.userId)
  const orders = await rows<{
    id: string
    user_id: string
    status: string
    payment_reference: string | null
    paid_at: unknown
    lines: number
    owned: number
  }>(
    db,
    sql`select o.id, o.user_id, o.status, o.payment_reference, o.paid_at,
          (select count(*)::int from order_items i where i.order_id = o.id) as lines,
          (select count(*)::int from order_items i join library_items l
             on l.book_id = i.book_id and l.user_id = o.user_id and l.order_id = o.id
           where i.order_id = o.id) as owned
        from orders o where o.user_id in (${sql.join(
          userIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  )
  const byId = new Map(orders.map((order) => [order.id, order]))
  let redirected = 0
  let confirmed = 0
  let found = 0
  const seen = new Set<string>()
  for (const buyer of buyers) {
    redirected += buyer.redirected.size
    confirmed += buyer.confirmed.size
    for (const orderId of buyer.redirected) {
      seen.add(orderId)
      const order = byId.get(orderId)
      if (!order) {
        problems.push(`order ${orderId} was shown to its buyer but is not in the database`)
        continue
      }
      found++
      if (order.user_id !== buyer.userId) problems.push(`order ${orderId} belongs to another user`)
      if (order.status !== 'paid' || !order.payment_reference || !order.paid_at)
        problems.push(`order ${orderId} is ${order.status}, reference ${order.payment_reference}`)
      if (order.lines === 0 || order.owned !== order.lines)
        problems.push(`order ${orderId}: ${order.lines} lines but ${order.owned} library rows`)
    }
  }
  const paidUnseen = orders.filter((order) => order.status === 'paid' && !seen.has(order.id))
  for (const order of paidUnseen)
    if (order.owned !== order.lines) problems.push(`unseen paid order ${order.id} lacks library rows`)
  const duplicates = await rows<{ what: string; n: number }>(
    db,
    sql`select 'paid orders sharing a cart key' as what, count(*)::int as n from (
          select user_id, idempotency_key from orders where status = 'paid'
          group by 1, 2 having count(*) > 1) d
        union all
        select 'books paid twice by one reader', count(*)::int from (
          select o.user_id, i.book_id from orders o join order_items i on i.order_id = o.id
          where o.status = 'paid' group by 1, 2 having count(*) > 1) d
        union all
        select 'payment references used twice', count(*)::int from (
          select payment_provider, payment_reference from orders where payment_reference is not null
          group by 1, 2 having count(*) > 1) d
        union all
        select 'library rows without their paid order', count(*)::int from library_items l
          left join orders o on o.id = l.order_id and o.status = 'paid' where o.id is null
        union all
        select 'library rows twice', count(*)::int from (
          select user_id, book_id from library_items group by 1, 2 having count(*) > 1) d`,
  )
  for (const { what, n } of duplicates) if (n > 0) problems.push(`${n} × ${what}`)
  return { redirected, confirmed, found, paidUnseen: paidUnseen.length, problems }
}

export function percentile(values: number[], p: number) {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

const INDEXES = `select c.oid::int as oid, c.relname as name
    from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
   where am.amname = 'btree' and c.relnamespace = 'public'::regnamespace`
const TABLES = `select c.oid::int as oid, c.relname as name from pg_class c
   where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace`

export type IntegrityReport = { indexes: number; tables: number; problems: string[] }

/**
 * What amcheck finds wrong: every B-tree index of the store checked against its table (bt_index_check with
 * heapallindexed raises an error on a fault), every table's pages (verify_heapam lists its faults).
 */
async function amcheck(query: <T>(text: string) => Promise<T[]>): Promise<IntegrityReport> {
  await query('create extension if not exists amcheck')
  const problems: string[] = []
  const indexes = await query<{ oid: number; name: string }>(INDEXES)
  for (const index of indexes) {
    await query(`select bt_index_check(${Number(index.oid)}, true)`).catch((error: unknown) =>
      problems.push(`index ${index.name}: ${String(error)}`),
    )
  }
  const tables = await query<{ oid: number; name: string }>(TABLES)
  for (const table of tables) {
    const faults = await query<{ msg: string }>(`select msg from verify_heapam(${Number(table.oid)})`)
    for (const fault of faults) problems.push(`table ${table.name}: ${fault.msg}`)
  }
  return { indexes: indexes.length, tables: tables.length, problems }
}

/** Opens a PGlite data folder (as the store would after a crash) and checks it with amcheck. */
export async function checkPgliteFolder(dbDir: string): Promise<IntegrityReport> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm')
  const { amcheck: extension } = await import('@electric-sql/pglite/contrib/amcheck')
  const client = await PGlite.create(dbDir, { extensions: { pg_trgm, amcheck: extension } })
  try {
    return await amcheck(async <T>(text: string) => (await client.query<T>(text)).rows)
  } finally {
    await client.close()
  }
}

/** The same check on a PostgreSQL database. */
export async function checkPostgresDatabase(url: string): Promise<IntegrityReport> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await amcheck(async <T>(text: string) => (await client.query(text)).rows as T[])
  } finally {
    await client.end()
  }
}
