/**
 * The PostgreSQL half of `npm run bench` (scripts/bench.ts hands over to it):
 * - `-- --db postgres`: the standard single-instance cases against a throwaway PostgreSQL 15 server instead of
 *   PGlite, the store called directly as bench.ts calls it (same-machine figures beside the PGlite ones);
 * - `-- --instances 1,2`: the same cases through nginx (harness/cluster-process.ts) for 1 instance and for 2, in
 *   one run (both clusters side by side, each case measured on one then the other, twice), with the ratio of
 *   each case's req/s. Beside req/s and p99 it prints each process's CPU time per
 *   request (Linux /proc): the store instances, nginx, PostgreSQL, and this process (autocannon, the load
 *   generator), which all share the machine's cores; and the throughput those costs allow on them. With
 *   `--cpu-share S`, each instance is held to S of a core (a cgroup quota, harness/cpu-limit.ts) in both runs:
 *   one instance's fair share of the machine, the same whether it runs alone or beside another.
 * Prints numbers; asserts nothing. Design: docs/decisions/022-scale-out.md; figures:
 * docs/measurements/022-scale-out.md.
 */
import os from 'node:os'
import autocannon from 'autocannon'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { postmasterPid, processCpuMs, startCluster, type Cluster } from '#harness/cluster-process.ts'
import { cpuQuotaHierarchy, limitCpu, pinProcess, type CpuLimit } from '#harness/cpu-limit.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { startPostgres, type PostgresServer } from '#harness/postgres-server.ts'
import { spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'

/** The secret the test factories sign sessions with (as in bench.ts): the stores must share it. */
const FACTORY_AUTH_SECRET = 'test-secret-that-is-long-enough-0123456789'
const CONNECTIONS = 20
/**
 * With `--cpu-share`, the visitors grow with the instances (10 connections each), so that every instance has
 * the same requests in flight whether it runs alone or beside others: 20 in flight on one throttled instance is
 * not the load 10 on each of two is (one instance's CPU per request measured up to 1.6 × that with 10, on the
 * signed-in pages).
 */
const CONNECTIONS_PER_INSTANCE = 10
const browserHeaders = { 'Accept-Encoding': 'gzip, deflate, br', Accept: 'text/html' }

type Scenario = { name: string; path: string; headers: Record<string, string> }
type Row = Record<string, string | number>

/** The cases of scripts/bench.ts (the standard ones, then the pages rendered for one visitor). */
function scenariosFor(buyer: { cookie: string; bookSlug: string }, cart: string): Scenario[] {
  const signedIn = { ...browserHeaders, Cookie: buyer.cookie }
  const guestWithCart = { ...browserHeaders, Cookie: `${cart}; bench_bypass=1` }
  return [
    { name: '/ first-time visitor', path: '/', headers: browserHeaders },
    { name: '/ with a cart of 3 books', path: '/', headers: { ...browserHeaders, Cookie: cart } },
    { name: '/AllBooks', path: '/AllBooks', headers: browserHeaders },
    { name: '/search?q=react', path: '/search?q=react', headers: browserHeaders },
    { name: 'signed in: /', path: '/', headers: signedIn },
    { name: 'signed in: /books/:slug', path: `/books/${buyer.bookSlug}`, headers: signedIn },
    { name: 'signed in: /account/library', path: '/account/library', headers: signedIn },
    { name: 'signed in: /cart', path: '/cart', headers: signedIn },
    { name: 'guest with a cart: /', path: '/', headers: guestWithCart },
    { name: 'guest with a cart: /cart', path: '/cart', headers: guestWithCart },
  ]
}

/** A visitor with three books in the cart, made through the store's own form posts (as bench.ts does). */
async function cartCookie(baseUrl: string): Promise<string> {
  const page = await (await fetch(`${baseUrl}/AllBooks`)).text()
  const ids = [
    ...new Set([...page.matchAll(/name="bookId" value="([0-9a-f-]{36})"/g)].map((match) => match[1]!)),
  ]
  let cookie = ''
  for (const bookId of ids.slice(0, 3)) {
    const response = await fetch(`${baseUrl}/cart`, {
      method: 'POST',
      body: new URLSearchParams({ intent: 'add', bookId, redirectTo: '/' }),
      headers: cookie ? { Cookie: cookie } : {},
      redirect: 'manual',
    })
    cookie = response.headers.get('set-cookie')?.split(';')[0] ?? cookie
  }
  const home = await (await fetch(`${baseUrl}/`, { headers: { Cookie: cookie } })).text()
  if (!home.includes('Cart, 3 books')) throw new Error('could not fill a cart for the benchmark')
  return cookie
}

/** A new database on `postgres`, migrated and seeded, with a reader who bought two books. */
async function prepareDatabase(postgres: PostgresServer, name: string) {
  const url = postgres.createDatabase(name)
  const database = await openDatabase({ kind: 'postgres', url, poolSize: 2 })
  try {
    await database.migrate()
    await seedCatalog(database.db)
    const catalogue = await listBooks(database.db)
    const buyer = await createBuyer(
      database.db,
      catalogue.slice(0, 2).map((book) => book.id),
      { email: 'bench.buyer@example.com' },
    )
    return { url, buyer: { cookie: buyer.cookie, bookSlug: catalogue[2]!.slug } }
  } finally {
    await database.close()
  }
}

/**
 * One case's measurements in several rounds as one row: the mean of each figure (req/s, latencies, CPU per
 * request, cores), the sum of failures.
 */
function averageRows(rounds: Row[]): Row {
  const row: Row = {}
  for (const key of Object.keys(rounds[0]!)) {
    const values = rounds.map((round) => round[key])
    if (key === 'non-2xx' || key === 'errors') row[key] = values.reduce<number>((a, b) => a + Number(b), 0)
    else if (values.every((value) => value !== '–' && Number.isFinite(Number(value)))) {
      const mean = values.reduce<number>((a, b) => a + Number(b), 0) / values.length
      row[key] = typeof values[0] === 'number' ? Math.round(mean) : mean.toFixed(2)
    } else row[key] = values[0]!
  }
  return row
}

/** Who spends the CPU: each process group's CPU time so far (ms). */
type Meters = Record<string, () => number | undefined>

function sample(meters: Meters): Record<string, number | undefined> {
  return Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]))
}

/** The bench's own /metrics token for the instances (their garbage collection time is read from it). */
const METRICS_TOKEN = 'bench-metrics-token-0123456789abcdef01234'

/**
 * The instances' garbage collection time so far (ms, all kinds), from their own /metrics (prom-client's
 * nodejs_gc_duration_seconds): part of the store's CPU that grows with how much each request keeps alive.
 */
async function gcMs(stores: StoreProcess[]): Promise<number | undefined> {
  try {
    const each = await Promise.all(
      stores.map(async (store) => {
        const text = await (
          await fetch(`${store.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })
        ).text()
        return [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm)].reduce(
          (sum, match) => sum + Number(match[1]) * 1000,
          0,
        )
      }),
    )
    return each.reduce((a, b) => a + b, 0)
  } catch {
    return undefined
  }
}

function load(baseUrl: string, scenario: Scenario, seconds: number, connections = CONNECTIONS) {
  return autocannon({
    url: `${baseUrl}${scenario.path}`,
    connections,
    duration: seconds,
    headers: scenario.headers,
  })
}

async function measure(
  baseUrl: string,
  scenario: Scenario,
  seconds: number,
  meters: Meters,
  connections = CONNECTIONS,
  stores?: StoreProcess[],
): Promise<Row> {
  await load(baseUrl, scenario, 2, connections)
  const gcBefore = stores && (await gcMs(stores))
  const before = sample(meters)
  const started = performance.now()
  const result = await load(baseUrl, scenario, seconds, connections)
  const elapsedMs = performance.now() - started
  const after = sample(meters)
  const gcAfter = stores && (await gcMs(stores))
  const row: Row = {
    scenario: scenario.name,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
  }
  let total = 0
  for (const name of Object.keys(meters)) {
    const [start, end] = [before[name], after[name]]
    const perRequest =
      start === undefined || end === undefined ? undefined : (end - start) / result.requests.total
    row[`${name} CPU ms/req`] = perRequest === undefined ? '–' : perRequest.toFixed(2)
    total += perRequest ?? 0
  }
  row['all CPU ms/req'] = total.toFixed(2)
  if (stores)
    row['store GC ms/req'] =
      gcBefore === undefined || gcAfter === undefined
        ? '–'
        : ((gcAfter - gcBefore) / result.requests.total).toFixed(2)
  // How many cores the instances kept busy: at their quota (or at 1 each) when they are the bottleneck.
  const storeMs = Number(after.store) - Number(before.store)
  row['store cores'] = Number.isFinite(storeMs) ? (storeMs / elapsedMs).toFixed(2) : '–'
  row['non-2xx'] = result.non2xx
  row.errors = result.errors + result.timeouts
  return row
}

const loadGeneratorCpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

function storeMeters(stores: StoreProcess[], postgresPort: number, nginxPid?: number): Meters {
  const postmaster = postmasterPid(postgresPort)
  return {
    store: () => {
      const each = stores.map((store) => processCpuMs(store.child.pid))
      return each.some((value) => value === undefined) ? undefined : each.reduce((a, b) => a! + b!, 0)
    },
    ...(nginxPid ? { nginx: () => processCpuMs(nginxPid, true) } : {}),
    postgres: () => processCpuMs(postmaster, true),
    'load generator': loadGeneratorCpuMs,
  }
}

function loadLine() {
  return `load average: ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`
}

/** `--db postgres`: one store on PostgreSQL, called directly. */
async function benchSingleOnPostgres(seconds: number) {
  const postgres = await startPostgres()
  let store: StoreProcess | undefined
  try {
    const { url, buyer } = await prepareDatabase(postgres, 'bench')
    store = await spawnStore(
      { LOG_LEVEL: 'info', DATABASE_URL: url, BETTER_AUTH_SECRET: FACTORY_AUTH_SECRET },
      { discardOutput: true },
    )
    await waitUntilReady(store)
    const meters = storeMeters([store], postgres.port)
    const rows: Row[] = []
    for (const scenario of scenariosFor(buyer, await cartCookie(store.url)))
      rows.push(await measure(store.url, scenario, seconds, meters))
    console.log(
      `one store on PostgreSQL 15 (same machine), ${CONNECTIONS} connections, ${seconds} s a case; ${loadLine()}`,
    )
    console.table(rows)
  } finally {
    await store?.stop()
    postgres.destroy()
  }
}

/** `--instances 1,2`: the cases through nginx for each count of instances, measured in turn. */
async function benchInstances(counts: number[], seconds: number, cpuShare?: number) {
  const cores = os.cpus().length
  // With --cpu-share, the last core is kept for nginx, PostgreSQL and the load generator (autocannon runs in
  // this process; nginx, started by it, inherits its core), and the instances share the others, each held to
  // its share: as in production, where the balancer and the database have machines of their own, so that
  // neither run lends the instances the helpers' CPU nor the helpers the instances'.
  const instanceCores = Math.max(1, cores - 1)
  if (cpuShare !== undefined) {
    const hierarchy = cpuQuotaHierarchy()
    if (typeof hierarchy === 'string') throw new Error(`--cpu-share: ${hierarchy}`)
    if (Math.max(...counts) * cpuShare > instanceCores)
      console.warn(`--cpu-share ${cpuShare}: more than the ${instanceCores} core(s) left for the instances`)
  }
  const postgres = await startPostgres()
  if (cpuShare !== undefined && cores > 1) {
    const helperCore = String(cores - 1)
    pinProcess(process.pid, helperCore)
    pinProcess(postmasterPid(postgres.port)!, helperCore, { withChildren: true })
  }
  const results = new Map<number, Row[]>()
  const runs: {
    instances: number
    cluster: Cluster
    limits: CpuLimit[]
    meters: Meters
    scenarios: Scenario[]
    /** Per case, each round's row. */
    rounds: Row[][]
  }[] = []
  const connectionsFor = (instances: number) =>
    cpuShare === undefined ? CONNECTIONS : CONNECTIONS_PER_INSTANCE * instances
  const share =
    cpuShare === undefined
      ? ''
      : `, each held to ${cpuShare} of a core on ${cores > 1 ? `CPU 0${instanceCores > 1 ? `-${instanceCores - 1}` : ''} (nginx, PostgreSQL and the load generator on CPU ${cores - 1})` : 'the one CPU'}`
  try {
    const { url, buyer } = await prepareDatabase(postgres, 'bench')
    // Every count's cluster runs side by side (the idle ones wait), so that each case is measured on them in
    // turn, twice: the machine's speed drifts over minutes (one run measured the same single instance's CPU
    // per request 20-35 % above another's), and counts measured one after the other took that drift into
    // their ratio.
    for (const instances of counts) {
      const cluster = await startCluster({
        instances,
        databaseUrl: url,
        env: { LOG_LEVEL: 'info', BETTER_AUTH_SECRET: FACTORY_AUTH_SECRET, METRICS_TOKEN },
        discardOutput: true,
        clientKeepaliveRequests: 1_000_000,
      })
      const run = {
        instances,
        cluster,
        limits: [] as CpuLimit[],
        meters: storeMeters(cluster.instances, postgres.port, cluster.nginx.pid),
        scenarios: scenariosFor(buyer, await cartCookie(cluster.url)),
        rounds: [] as Row[][],
      }
      runs.push(run)
      if (cpuShare !== undefined)
        run.limits = cluster.instances.map((store, index) =>
          limitCpu(store.child.pid!, cpuShare, { cpu: index % instanceCores }),
        )
      // Every case once before any is measured: new instances compile each page's code as it first runs, and
      // under a quota that compiling takes the instance's own share (the first cases measured 30-80 % more
      // CPU per request than later runs of the same case).
      for (const scenario of run.scenarios) await load(cluster.url, scenario, 2, connectionsFor(instances))
    }
    const rounds = 2
    for (let index = 0; index < runs[0]!.scenarios.length; index++)
      for (let round = 0; round < rounds; round++)
        for (const run of round % 2 === 0 ? runs : [...runs].reverse()) {
          ;(run.rounds[index] ??= []).push(
            await measure(
              run.cluster.url,
              run.scenarios[index]!,
              seconds,
              run.meters,
              connectionsFor(run.instances),
              run.cluster.instances,
            ),
          )
        }
    for (const run of runs) {
      const rows = run.rounds.map(averageRows)
      results.set(run.instances, rows)
      console.log(
        `\n${run.instances} instance${run.instances === 1 ? '' : 's'}${share} behind nginx on PostgreSQL 15, ${connectionsFor(run.instances)} connections, ${rounds} × ${seconds} s a case (the counts in turn); ${loadLine()}`,
      )
      console.table(rows)
    }
  } finally {
    for (const run of runs) {
      for (const limit of run.limits) limit.release()
      await run.cluster.stop()
    }
    postgres.destroy()
  }
  const [base, ...others] = counts
  const baseRows = results.get(base!)!
  for (const other of others) {
    const rows = results.get(other)!
    console.log(
      `\n${other} instances ÷ ${base}${share}: req/s and p99 per case (${os.cpus().length} cores, ${loadLine()})`,
    )
    console.table(
      baseRows.map((row, index) => {
        const next = rows[index]!
        const ceilingOf = (instances: number, costs: Row) => {
          // One instance is one busy thread: at most 1 s of CPU a second (its share of that under a quota);
          // and every process of the run (the instances, nginx, PostgreSQL, the load generator) shares the cores.
          const storeMs = Number(costs['store CPU ms/req'])
          const allMs = Number(costs['all CPU ms/req'])
          return Math.min((1000 * instances * (cpuShare ?? 1)) / storeMs, (os.cpus().length * 1000) / allMs)
        }
        const ceilingRatio = ceilingOf(other, next) / ceilingOf(base!, row)
        const ratio = Number(next['req/s']) / Number(row['req/s'])
        return {
          scenario: row.scenario,
          [`req/s ×${base}`]: row['req/s'],
          [`req/s ×${other}`]: next['req/s'],
          ratio: ratio.toFixed(2),
          [`p99 ×${base}`]: row['p99 ms'],
          [`p99 ×${other}`]: next['p99 ms'],
          'CPU-bound ratio': Number.isFinite(ceilingRatio) ? ceilingRatio.toFixed(2) : '–',
          'of it': Number.isFinite(ceilingRatio) ? `${Math.round((100 * ratio) / ceilingRatio)} %` : '–',
          // What the instances would give with a core each (the fair share): the store's CPU per request
          // decides it, since each instance is one thread. Below `other ÷ base`, the per-request cost grew.
          'a core each': (
            (other / base!) *
            (Number(row['store CPU ms/req']) / Number(next['store CPU ms/req']))
          ).toFixed(2),
        }
      }),
    )
  }
}

export async function benchOnPostgres(options: { instances?: number[]; seconds: number; cpuShare?: number }) {
  if (options.instances) await benchInstances(options.instances, options.seconds, options.cpuShare)
  else await benchSingleOnPostgres(options.seconds)
}
