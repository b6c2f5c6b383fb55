/**
 * `npm run drill:soak [-- --minutes 10 --quick --db postgres --samples FILE]`: does the store hold up over
 * time? A realistic mix (anonymous pages, a signed-in customer's pages, cart add and remove, search, now and then a guest's
 * checkout) is first run flat out for a short while to find the peak throughput, then at half of that rate
 * (requests started on a clock, whatever the answers' speed) for 10 minutes (`--quick`: 60 s), while the store
 * process's RSS is sampled from /proc every second. Then the control: the same build started fresh on a copy of
 * the data the soak began with, warmed up for a period, and the two stores loaded in turns at the same rate
 * (`control`). Passes when the RSS the store comes back to (each third's lowest reading) grows by at most 10 %
 * from the first third of the periods after the warm-up to the last, the soaked store's p99 is at most 20 % over
 * the fresh one's (`driftAgainstFresh`, latency.ts: measured in the same minutes, the machine's own drift cancels
 * out), and no request failed or answered 5xx. The p99's drift over the run (first third against last, the
 * machine's drift in it) is printed beside them. Per period: where the time went (the store's and this process's
 * event-loop delays, the store's garbage collections, its CPU per request, PostgreSQL's CPU and work per request).
 * Per kind of request: the thirds' p50 and p99, and which kinds make up each third's slowest 1 %. Periods are
 * minutes (`--quick`: tenths of the run). `--samples FILE` writes every measured request (start, duration, kind)
 * of both stores, and the control's turns, as JSON.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import zlib from 'node:zlib'
import pg from 'pg'
import { Pool, type Dispatcher } from 'undici'
import { cookieHeader } from '#harness/cookie-jar.ts'
import {
  cleanUp,
  ensureBuild,
  freePort,
  METRICS_TOKEN,
  prepareStoreData,
  cpuMs,
  machineCpuMs,
  postgresCpuMs,
  postgresCpuSince,
  rssKb,
  startStore,
  type Prepared,
} from './harness.ts'
import { abba, driftAgainstFresh, steadyMachine, typicalP99, type Side } from './latency.ts'
import { startMachineMeter } from './machine-speed.ts'
import { percentile } from './lib.ts'
import { parseDrillOptions } from './options.ts'

const options = parseDrillOptions({
  name: 'soak',
  summary:
    'A realistic mix at half the peak rate for 10 minutes, then a fresh store against the soaked one: RSS growth ≤ 10 %, p99 ≤ 20 % over the fresh store’s, no request failed or answered 5xx.',
  options: {
    minutes: { type: 'number', value: 'M', help: 'how long the soak runs (default 10; --quick: 1)' },
    'peak-seconds': {
      type: 'number',
      value: 'S',
      help: 'how long the peak throughput is looked for (default 20; --quick: 8)',
    },
    samples: { type: 'string', value: 'FILE', help: 'write every measured request of both stores as JSON' },
  },
})
const { quick, db: kind } = options
const minutes = options.minutes ?? (quick ? 1 : 10)
const peakSeconds = options['peak-seconds'] ?? (quick ? 8 : 20)
const concurrency = 16
const RSS_LIMIT = 0.1
const P99_DRIFT_LIMIT = 0.2
/** A window in which this process's CPU per request was over this × its median, or under it ÷ this, is not judged. */
const MACHINE_SLOW_LIMIT = 1.15
/**
 * The control's turns: how many, how long each, and how long each runs before its requests are measured. How
 * many: the same store against itself (a soak's own minutes after the warm-up cut into turns as the control's,
 * at every 3 s offset; one PostgreSQL and one PGlite run) read −20 to +24 % with 16 turns of 18 s (8–10 % root
 * mean square), −13 to +15 % with 24 (3.5–6.2 %).
 */
const CONTROL_SLOTS = quick ? 8 : 24
const CONTROL_SLOT_MS = quick ? 3_000 : 18_000
/**
 * A store that sat idle through the other's two turns answers the first second or two of its own slowly, fresh
 * or soaked alike: in one PostgreSQL run, 150–200 requests of every kind over 100 ms in its turn's first second
 * (p99 400–900 ms), the second's p99 55–260 ms, from the third on 20–80 ms as in the middle of the turn. After
 * 20 s idle the first second's p99 was 30–35 ms, after 35 s 360–720 ms: the pool closes connections idle for 30 s
 * (a burst then opens them again), and V8 drops compiled code and shrinks the heap of a process that sits idle
 * (with the pool's connections kept, 200–300 ms; with `--no-flush-bytecode --no-memory-reducer` too, 40–120 ms).
 * A property of a store woken by a burst, the same for both stores, and not a drift: left out of both.
 */
const CONTROL_SETTLE_MS = quick ? 500 : 3_000

ensureBuild(options.build)
const prepared = await prepareStoreData(kind)
/**
 * The data the control's fresh store runs on after the soak: a copy of the store's as the soak begins (a copy,
 * as the soaked store will have changed its own). PostgreSQL copies a database only while nobody is connected
 * to it, hence before the store starts.
 */
function copyOf(prepared: Prepared): Prepared {
  const dataDir = path.join(path.dirname(prepared.dataDir), 'fresh')
  if (fs.existsSync(prepared.dataDir)) fs.cpSync(prepared.dataDir, dataDir, { recursive: true })
  const databaseUrl =
    prepared.databaseUrl &&
    prepared.postgres?.createDatabase('codebook_drill_fresh', {
      template: new URL(prepared.databaseUrl).pathname.slice(1),
    })
  return { ...prepared, dataDir, databaseUrl }
}
const freshData = copyOf(prepared)
const port = await freePort()
const store = await startStore(prepared, port)
const base = store.url
const { personas, bookIds, bookSlugs } = prepared

const failures: string[] = []
let errors = 0
let serverErrors = 0
type Sample = { at: number; ms: number; kind: string }

/**
 * The measured requests: when each started (ms since the run began), how long it took, its kind. Kept in typed
 * arrays, off this process's JavaScript heap: as ~200,000 objects they made the heap this process collects
 * grow through the run, and its collections' pauses, which lengthen the requests measured here, with it.
 */
class SampleLog {
  at = new Float64Array(1 << 16)
  ms = new Float64Array(1 << 16)
  kind = new Uint8Array(1 << 16)
  length = 0
  readonly #kinds: string[] = []
  readonly #kindIds = new Map<string, number>()

  push(at: number, ms: number, kind: string) {
    if (this.length === this.at.length) {
      const grow = <T extends Float64Array | Uint8Array>(from: T, to: T) => (to.set(from), to)
      this.at = grow(this.at, new Float64Array(this.length * 2))
      this.ms = grow(this.ms, new Float64Array(this.length * 2))
      this.kind = grow(this.kind, new Uint8Array(this.length * 2))
    }
    let id = this.#kindIds.get(kind)
    if (id === undefined) this.#kindIds.set(kind, (id = this.#kinds.push(kind) - 1))
    this.at[this.length] = at
    this.ms[this.length] = ms
    this.kind[this.length++] = id
  }

  /** The durations (ms) of the requests started in [from, to) ms, sorted. */
  durations(from = -Infinity, to = Infinity): number[] {
    const found: number[] = []
    for (let i = 0; i < this.length; i++) if (this.at[i]! >= from && this.at[i]! < to) found.push(this.ms[i]!)
    return found.sort((a, b) => a - b)
  }

  /** The requests started in [from, to) ms, as objects: for the report, once the run is over. */
  list(from: number, to: number): Sample[] {
    const found: Sample[] = []
    for (let i = 0; i < this.length; i++)
      if (this.at[i]! >= from && this.at[i]! < to)
        found.push({ at: this.at[i]!, ms: this.ms[i]!, kind: this.#kinds[this.kind[i]!]! })
    return found
  }
}
let measuring = false
/** Requests answered so far, measured or not: the machine meter's denominator. */
let answered = 0
let runStart = 0

/** An answer: its status, the headers the visit follows (cookies, redirect), its body decoded only when read. */
type Answer = { status: number; headers: Headers; text: () => string }
type Init = { method?: string; headers?: Record<string, string>; body?: URLSearchParams }

/** A request's kind for the per-kind latencies: method and route, and whether the customer sent it. */
function kindOf(path: string, init: Init): string {
  const route = path
    .replace(/\?.*$/, '')
    .replace(/^\/books\/[^/]+$/, '/books/:slug')
    .replace(/^\/orders\/[^/]+$/, '/orders/:id')
  const signedIn = init.headers?.Cookie === personas.customer.cookie
  return `${init.method ?? 'GET'} ${route}${signedIn ? ' (customer)' : ''}`
}

/**
 * A store the load goes to: the load generator's connections to it, its visitors, the requests measured on it.
 * The soak loads one store; its control (below) a fresh one beside it, in turns.
 */
type Target = {
  /**
   * Undici's own request API, not `fetch` over it: this process shares the machine's two cores with the store
   * and the database, and `fetch` (its streams, decompressing every body, its Headers objects) cost it 1.3 ms of
   * CPU a request, two thirds of what the store spent answering it. The store still compresses (the visits ask
   * for it); a body is decompressed only when the drill reads it.
   */
  connections: Pool
  /**
   * Visitors each holding a cart cookie, so adds and removes land on a few carts, as real visits do; a visitor
   * makes one change at a time (taken from the pool while it does).
   */
  visitors: { cookie: string }[]
  log: SampleLog
}

function targetAt(url: string, log = new SampleLog()): Target {
  return {
    connections: new Pool(url, { connections: 64 }),
    visitors: Array.from({ length: 40 }, () => ({ cookie: '' })),
    log,
  }
}
const soaked = targetAt(base)
/** The requests measured on the control's fresh store. */
const freshLog = new SampleLog()

async function request(to: Target, path: string, init: Init = {}, expect = 399): Promise<Answer | undefined> {
  const method = init.method ?? 'GET'
  const started = performance.now()
  try {
    const response = await to.connections.request({
      path,
      method: method as Dispatcher.HttpMethod,
      headers: init.body
        ? { ...init.headers, 'Content-Type': 'application/x-www-form-urlencoded;charset=UTF-8' }
        : init.headers,
      body: init.body?.toString(),
    })
    const chunks: Buffer[] = []
    for await (const chunk of response.body) chunks.push(chunk as Buffer)
    const ms = performance.now() - started
    answered++
    if (measuring) to.log.push(started - runStart, ms, kindOf(path, init))
    const encoding = response.headers['content-encoding']
    const text = () => {
      const body = Buffer.concat(chunks)
      if (encoding === 'br') return zlib.brotliDecompressSync(body).toString()
      if (encoding === 'gzip') return zlib.gunzipSync(body).toString()
      return body.toString()
    }
    // The headers a visit reads: its cookies and where a redirect goes.
    const headers = new Headers()
    const setCookie = response.headers['set-cookie']
    for (const cookie of setCookie === undefined ? [] : [setCookie].flat())
      headers.append('Set-Cookie', cookie)
    const location = response.headers.location
    if (typeof location === 'string') headers.set('Location', location)
    if (response.statusCode >= 500) {
      serverErrors++
      if (failures.length < 20) failures.push(`${method} ${path} → ${response.statusCode}`)
    } else if (response.statusCode > expect) {
      errors++
      if (failures.length < 20)
        failures.push(`${method} ${path} → ${response.statusCode}: ${text().slice(0, 200)}`)
    }
    return { status: response.statusCode, headers, text }
  } catch (error) {
    errors++
    if (failures.length < 20) failures.push(`${method} ${path} → ${String(error)}`)
    return undefined
  }
}

const html = { Accept: 'text/html', 'Accept-Encoding': 'gzip, br' }
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!
const searchTerms = ['react', 'typescript', 'node', 'css', 'testing', 'design', 'python', 'zzz-nothing']
let checkouts = 0

function cartPost(to: Target, cookie: string, intent: 'add' | 'remove', bookId: string) {
  return request(to, '/cart', {
    method: 'POST',
    body: new URLSearchParams({ intent, bookId, redirectTo: '/cart' }),
    headers: { ...html, ...(cookie ? { Cookie: cookie } : {}) },
  })
}

/** A new visitor fills a cart, registers (the store's own form) and pays with the test card. */
async function checkout(to: Target) {
  // Each checkout from its own address: registering is rate limited per address.
  const forwarded = { 'X-Forwarded-For': `10.${rand(256)}.${rand(256)}.${rand(256)}` }
  const added = await cartPost(to, '', 'add', pick(bookIds))
  if (!added) return
  let cookie = cookieHeader(added)
  const guest = await request(to, '/Register', {
    method: 'POST',
    body: new URLSearchParams({
      email: `soak.${crypto.randomUUID()}@example.com`,
      password: `soak passphrase ${crypto.randomUUID()}`,
      redirectTo: '/checkout',
    }),
    headers: { ...html, ...forwarded, Cookie: cookie },
  })
  if (!guest) return
  cookie = cookieHeader(guest, cookie)
  const page = await request(to, '/checkout', { headers: { ...html, Cookie: cookie } })
  const text = page?.text() ?? ''
  const field = (name: string) => text.match(new RegExp(`name="${name}" value="([^"]+)"`))?.[1]
  const idempotencyKey = field('idempotencyKey')
  if (!idempotencyKey) {
    errors++
    if (failures.length < 20) failures.push(`checkout page without a form (${page?.status})`)
    return
  }
  const paid = await request(to, '/checkout', {
    method: 'POST',
    body: new URLSearchParams({
      idempotencyKey,
      attemptId: field('attemptId') ?? '',
      // The country the page was priced for (features/tax), kept and confirmed as a buyer does who keeps it.
      billingCountry: field('pricedCountry') ?? '',
      pricedCountry: field('pricedCountry') ?? '',
      confirmCountry: 'yes',
      name: 'Soak Tester',
      number: '4242424242424242',
      expiry: '12/34',
      cvc: '123',
    }),
    headers: { ...html, ...forwarded, Cookie: cookie },
  })
  if (paid?.status === 303 && paid.headers.get('location')?.includes('/orders/')) checkouts++
  else {
    errors++
    if (failures.length < 20) failures.push(`checkout answered ${paid?.status}`)
  }
}

/**
 * From the store's own /metrics: its JavaScript heap in use, the heap V8 has reserved (what RSS holds of it)
 * and its memory outside the heap (buffers, WebAssembly: PGlite's whole database server), to tell a growing
 * cache from a growing database; its event loop's p99 delay since the last read (prom-client resets it on
 * each scrape, and only the soak scrapes) and its garbage collections' time so far: where a slow request's
 * time went when the database was not it.
 */
async function storeMetrics() {
  try {
    const text = await (
      await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text()
    const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1])
    const gcSeconds = [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{kind="(\w+)"\} (\S+)/gm)]
    const gcMs = (kinds: string[]) =>
      1000 *
      gcSeconds.filter(([, kind]) => kinds.includes(kind!)).reduce((sum, [, , s]) => sum + Number(s), 0)
    return {
      heapMb: read('nodejs_heap_size_used_bytes') / 1024 / 1024,
      committedMb: read('nodejs_heap_size_total_bytes') / 1024 / 1024,
      externalMb: read('nodejs_external_memory_bytes') / 1024 / 1024,
      lagP99Ms: read('nodejs_eventloop_lag_p99_seconds') * 1000,
      lagMaxMs: read('nodejs_eventloop_lag_max_seconds') * 1000,
      minorGcMs: gcMs(['minor']),
      majorGcMs: gcMs(['major', 'incremental', 'weakcb']),
    }
  } catch {
    return undefined
  }
}

/**
 * PostgreSQL's own count of the work it did for the store's database so far: buffers it read (from its cache or
 * the disk) and rows it returned or fetched. Unlike CPU time, these do not change with the machine's speed: per
 * request, they rise only when the store asks more of the database (a table grown without an index, bloat from
 * dead rows), so they tell a store that drifts from a machine that slowed.
 */
const statsClient = prepared.databaseUrl
  ? new pg.Client({ connectionString: prepared.databaseUrl })
  : undefined
// An idle connection's error (the server stopped at the end) is not the run's.
statsClient?.on('error', () => {})
await statsClient?.connect()
async function postgresWork() {
  if (!statsClient) return undefined
  try {
    // Each backend sends its counts at most once a second; a snapshot taken now misses less than that.
    const { rows } = await statsClient.query<{ buffers: string; rows: string; dead: string }>(
      `select blks_hit + blks_read as buffers, tup_returned + tup_fetched as rows,
              (select coalesce(sum(n_dead_tup), 0) from pg_stat_user_tables) as dead
         from pg_stat_database where datname = current_database()`,
    )
    const row = rows[0]!
    return { buffers: Number(row.buffers), rows: Number(row.rows), dead: Number(row.dead) }
  } catch {
    return undefined
  }
}

function fixed(value: number | undefined, digits = 1): string {
  return value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits)
}

function rand(n: number) {
  return Math.floor(Math.random() * n)
}

const signedIn = { ...html, Cookie: personas.customer.cookie }
/** The mix, by weight: each entry is one visit step (one request, two for a cart change, five for a checkout). */
const mix: [weight: number, requests: number, run: (to: Target) => Promise<unknown>][] = [
  [25, 1, (to) => request(to, '/', { headers: html })],
  [8, 1, (to) => request(to, '/AllBooks', { headers: html })],
  [14, 1, (to) => request(to, `/books/${pick(bookSlugs)}`, { headers: html })],
  [3, 1, (to) => request(to, '/topics', { headers: html })],
  [6, 1, (to) => request(to, '/', { headers: signedIn })],
  [5, 1, (to) => request(to, '/account/library', { headers: signedIn })],
  [4, 1, (to) => request(to, '/cart', { headers: signedIn })],
  [3, 1, (to) => request(to, `/orders/${personas.customer.orderId}`, { headers: signedIn })],
  [8, 1, (to) => request(to, `/search?q=${pick(searchTerms)}`, { headers: html })],
  [6, 1, (to) => request(to, `/search/suggest?q=${pick(searchTerms).slice(0, 3)}`)],
  [
    10,
    2,
    async (to) => {
      const visitor = to.visitors.pop() ?? { cookie: '' }
      const bookId = pick(bookIds)
      const added = await cartPost(to, visitor.cookie, 'add', bookId)
      if (added) visitor.cookie = cookieHeader(added, visitor.cookie)
      await cartPost(to, visitor.cookie, 'remove', bookId)
      to.visitors.push(visitor)
    },
  ],
  [0.5, 5, checkout],
]
const totalWeight = mix.reduce((sum, [weight]) => sum + weight, 0)
const requestsPerStep = mix.reduce((sum, [weight, requests]) => sum + weight * requests, 0) / totalWeight
function step(to: Target): Promise<unknown> {
  let roll = Math.random() * totalWeight
  for (const [weight, , run] of mix) if ((roll -= weight) < 0) return run(to)
  return mix[0]![2](to)
}

/** Steps started on a clock, `stepsPerSecond`, on `to` until `until` (`performance.now()`), and answered. */
async function loadAt(to: Target, stepsPerSecond: number, until: number) {
  const running = new Set<Promise<unknown>>()
  const from = performance.now()
  let started = 0
  while (performance.now() < until) {
    const due = Math.floor(((performance.now() - from) / 1000) * stepsPerSecond)
    for (; started < due; started++) {
      const visit = step(to).finally(() => running.delete(visit))
      running.add(visit)
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  await Promise.all(running)
}

type Slot = { side: Side; from: number; to: number; durations: number[] }

/**
 * The soak's control: the soaked store against the same build started fresh on a copy of the data the soak began
 * with, the two loaded in turns (abba, `CONTROL_SLOTS` slots of `CONTROL_SLOT_MS`) at the soak's rate, after the
 * fresh one has warmed up for `warmUpMs` as the soaked one did in the soak's first period (its JIT, its caches,
 * the database's). Both answer in the same minutes of the same machine: how much slower the soaked one is, is
 * what ten minutes did to the store (the data it added, what its process grew), whatever the machine did
 * meanwhile. A slot's requests are those its store was sent in it after its first `CONTROL_SETTLE_MS`; each
 * slot ends when they are answered.
 */
async function control(stepsPerSecond: number, warmUpMs: number): Promise<Slot[]> {
  const fresh = await startStore(freshData, await freePort())
  const freshTarget = targetAt(fresh.url, freshLog)
  try {
    await loadAt(freshTarget, stepsPerSecond, performance.now() + warmUpMs)
    const slots: Slot[] = []
    for (const side of abba(CONTROL_SLOTS)) {
      const to = side === 'soaked' ? soaked : freshTarget
      const from = performance.now() - runStart
      await loadAt(to, stepsPerSecond, runStart + from + CONTROL_SLOT_MS)
      const end = performance.now() - runStart
      slots.push({ side, from, to: end, durations: to.log.durations(from + CONTROL_SETTLE_MS, end) })
    }
    return slots
  } finally {
    await freshTarget.connections.destroy()
    await fresh.stop('SIGKILL')
  }
}

let exitCode = 1
try {
  // Peak: `concurrency` visitors in a closed loop, flat out, after a few seconds that warm the store up (its
  // JIT, the database's caches, the page cache).
  const flatOut = (until: number) =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) await step(soaked)
      }),
    )
  await flatOut(Date.now() + (quick ? 3_000 : 5_000))
  let peakRequests = 0
  const peakEnd = Date.now() + peakSeconds * 1000
  measuring = true
  runStart = performance.now()
  await flatOut(peakEnd)
  measuring = false
  peakRequests = soaked.log.length
  const peak = peakRequests / peakSeconds
  const peakSorted = soaked.log.durations()
  console.log(
    `peak: ${peak.toFixed(0)} req/s over ${peakSeconds} s with ${concurrency} concurrent visitors ` +
      `(p50 ${percentile(peakSorted, 50).toFixed(1)} ms, p99 ${percentile(peakSorted, 99).toFixed(1)} ms)`,
  )
  const peakFailures = errors + serverErrors
  soaked.log = new SampleLog()

  // The soak: steps started on a clock at half the peak's request rate.
  const stepsPerSecond = peak / 2 / requestsPerStep
  const durationMs = minutes * 60_000
  const periodMs = quick ? durationMs / 10 : 60_000
  const periods = Math.round(durationMs / periodMs)
  /** Per period, the RSS readings (kB), one a second. */
  const rss: number[][] = []
  console.log(
    `soak: ${(peak / 2).toFixed(0)} req/s (half of peak) for ${minutes} min, ${periods} periods of ${periodMs / 1000} s`,
  )
  const inFlight = new Set<Promise<unknown>>()
  measuring = true
  runStart = performance.now()
  let started = 0
  let cpuBefore = cpuMs(store.child.pid)
  let drillCpuBefore = process.cpuUsage()
  let machineBefore = machineCpuMs()
  let postgresCpuBefore = kind === 'postgres' ? postgresCpuMs() : new Map<string, number>()
  let metricsBefore = await storeMetrics()
  let postgresWorkBefore = await postgresWork()
  /** Per period, PostgreSQL's work (buffers, rows) and the requests it was for. */
  const postgresWorkOf: { buffers: number; rows: number; requests: number }[] = []
  // This process's own event loop: a request's time is measured here, so a stall here (its garbage
  // collector, a burst of answers) lengthens requests the store answered in time.
  const clientLag = monitorEventLoopDelay({ resolution: 5 })
  clientLag.enable()
  const machine = startMachineMeter(() => answered)
  const machineCostIn = (from: number, to: number) => machine.cpuPerRequest(runStart + from, runStart + to)
  const rows: Record<string, string | number>[] = []
  for (let period = 0; period < periods; period++) {
    const periodEnd = runStart + (period + 1) * periodMs
    // RSS sampled every second: one reading at a period's end says more about where the garbage collector
    // happened to be than about the memory the store keeps; the period's median does not.
    const rssSamples: number[] = []
    let nextRssSample = 0
    while (performance.now() < periodEnd) {
      if (performance.now() >= nextRssSample) {
        const kb = rssKb(store.child.pid)
        if (kb !== undefined) rssSamples.push(kb)
        nextRssSample = performance.now() + 1_000
      }
      const due = Math.floor(((performance.now() - runStart) / 1000) * stepsPerSecond)
      for (; started < due; started++) {
        const running = step(soaked).finally(() => inFlight.delete(running))
        inFlight.add(running)
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    rss.push(rssSamples.sort((a, b) => a - b))
    const metrics = await storeMetrics()
    const rssNowMb = (rssKb(store.child.pid) ?? NaN) / 1024
    const cpuNow = cpuMs(store.child.pid)
    const drillCpuNow = process.cpuUsage()
    const postgresCpuNow = kind === 'postgres' ? postgresCpuMs() : new Map<string, number>()
    const machineNow = machineCpuMs()
    const machineTotal = machineNow.total - machineBefore.total
    const storeCpu = cpuNow - cpuBefore
    const postgresCpu = kind === 'postgres' ? postgresCpuSince(postgresCpuBefore, postgresCpuNow) : 0
    const drillCpu =
      (drillCpuNow.user + drillCpuNow.system - drillCpuBefore.user - drillCpuBefore.system) / 1000
    const inPeriod = soaked.log.durations(period * periodMs, (period + 1) * periodMs)
    const postgresWorkNow = await postgresWork()
    const work =
      postgresWorkNow && postgresWorkBefore
        ? {
            buffers: postgresWorkNow.buffers - postgresWorkBefore.buffers,
            rows: postgresWorkNow.rows - postgresWorkBefore.rows,
            requests: inPeriod.length,
          }
        : undefined
    if (work) postgresWorkOf[period] = work
    const row = {
      period: period === 0 ? `${period + 1} (warm-up)` : period + 1,
      requests: inPeriod.length,
      'req/s': (inPeriod.length / (periodMs / 1000)).toFixed(0),
      'p50 ms': percentile(inPeriod, 50).toFixed(1),
      'p99 ms': percentile(inPeriod, 99).toFixed(1),
      'RSS MB (median)': (percentile(rss[period]!, 50) / 1024).toFixed(1),
      'RSS MB (lowest)': (rss[period]![0]! / 1024).toFixed(1),
      'heap MB': fixed(metrics?.heapMb),
      'heap committed MB': fixed(metrics?.committedMb),
      'external MB': fixed(metrics?.externalMb),
      // What RSS holds beside V8's heap: the C heap (zlib and Brotli streams, the password hasher), code.
      'RSS beside heap MB': fixed(metrics && rssNowMb - metrics.committedMb),
      'store lag p99 ms': fixed(metrics?.lagP99Ms),
      'store lag max ms': fixed(metrics?.lagMaxMs, 0),
      'store GC ms (minor)': fixed(
        metrics && metricsBefore && metrics.minorGcMs - metricsBefore.minorGcMs,
        0,
      ),
      'store GC ms (major)': fixed(
        metrics && metricsBefore && metrics.majorGcMs - metricsBefore.majorGcMs,
        0,
      ),
      'drill lag p99 ms': (clientLag.percentile(99) / 1e6).toFixed(1),
      'drill lag max ms': (clientLag.max / 1e6).toFixed(0),
      // The store's own CPU time per request: what other work on a shared machine skews far less than latency.
      'CPU ms/req': (storeCpu / Math.max(1, inPeriod.length)).toFixed(2),
      // PostgreSQL's processes on this machine (with the CI's own test server, when it runs beside the drill).
      'PostgreSQL CPU ms/req':
        kind === 'postgres' ? fixed(postgresCpu / Math.max(1, inPeriod.length), 2) : '–',
      // PostgreSQL's work per request, in its own units (not the machine's speed): buffers read, rows read, and
      // the dead rows its tables hold (what autovacuum has yet to clear).
      'PostgreSQL buffers/req': work ? (work.buffers / Math.max(1, work.requests)).toFixed(1) : '–',
      'PostgreSQL rows/req': work ? (work.rows / Math.max(1, work.requests)).toFixed(1) : '–',
      'dead rows': postgresWorkNow?.dead ?? '–',
      // This process's CPU per request: the load generator shares the machine with the store.
      'drill CPU ms/req': (drillCpu / Math.max(1, inPeriod.length)).toFixed(2),
      // The machine's cores: busy (the store, PostgreSQL, this process, anything else running), and stolen by
      // the hypervisor for another tenant while our cores had work: a shared machine's slow minutes.
      'machine busy %': fixed((100 * (machineNow.busy - machineBefore.busy)) / machineTotal, 0),
      'steal %': fixed((100 * (machineNow.steal - machineBefore.steal)) / machineTotal, 1),
      // What the machine's cores ran besides the store, PostgreSQL and this process: other work sharing them.
      'others %': fixed(
        (100 * (machineNow.busy - machineBefore.busy - storeCpu - postgresCpu - drillCpu)) / machineTotal,
        0,
      ),
      // PostgreSQL processes that were not there a period ago: the pool's new connections (each a new backend,
      // its caches cold), autovacuum workers.
      'PostgreSQL processes started':
        kind === 'postgres'
          ? [...postgresCpuNow.keys()].filter((pid) => !postgresCpuBefore.has(pid)).length
          : '–',
      // Visits started and not yet answered: grows when the store falls behind the clock.
      'in flight': inFlight.size,
      'errors+5xx so far': errors + serverErrors - peakFailures,
      load: os.loadavg()[0]!.toFixed(2),
    }
    cpuBefore = cpuNow
    drillCpuBefore = drillCpuNow
    machineBefore = machineNow
    postgresCpuBefore = postgresCpuNow
    metricsBefore = metrics
    postgresWorkBefore = postgresWorkNow
    clientLag.reset()
    rows.push(row)
    console.log(Object.values(row).join('\t'))
  }
  await Promise.all(inFlight)
  clientLag.disable()
  console.table(rows)
  console.log(
    `control: a fresh store on the data the soak began with, warmed up for ${periodMs / 1000} s, then ` +
      `${CONTROL_SLOTS} turns of ${CONTROL_SLOT_MS / 1000} s with the soaked one, each measured after its ` +
      `first ${CONTROL_SETTLE_MS / 1000} s`,
  )
  const slots = await control(stepsPerSecond, periodMs)
  machine.stop()
  measuring = false
  console.table(
    slots.map((slot) => ({
      store: slot.side,
      requests: slot.durations.length,
      'p50 ms': percentile(slot.durations, 50).toFixed(1),
      'p99 ms': percentile(slot.durations, 99).toFixed(1),
      // The machine's speed in the slot (machine-speed.ts): the two stores' turns share its slow minutes.
      'drill CPU ms/req': fixed(machineCostIn(slot.from, slot.to), 2),
    })),
  )
  const controlled = driftAgainstFresh(
    slots.map(({ side, durations }) => ({ side, p99: percentile(durations, 99) })),
  )
  // The first third of the periods after the warm-up against the last third (why thirds: below).
  const third = Math.max(1, Math.floor((periods - 1) / 3))
  const inThird = (which: 'first' | 'last') => {
    const [from, to] = which === 'first' ? [1, 1 + third] : [periods - third, periods]
    return soaked.log.list(from * periodMs, to * periodMs)
  }
  const [firstSamples, lastSamples] = [inThird('first'), inThird('last')]
  const sortedMs = (list: Sample[]) => list.map((sample) => sample.ms).sort((a, b) => a - b)
  const ofKind = (list: Sample[], kind: string) => list.filter((sample) => sample.kind === kind)
  /** Which kinds make up a third's slowest 1 %: registrations and checkouts are slow by design (Argon2). */
  const slowestOf = (list: Sample[]) => {
    const threshold = percentile(sortedMs(list), 99)
    return list.filter((sample) => sample.ms >= threshold)
  }
  const [firstSlowest, lastSlowest] = [slowestOf(firstSamples), slowestOf(lastSamples)]
  const shareOf = (slowest: Sample[], kind: string) =>
    `${Math.round((100 * ofKind(slowest, kind).length) / Math.max(1, slowest.length))} %`
  const kinds = [...new Set([...firstSamples, ...lastSamples].map((sample) => sample.kind))].sort()
  const perKind = kinds.map((kind) => {
    const [first, last] = [ofKind(firstSamples, kind), ofKind(lastSamples, kind)]
    return {
      kind,
      first: sortedMs(first),
      last: sortedMs(last),
      slowestFirst: shareOf(firstSlowest, kind),
      slowestLast: shareOf(lastSlowest, kind),
    }
  })
  console.table(
    perKind.map(({ kind, first, last, slowestFirst, slowestLast }) => ({
      kind,
      'requests, first → last third': `${first.length} → ${last.length}`,
      'p50 ms': `${percentile(first, 50).toFixed(1)} → ${percentile(last, 50).toFixed(1)}`,
      'p99 ms': `${percentile(first, 99).toFixed(1)} → ${percentile(last, 99).toFixed(1)}`,
      'of the slowest 1 %': `${slowestFirst} → ${slowestLast}`,
    })),
  )

  // Growth and drift are trends, not one minute against another, hence thirds:
  // - a minute's p99 (its ~130 slowest requests at 200 req/s) moved between 31 and 57 ms from minute to minute
  //   with no trend in a ten-minute PGlite run;
  // - the lowest RSS of each third, what the store comes back to after its garbage collections: the heap in
  //   use swings between ~100 and ~290 MB between two major collections, and a minute's median RSS with it
  //   (507-679 MB in one PGlite run, heap in use 99-288 MB, no trend); retained memory raises the floor.
  // The p99 over the run is the median of each third's 10-second windows' p99s (latency.ts), counting those in
  // which the machine ran at its usual speed (machine-speed.ts); pooled, a third's p99 was decided by a few
  // bursts (one stall of the shared machine put a minute's p99 at 894 ms). Even so, the machine's slow stretches
  // outlast a window: in one PostgreSQL soak, the store's, PostgreSQL's and this process's CPU per request all
  // rose 5–7 % from the first third to the last while PostgreSQL's buffers and rows per request stayed flat, and
  // the p99, at 55–60 % of the machine busy, rose 36 %. Hence the control judges drift, and this is printed.
  const lowestRss = (from: number, to: number) =>
    Math.min(...rss.slice(from, to).map((readings) => readings[0]!))
  const medianRss = (from: number, to: number) =>
    percentile(
      rss
        .slice(from, to)
        .flat()
        .sort((a, b) => a - b),
      50,
    )
  const firstRss = lowestRss(1, 1 + third)
  const lastRss = lowestRss(periods - third, periods)
  const rssGrowth = lastRss / firstRss - 1
  const mb = (kb: number) => (kb / 1024).toFixed(1)
  const firstP99 = percentile(sortedMs(firstSamples), 99)
  const lastP99 = percentile(sortedMs(lastSamples), 99)
  const pooledDrift = lastP99 / firstP99 - 1
  const windowMs = quick ? periodMs / 3 : 10_000
  const durationsIn = (from: number, to: number) => soaked.log.durations(from, to)
  // The machine's usual speed: this process's CPU per request in the median window of the judged periods.
  const windowCosts: number[] = []
  for (let from = periodMs; from < periods * periodMs; from += windowMs) {
    const cost = machineCostIn(from, from + windowMs)
    if (cost !== undefined) windowCosts.push(cost)
  }
  const steady = steadyMachine(machineCostIn, percentile(windowCosts, 50), MACHINE_SLOW_LIMIT)
  const typicalOf = (from: number, to: number) =>
    [
      typicalP99(durationsIn, from * periodMs, to * periodMs, windowMs),
      typicalP99(durationsIn, from * periodMs, to * periodMs, windowMs, steady),
    ] as const
  const [firstAll, firstSteady] = typicalOf(1, 1 + third)
  const [lastAll, lastSteady] = typicalOf(periods - third, periods)
  const allDrift = lastAll.p99 / firstAll.p99 - 1
  const typicalDrift = lastSteady.p99 / firstSteady.p99 - 1
  const weighed = perKind.filter(({ first, last }) => first.length > 0 && last.length > 0)
  const weightOf = ({ first, last }: (typeof perKind)[number]) => first.length + last.length
  const totalWeight = weighed.reduce((sum, kind) => sum + weightOf(kind), 0)
  const p99Drift =
    Math.exp(
      weighed.reduce(
        (sum, kind) =>
          sum +
          weightOf(kind) * Math.log(percentile(kind.last, 99) / Math.max(0.001, percentile(kind.first, 99))),
        0,
      ) / Math.max(1, totalWeight),
    ) - 1
  // PostgreSQL's work per request, first third against last: what the database was asked to do, whatever the
  // machine's speed (printed beside the checks: a store whose queries grow with its tables shows here first).
  const workPerRequest = (from: number, to: number, what: 'buffers' | 'rows') => {
    const periodsIn = postgresWorkOf.slice(from, to).filter(Boolean)
    const requests = periodsIn.reduce((sum, work) => sum + work.requests, 0)
    return periodsIn.reduce((sum, work) => sum + work[what], 0) / Math.max(1, requests)
  }
  const workDrift = (what: 'buffers' | 'rows') => {
    const [first, last] = [workPerRequest(1, 1 + third, what), workPerRequest(periods - third, periods, what)]
    return `${first.toFixed(1)} → ${last.toFixed(1)} (${((last / first - 1) * 100).toFixed(1)} %)`
  }
  if (statsClient) {
    // Where the database's reading went, by table: a table read more per request as it grows shows here.
    const { rows } = await statsClient.query(
      `select relname as table, n_live_tup as live, n_dead_tup as dead, seq_scan, seq_tup_read,
              idx_scan, idx_tup_fetch, n_tup_upd + n_tup_del as "updated+deleted", n_tup_hot_upd as hot_updated,
              autovacuum_count as autovacuums, autoanalyze_count as autoanalyzes
         from pg_stat_user_tables
        order by seq_tup_read + coalesce(idx_tup_fetch, 0) desc limit 12`,
    )
    console.table(rows)
  }
  if (postgresWorkOf.length > 0)
    console.log(
      `PostgreSQL's work per request, first third → last: buffers ${workDrift('buffers')}, rows ${workDrift('rows')}`,
    )
  // Over the run, the machine's drift is the store's too: printed, the control above judges (decision 022).
  console.log(
    `p99 over the run, periods 2–${1 + third} → ${periods - third + 1}–${periods}: ` +
      `${firstSteady.p99.toFixed(1)} → ${lastSteady.p99.toFixed(1)} ms (${(typicalDrift * 100).toFixed(1)} %, ` +
      `median of ${windowMs / 1000} s windows at the machine's usual speed: ${firstSteady.counted} of ` +
      `${firstSteady.windows} → ${lastSteady.counted} of ${lastSteady.windows}); all windows ` +
      `${firstAll.p99.toFixed(1)} → ${lastAll.p99.toFixed(1)} ms (${(allDrift * 100).toFixed(1)} %); pooled ` +
      `${firstP99.toFixed(1)} → ${lastP99.toFixed(1)} ms (${(pooledDrift * 100).toFixed(1)} %); each kind's ` +
      `pooled, weighted: ${(p99Drift * 100).toFixed(1)} %`,
  )
  const checks = [
    {
      check: `RSS growth ≤ ${RSS_LIMIT * 100} % (lowest, periods 2–${1 + third} against ${periods - third + 1}–${periods})`,
      value:
        `${mb(firstRss)} → ${mb(lastRss)} MB (${(rssGrowth * 100).toFixed(1)} %); medians ` +
        `${mb(medianRss(1, 1 + third))} → ${mb(medianRss(periods - third, periods))} MB` +
        (quick ? ', not enforced with --quick' : ''),
      // Six-second periods hold a collection or two: --quick prints the growth; the full run is held to it.
      pass: quick || rssGrowth <= RSS_LIMIT,
    },
    {
      check: `p99 drift ≤ ${P99_DRIFT_LIMIT * 100} % (the soaked store against a fresh one, in turns)`,
      // Three-second turns on a shared CI machine measure its neighbours more than the store: with --quick the
      // drift is printed, and only the full run is held to it.
      value:
        `${controlled.soaked.toFixed(1)} ms against ${controlled.fresh.toFixed(1)} ms ` +
        `(${(controlled.drift * 100).toFixed(1)} %; each store's ${CONTROL_SLOTS / 2} turns' p99s, ` +
        `the highest and lowest left out, averaged)` +
        (quick ? '; not enforced with --quick' : ''),
      pass: quick || controlled.drift <= P99_DRIFT_LIMIT,
    },
    {
      check: 'no error, no 5xx',
      value: `${errors} errors, ${serverErrors} × 5xx`,
      pass: errors + serverErrors === 0,
    },
    {
      check: 'the store is still up',
      value: store.child.exitCode ?? 'running',
      pass: store.child.exitCode === null,
    },
  ]
  console.log(
    `checkouts paid: ${checkouts}; database: ${kind}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ')} (the machine is shared)`,
  )
  console.table(checks)
  for (const failure of failures) console.log(`  ${failure}`)
  exitCode = checks.every((check) => check.pass) ? 0 : 1
  const samplesFile = options.samples
  if (samplesFile) {
    fs.writeFileSync(
      samplesFile,
      JSON.stringify({
        periodMs,
        samples: soaked.log.list(-Infinity, Infinity),
        fresh: freshLog.list(-Infinity, Infinity),
        slots: slots.map(({ side, from, to }) => ({ side, from, to })),
      }),
    )
    console.log(`samples: ${samplesFile}`)
  }
  console.log(exitCode === 0 ? 'soak: PASS' : 'soak: FAIL')
} catch (error) {
  console.error(error)
} finally {
  await soaked.connections.destroy()
  await statsClient?.end()
  // With flags for the store's Node (STORE_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=DIR`), it is stopped as
  // a balancer would stop it, so that it writes what they ask for on its way out.
  if (process.env.STORE_NODE_ARGS) await store.stop('SIGTERM')
  await cleanUp()
}
process.exit(exitCode)
