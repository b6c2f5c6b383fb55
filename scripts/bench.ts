/**
 * `npm run bench`: throughput and latency of the production build on the embedded database, with autocannon
 * (20 connections, 10 s per scenario, after a 2 s warm-up). Prints numbers; asserts nothing.
 * Targets (issue 3, this 2-core machine): first-time `/` ≥ 1,000 req/s, `/` with a cart ≥ 400 req/s, p99 ≤ 100 ms.
 * Issue 14: a book page with 10,000 reviews renders as fast as with none (± 10 %): the same book's page on a
 * store with no reviews, then at once on a second store whose data folder was given 10,000 reviews of it.
 * Issue 16: `-- --db postgres` runs the standard cases on PostgreSQL; `-- --instances 1,2` behind nginx, with
 * `--cpu-share 0.5` each instance held to half a core (its fair share of two cores beside nginx, PostgreSQL and
 * the load generator).
 * Issue 35: `-- --cache-hit` only compares the cached `/` with bare `node:http` sending the same bytes
 * (scripts/bench-cache-hit.ts); the full run measures that comparison too, beside the first-time visitor.
 * Issue 30: `-- --checkout` compares the checkout page without and with a coupon (scripts/bench-checkout.ts).
 * Issue 32: `-- --storage` compares downloads from the folder and from an S3 bucket (scripts/bench-storage.ts);
 * `-- --delivery` a buyer's download streamed from the folder, streamed from S3, and redirected to S3
 * (scripts/bench-delivery.ts).
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { sql } from 'drizzle-orm'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { spawnStore, tempDataDir, waitUntilReady } from '#harness/store-process.ts'
import { compareCacheHitWithBareHttp, printCacheHitComparison } from './bench-cache-hit.ts'
import { cpuMs } from './process-cpu.ts'
import { parseCommandLine } from './drills/options.ts'

const options = parseCommandLine({
  usage: 'npm run bench --',
  summary: 'Throughput and latency of the production build with autocannon; prints numbers, asserts nothing.',
  options: {
    db: {
      type: 'string',
      value: 'pglite|postgres',
      choices: ['pglite', 'postgres'],
      help: 'postgres: the standard cases on a throwaway PostgreSQL server (default: the embedded database)',
    },
    instances: {
      type: 'string',
      value: 'N,M',
      help: 'on PostgreSQL behind nginx with each count of instances (1 to 8), e.g. 1,2, with their ratio',
    },
    'cpu-share': {
      type: 'number',
      value: 'S',
      help: 'with --instances: the share of one core each instance gets, e.g. 0.5',
    },
    build: { type: 'boolean', help: 'build the store first even when build/ exists' },
    reviews: { type: 'boolean', help: 'only the book page with 0, 10 and 10,000 reviews' },
    personal: { type: 'boolean', help: 'only the signed-in and guest-with-cart cases' },
    checkout: {
      type: 'boolean',
      help: 'only the checkout page without and with a coupon on the cart, in turns, with their ratio',
    },
    storage: {
      type: 'boolean',
      help: "only the owner's EPUB from a store on its folder and one on an S3 bucket (s3rver), in turns",
    },
    delivery: {
      type: 'boolean',
      help: "only a buyer's stamped PDF from a store on its folder, on S3 streamed and on S3 by redirect, in turns",
    },
    'cache-hit': {
      type: 'boolean',
      help: 'only the cached / against bare node:http sending the same bytes, in turns, with their ratio',
    },
  },
})

/**
 * `-- --db postgres`: these cases on a throwaway PostgreSQL server; `-- --instances 1,2`: on PostgreSQL
 * behind nginx for 1 then 2 instances, with their ratio (scripts/bench-postgres.ts, docs/decisions/022).
 */
const instances = options.instances?.split(',').map(Number)
if (instances?.some((count) => !Number.isInteger(count) || count < 1 || count > 8)) {
  console.error('--instances: a comma-separated list of instance counts from 1 to 8, e.g. 1,2')
  process.exit(2)
}
const cpuShare = options['cpu-share']
if (cpuShare !== undefined && (!instances || !(cpuShare > 0 && cpuShare <= 1))) {
  console.error('--cpu-share: with --instances, the share of one core each instance gets, e.g. 0.5')
  process.exit(2)
}

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
if (!fs.existsSync('build/server/index.js') || options.build) {
  const build = spawnSync('npx', ['react-router', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

if (instances || options.db === 'postgres') {
  const { benchOnPostgres } = await import('./bench-postgres.ts')
  await benchOnPostgres({ instances, seconds, cpuShare })
  process.exit(0)
}

/** The secret the test factories sign sessions with: the store must share it to accept the buyer's cookie. */
const FACTORY_AUTH_SECRET = 'test-secret-that-is-long-enough-0123456789'

/** A new store data folder with the embedded database migrated and the catalogue seeded, left open. */
async function seededDataDir() {
  const dataDir = tempDataDir()
  const dbDir = path.join(dataDir, 'db')
  fs.mkdirSync(dbDir, { recursive: true })
  const database = await openDatabase({ kind: 'pglite', dataDir: dbDir })
  await database.migrate()
  await seedCatalog(database.db)
  return { dataDir, database }
}

/**
 * A data folder whose catalogue is seeded and holds a reader who bought two books (through the store's own
 * order code, as tests do): their session cookie, and a book they do not own, for its page.
 */
async function prepareBuyerDataDir(): Promise<{ dataDir: string; cookie: string; bookSlug: string }> {
  const { dataDir, database } = await seededDataDir()
  try {
    const catalogue = await listBooks(database.db)
    const buyer = await createBuyer(
      database.db,
      catalogue.slice(0, 2).map((book) => book.id),
      { email: 'bench.buyer@example.com' },
    )
    return { dataDir, cookie: buyer.cookie, bookSlug: catalogue[2]!.slug }
  } finally {
    await database.close()
  }
}

/** What a browser's first visit sends that the store reads (the page cache's key, the compression). */
const browserHeaders = { 'Accept-Encoding': 'gzip, deflate, br', Accept: 'text/html' }

if (options.checkout) {
  const { benchCheckout } = await import('./bench-checkout.ts')
  await benchCheckout({ seededDataDir, authSecret: FACTORY_AUTH_SECRET, seconds })
  process.exit(0)
}

if (options.storage) {
  const { benchStorage } = await import('./bench-storage.ts')
  await benchStorage({ seededDataDir, authSecret: FACTORY_AUTH_SECRET, seconds })
  process.exit(0)
}

if (options.delivery) {
  const { benchDelivery } = await import('./bench-delivery.ts')
  await benchDelivery({ seededDataDir, authSecret: FACTORY_AUTH_SECRET, seconds })
  process.exit(0)
}

if (options['cache-hit']) {
  const { dataDir, database } = await seededDataDir()
  await database.close()
  const store = await spawnStore({ LOG_LEVEL: 'info', DATA_DIR: dataDir }, { discardOutput: true })
  try {
    await waitUntilReady(store)
    printCacheHitComparison(await compareCacheHitWithBareHttp(store, { seconds, headers: browserHeaders }))
  } finally {
    await store.stop()
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
  process.exit(0)
}

const buyer = await prepareBuyerDataDir()
const store = await spawnStore(
  { LOG_LEVEL: 'info', DATA_DIR: buyer.dataDir, BETTER_AUTH_SECRET: FACTORY_AUTH_SECRET },
  { discardOutput: true },
)
await waitUntilReady(store)

/** A visitor with three books in the cart, made through the store's own form posts. */
async function cartCookie(): Promise<string> {
  const page = await (await fetch(`${store.url}/AllBooks`)).text()
  const ids = [
    ...new Set([...page.matchAll(/name="bookId" value="([0-9a-f-]{36})"/g)].map((match) => match[1]!)),
  ]
  let cookie = ''
  for (const bookId of ids.slice(0, 3)) {
    const response = await fetch(`${store.url}/cart`, {
      method: 'POST',
      body: new URLSearchParams({ intent: 'add', bookId, redirectTo: '/' }),
      headers: cookie ? { Cookie: cookie } : {},
      redirect: 'manual',
    })
    cookie = response.headers.get('set-cookie')?.split(';')[0] ?? cookie
  }
  const home = await (await fetch(`${store.url}/`, { headers: { Cookie: cookie } })).text()
  if (!home.includes('Cart, 3 books')) throw new Error('could not fill a cart for the benchmark')
  return cookie
}

const cart = await cartCookie()
const signedIn = { ...browserHeaders, Cookie: buyer.cookie }
// An unknown cookie keeps every request out of the page cache: the cost of rendering for one visitor.
const guestWithCart = { ...browserHeaders, Cookie: `${cart}; bench_bypass=1` }
const scenarios = [
  { name: '/ first-time visitor', path: '/', headers: browserHeaders },
  { name: '/ with a cart of 3 books', path: '/', headers: { ...browserHeaders, Cookie: cart } },
  { name: '/AllBooks', path: '/AllBooks', headers: browserHeaders },
  { name: '/search?q=react', path: '/search?q=react', headers: browserHeaders },
]
/**
 * Issue 17: pages rendered for one visitor on every request. Signed in: a reader who bought two books (the
 * session is checked on every request). The baseline is the same case measured on the code before issue 17
 * (docs/measurements/021-signed-in-speed.md), in the same session, on this 2-core machine shared with other
 * work (load average about 3.4 then): noisy. `-- --personal` runs these cases alone.
 */
const personalScenarios = [
  { name: 'signed in: /', path: '/', headers: signedIn, baseline: { rps: 93, p99: 948 } },
  {
    name: 'signed in: /books/:slug',
    path: `/books/${buyer.bookSlug}`,
    headers: signedIn,
    baseline: { rps: 120, p99: 429 },
  },
  {
    name: 'signed in: /account/library',
    path: '/account/library',
    headers: signedIn,
    baseline: { rps: 130, p99: 295 },
  },
  { name: 'signed in: /cart', path: '/cart', headers: signedIn, baseline: { rps: 161, p99: 217 } },
  { name: 'guest with a cart: /', path: '/', headers: guestWithCart, baseline: { rps: 314, p99: 276 } },
  {
    name: 'guest with a cart: /cart',
    path: '/cart',
    headers: guestWithCart,
    baseline: { rps: 263, p99: 325 },
  },
]

type Scenario = { name: string; path: string; headers: Record<string, string> }
const rows: Record<string, string | number>[] = []

async function measure(baseUrl: string, scenario: Scenario, pid?: number) {
  const run = (duration: number) =>
    autocannon({ url: `${baseUrl}${scenario.path}`, connections: 20, duration, headers: scenario.headers })
  await run(2)
  const cpuBefore = cpuMs(pid)
  const result = await run(seconds)
  const cpuAfter = cpuMs(pid)
  const row = {
    scenario: scenario.name,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'CPU ms/req':
      cpuBefore === undefined || cpuAfter === undefined
        ? '–'
        : ((cpuAfter - cpuBefore) / result.requests.total).toFixed(2),
    'non-2xx': result.non2xx,
    errors: result.errors + result.timeouts,
  }
  rows.push(row)
  return row
}

const REVIEWS = 10_000
const seedBook = seedBooks[0]!.slug
const twinBook = `${seedBook}-reviewed`
const onePageBook = `${seedBook}-one-page`
const unreviewedBook = `${seedBook}-unreviewed`
// Rendered for every request (the unknown cookie keeps it out of the host's page cache): the page's own cost.
const bookPage = (slug: string, reviews: string): Scenario => ({
  name: `/books/:slug with ${reviews} reviews, rendered every time`,
  path: `/books/${slug}`,
  headers: { ...browserHeaders, Cookie: 'bench_bypass=1' },
})
// As an anonymous visitor gets it: from the host's page cache (10 s).
const cachedBookPage = (slug: string, reviews: string): Scenario => ({
  name: `/books/:slug with ${reviews} reviews, page cache`,
  path: `/books/${slug}`,
  headers: browserHeaders,
})

/**
 * A data folder with three twins of the first seed book (the same row under other slugs, without the seed
 * book's files): one with REVIEWS reviews by as many readers, one with exactly one page of them (10), one with
 * none; the trigger keeps their totals. The pages differ only by their reviews, and are measured on the same
 * store process. (The seed book itself is no baseline: its PDF, EPUB and sample make a different page.)
 */
async function prepareReviewedDataDir(): Promise<string> {
  const { dataDir, database } = await seededDataDir()
  try {
    for (const slug of [twinBook, onePageBook, unreviewedBook])
      await database.db.execute(sql`
        insert into books (slug, title, author, description, price_cents, currency, cover_path, cover_alt, rating,
          best_seller, available, file_size_bytes, topics, level)
        select ${slug}, title, author, description, price_cents, currency, cover_path, cover_alt, rating,
          best_seller, available, file_size_bytes, topics, level
        from books where slug = ${seedBook}`)
    await database.db.execute(sql`
      insert into "user" (id, name, email)
      select 'bench-reviewer-' || i, 'Reader ' || i, 'bench-reviewer-' || i || '@example.com'
      from generate_series(1, ${REVIEWS}) as i`)
    await database.db.execute(sql`
      insert into reviews (book_id, user_id, rating, title, body, helpful_count, created_at)
      select b.id, 'bench-reviewer-' || i, 1 + (i * 7) % 5, 'Review number ' || i,
        repeat('A paragraph of a generated review. ', 12) || chr(10) || chr(10) || 'And a second one.',
        (i * 31) % 50, now() - (i || ' minutes')::interval
      from generate_series(1, ${REVIEWS}) as i, books b where b.slug = ${twinBook}`)
    await database.db.execute(sql`
      insert into reviews (book_id, user_id, rating, title, body, helpful_count, created_at)
      select b.id, r.user_id, r.rating, r.title, r.body, r.helpful_count, r.created_at
      from reviews r, books b where b.slug = ${onePageBook}
        and r.book_id = (select id from books where slug = ${twinBook})
      order by r.created_at desc limit 10`)
    await database.db.execute(sql`analyze`)
  } finally {
    await database.close()
  }
  return dataDir
}

const onlyReviews = options.reviews === true
const onlyPersonal = options.personal === true
const personalRows: Record<string, string | number>[] = []
const reviewedDataDir = onlyPersonal ? undefined : await prepareReviewedDataDir()
const ratios: Record<string, string | number>[] = []
let cacheHitRounds: Awaited<ReturnType<typeof compareCacheHitWithBareHttp>> | undefined
try {
  if (!onlyReviews && !onlyPersonal) {
    for (const scenario of scenarios) await measure(store.url, scenario, store.child.pid)
    cacheHitRounds = await compareCacheHitWithBareHttp(store, { seconds, headers: browserHeaders, rounds: 1 })
  }
  if (!onlyReviews)
    for (const scenario of personalScenarios) {
      const row = await measure(store.url, scenario, store.child.pid)
      const { rps, p99 } = scenario.baseline
      personalRows.push({
        scenario: scenario.name,
        'req/s': row['req/s']!,
        'p50 ms': row['p50 ms']!,
        'p99 ms': row['p99 ms']!,
        'baseline req/s': rps,
        'baseline p99 ms': p99,
        '× req/s': rps ? (Number(row['req/s']) / rps).toFixed(2) : '–',
      })
    }
  await store.stop()
  if (reviewedDataDir) await measureReviewedBooks(reviewedDataDir)
} finally {
  await store.stop()
  for (const dataDir of [buyer.dataDir, reviewedDataDir])
    if (dataDir) fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
}

async function measureReviewedBooks(reviewedDataDir: string) {
  // Without the render memo (docs/decisions/021): each of these pages is rendered by React on every request,
  // the review list included, so the comparison is of the pages' own cost, not of a remembered copy.
  const reviewed = await spawnStore(
    { LOG_LEVEL: 'info', DATA_DIR: reviewedDataDir, RENDER_MEMO_ENTRIES: '0' },
    { discardOutput: true },
  )
  try {
    await waitUntilReady(reviewed)
    const page = await (await fetch(`${reviewed.url}/books/${twinBook}`)).text()
    if (!page.includes(`${REVIEWS.toLocaleString('en-US')} ratings`))
      throw new Error('the reviewed book page does not show its 10,000 ratings')
    // Back to back, three times in turn, so that the shared machine's load falls on all alike. The CPU ratio
    // (the store's CPU time per page) is the steadier figure when other work shares the machine.
    const many = REVIEWS.toLocaleString('en-US')
    const pid = reviewed.child.pid
    for (let round = 0; round < 3; round++) {
      const none = await measure(reviewed.url, bookPage(unreviewedBook, '0'), pid)
      const onePage = await measure(reviewed.url, bookPage(onePageBook, '10'), pid)
      const all = await measure(reviewed.url, bookPage(twinBook, many), pid)
      ratios.push({
        round: round + 1,
        [`req/s ${many} ÷ 0`]: (Number(all['req/s']) / Number(none['req/s'])).toFixed(3),
        [`req/s ${many} ÷ 10`]: (Number(all['req/s']) / Number(onePage['req/s'])).toFixed(3),
        [`CPU/req 0 ÷ ${many}`]: (Number(none['CPU ms/req']) / Number(all['CPU ms/req'])).toFixed(3),
      })
    }
    await measure(reviewed.url, cachedBookPage(unreviewedBook, '0'))
    await measure(reviewed.url, cachedBookPage(twinBook, many))
  } finally {
    await reviewed.stop()
  }
}

console.log(
  `load average while measuring: ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
)
console.table(rows)
if (personalRows.length > 0) {
  console.log('pages rendered for one visitor (issue 17), against the baseline before it:')
  console.table(personalRows)
}
if (ratios.length > 0) {
  console.log('book page req/s ratios (rendered every time):')
  console.table(ratios)
}
if (cacheHitRounds) printCacheHitComparison(cacheHitRounds)
