/**
 * The PostgreSQL half of `npm run bench` (scripts/bench.ts hands over to it):
 * - `-- --db postgres`: the standard single-instance cases against a throwaway PostgreSQL 15 server instead of
 *   PGlite, the store called directly as bench.ts calls it (same-machine figures beside the PGlite ones);
 * - `-- --instances 1,2`: the same cases through nginx (tests/cluster-process.ts) for 1 instance, then 2, in
 *   one run, with the ratio of each case's req/s. Beside req/s and p99 it prints each process's CPU time per
 *   request (Linux /proc): the store instances, nginx, PostgreSQL, and this process (autocannon, the load
 *   generator), which all share the machine's cores; and the throughput those costs allow on them.
 * Prints numbers; asserts nothing. Design and figures: docs/decisions/022-scale-out.md.
 */
import os from 'node:os'
import autocannon from 'autocannon'
import { listBooks, seedCatalog } from '#app/features/catalog/catalog.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { postmasterPid, processCpuMs, startCluster, type Cluster } from '#tests/cluster-process.ts'
import { createBuyer } from '#tests/factories/buyers.ts'
import { startPostgres, type PostgresServer } from '#tests/postgres-server.ts'
import { spawnStore, waitUntilReady, type StoreProcess } from '#tests/store-process.ts'

/** The secret the test factories sign sessions with (as in bench.ts): the stores must share it. */
const FACTORY_AUTH_SECRET = 'test-secret-that-is-long-enough-0123456789'
const CONNECTIONS = 20
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

/** Who spends the CPU: each process group's CPU time so far (ms). */
type Meters = Record<string, () => number | undefined>

function sample(meters: Meters): Record<string, number | undefined> {
  return Object.fromEntries(Object.entries(meters).map(([name, read]) => [name, read()]))
}

async function measure(baseUrl: string, scenario: Scenario, seconds: number, meters: Meters): Promise<Row> {
  const run = (duration: number) =>
    autocannon({
      url: `${baseUrl}${scenario.path}`,
      connections: CONNECTIONS,
      duration,
      headers: scenario.headers,
    })
  await run(2)
  const before = sample(meters)
  const result = await run(seconds)
  const after = sample(meters)
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

/** `--instances 1,2`: the cases through nginx for each count of instances, one after the other. */
async function benchInstances(counts: number[], seconds: number) {
  const postgres = await startPostgres()
  const results = new Map<number, Row[]>()
  let cluster: Cluster | undefined
  try {
    const { url, buyer } = await prepareDatabase(postgres, 'bench')
    for (const instances of counts) {
      cluster = await startCluster({
        instances,
        databaseUrl: url,
        env: { LOG_LEVEL: 'info', BETTER_AUTH_SECRET: FACTORY_AUTH_SECRET },
        discardOutput: true,
      })
      const meters = storeMeters(cluster.instances, postgres.port, cluster.nginx.pid)
      const rows: Row[] = []
      for (const scenario of scenariosFor(buyer, await cartCookie(cluster.url)))
        rows.push(await measure(cluster.url, scenario, seconds, meters))
      results.set(instances, rows)
      console.log(
        `\n${instances} instance${instances === 1 ? '' : 's'} behind nginx on PostgreSQL 15, ${CONNECTIONS} connections, ${seconds} s a case; ${loadLine()}`,
      )
      console.table(rows)
      await cluster.stop()
      cluster = undefined
    }
  } finally {
    await cluster?.stop()
    postgres.destroy()
  }
  const [base, ...others] = counts
  const baseRows = results.get(base!)!
  for (const other of others) {
    const rows = results.get(other)!
    console.log(
      `\n${other} instances ÷ ${base}: req/s and p99 per case (${os.cpus().length} cores, ${loadLine()})`,
    )
    console.table(
      baseRows.map((row, index) => {
        const next = rows[index]!
        const ceilingOf = (instances: number, costs: Row) => {
          // One instance is one busy thread: at most 1 s of CPU a second; and every process of the run (the
          // instances, nginx, PostgreSQL, the load generator) shares the cores.
          const storeMs = Number(costs['store CPU ms/req'])
          const allMs = Number(costs['all CPU ms/req'])
          return Math.min((1000 * instances) / storeMs, (os.cpus().length * 1000) / allMs)
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

export async function benchOnPostgres(options: { instances?: number[]; seconds: number }) {
  if (options.instances) await benchInstances(options.instances, options.seconds)
  else await benchSingleOnPostgres(options.seconds)
}
