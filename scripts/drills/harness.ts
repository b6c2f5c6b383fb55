/**
 * What the fuzz and soak drills share: a store's data prepared before it starts (the catalogue seeded, a
 * customer who bought a book, an admin), the production build run as a real process on PGlite or on a
 * throwaway PostgreSQL server, and a clean-up that runs on every way out (error, Ctrl-C, SIGTERM).
 */
import fs from 'node:fs'
import path from 'node:path'
import { addToCart, requireUserCart } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { reportReview, saveReview } from '#app/features/reviews/reviews.server.ts'
import { openDatabase, type DatabaseHandle } from '#app/server/db/database.server.ts'
import { bundleBooks, bundles } from '#app/server/db/schema/index.server.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createGuestCookie, testPassword } from '#harness/factories/buyers.ts'
import { startPostgres, type PostgresServer } from '#harness/postgres-server.ts'
import { FACTORY_AUTH_SECRET, onExit, type DbKind } from './lib.ts'
import {
  freePort,
  spawnStore,
  tempDataDir,
  waitUntilReady,
  type StoreProcess,
} from '#harness/store-process.ts'

export { cleanUp, ensureBuild, FACTORY_AUTH_SECRET, onExit, type DbKind } from './lib.ts'
export const METRICS_TOKEN = 'drill-metrics-token-0123456789abcdef0123'

/** Stores still running when the drill's process exits, however it exits: killed at once. */
const children = new Set<StoreProcess['child']>()
process.once('exit', () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

export type Personas = {
  customer: { email: string; cookie: string; orderId: string }
  admin: { email: string; cookie: string }
  guest: { cookie: string }
  password: string
}

/** The store's database, migrated and seeded, with a customer (one paid order) and an admin. */
export type Prepared = {
  kind: DbKind
  dataDir: string
  /** Set on PostgreSQL. */
  databaseUrl?: string
  postgres?: PostgresServer
  personas: Personas
  bookIds: string[]
  bookSlugs: string[]
  /** A bundle of two books the customer neither owns nor has in the cart (issue 30). */
  bundle: { id: string; slug: string }
  /** Opens the database (PGlite: only while the store is stopped: the folder has no lock of its own). */
  open(): Promise<DatabaseHandle>
}

export async function prepareStoreData(kind: DbKind): Promise<Prepared> {
  const dataDir = tempDataDir()
  onExit(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }))
  let postgres: PostgresServer | undefined
  let databaseUrl: string | undefined
  if (kind === 'postgres') {
    postgres = await startPostgres()
    const server = postgres
    onExit(() => server.destroy())
    databaseUrl = postgres.createDatabase('codebook_drill')
  }
  const dbDir = path.join(dataDir, 'db')
  const open = () =>
    databaseUrl
      ? openDatabase({ kind: 'postgres', url: databaseUrl, poolSize: 2 })
      : (fs.mkdirSync(dbDir, { recursive: true }), openDatabase({ kind: 'pglite', dataDir: dbDir }))
  const database = await open()
  try {
    await database.migrate()
    await seedCatalog(database.db)
    const books = await listBooks(database.db)
    const buyer = await createBuyer(database.db, [books[0]!.id], {
      email: `drill.customer.${crypto.randomUUID().slice(0, 8)}@example.com`,
    })
    // The customer also has a book in their cart.
    await addToCart(database.db, await requireUserCart(database.db, buyer.userId), books[1]!.id)
    // A review of the customer's, reported by another reader: the moderation queue has work.
    const review = await saveReview(database.db, {
      userId: buyer.userId,
      bookId: books[0]!.id,
      input: { rating: 4, title: 'Useful', body: 'A useful book, with a few rough chapters.' },
    })
    const reporter = await createBuyer(database.db, [books[0]!.id])
    await reportReview(database.db, { userId: reporter.userId, reviewId: review.id, reason: 'Off topic' })
    // A bundle (issue 30) of two books in the first book's currency that the customer has neither bought nor
    // put in the cart.
    const packed = books
      .slice(2)
      .filter((book) => book.currency === books[0]!.currency)
      .slice(0, 2)
    const [bundle] = await database.db
      .insert(bundles)
      .values({
        slug: 'drill-pack',
        title: 'Drill pack',
        priceCents: Math.max(1, packed.reduce((total, book) => total + book.priceCents, 0) - 100),
        currency: books[0]!.currency,
      })
      .returning({ id: bundles.id, slug: bundles.slug })
    await database.db
      .insert(bundleBooks)
      .values(packed.map((book, position) => ({ bundleId: bundle!.id, bookId: book.id, position })))
    const guest = await createGuestCookie(database.db)
    const admin = await createAdmin(database.db, {
      email: `drill.admin.${crypto.randomUUID().slice(0, 8)}@example.com`,
    })
    return {
      kind,
      dataDir,
      databaseUrl,
      postgres,
      bookIds: books.map((book) => book.id),
      bookSlugs: books.map((book) => book.slug),
      bundle: bundle!,
      personas: {
        customer: { email: buyer.email, cookie: buyer.cookie, orderId: buyer.orderId },
        admin: { email: admin.email, cookie: admin.cookie },
        guest: { cookie: guest },
        password: testPassword,
      },
      open,
    }
  } finally {
    await database.close()
  }
}

/** The production build on the prepared data, on a fixed port (kept across restarts). */
export async function startStore(
  prepared: Prepared,
  port: number,
  env: Record<string, string> = {},
  options: { keepOutput?: boolean } = {},
): Promise<StoreProcess> {
  const store = await spawnStore(
    {
      DATA_DIR: prepared.dataDir,
      PORT: String(port),
      BETTER_AUTH_SECRET: FACTORY_AUTH_SECRET,
      BETTER_AUTH_URL: `http://127.0.0.1:${port}`,
      TRUST_PROXY: 'loopback',
      METRICS_TOKEN,
      ...(prepared.databaseUrl ? { DATABASE_URL: prepared.databaseUrl } : {}),
      ...env,
    },
    { discardOutput: !options.keepOutput },
  )
  children.add(store.child)
  void store.exited.then(() => children.delete(store.child))
  onExit(() => store.stop('SIGKILL'))
  await waitUntilReady(store)
  return store
}

export { freePort }

/** The store process's resident memory (kB), from /proc. */
export function rssKb(pid: number | undefined): number | undefined {
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'))
    return line ? Number(line.replace(/\D+/g, '')) : undefined
  } catch {
    return undefined
  }
}

/**
 * The CPU time so far (ms) of each running PostgreSQL server process on the machine (the pool's backends, the
 * server's own workers), by process id. `postgresCpuSince` turns two readings into the time used between them.
 */
export function postgresCpuMs(): Map<string, number> {
  const byPid = new Map<string, number>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (stat.includes('(postgres)')) byPid.set(entry, cpuMsOfStat(stat))
    } catch {
      // Exited meanwhile.
    }
  }
  return byPid
}

/**
 * The CPU time (ms) PostgreSQL's processes used between two readings: a process that exited between them (a
 * backend the pool closed, an autovacuum worker) is missing from the later one, and its time after the first
 * reading is lost rather than subtracted.
 */
export function postgresCpuSince(before: Map<string, number>, now: Map<string, number>): number {
  let used = 0
  for (const [pid, ms] of now) used += ms - (before.get(pid) ?? 0)
  return used
}

/**
 * This machine's CPU time so far (ms, all cores, from /proc/stat's first line): busy (user, nice, system,
 * interrupts), and stolen, the time the hypervisor ran another tenant while one of our virtual cores had work.
 */
export function machineCpuMs(): { busy: number; steal: number; total: number } {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map((ticks) => Number(ticks) * 10)
    const busy = user! + nice! + system! + irq! + softirq!
    return { busy, steal: steal!, total: busy + idle! + iowait! + steal! }
  } catch {
    return { busy: NaN, steal: NaN, total: NaN }
  }
}

/** The store process's CPU time so far (user + system, ms; /proc counts 100 ticks a second). */
export function cpuMs(pid: number | undefined): number {
  try {
    return cpuMsOfStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return NaN
  }
}

/** A process's CPU time (ms) from its /proc/PID/stat line: user + system ticks, 100 a second. */
function cpuMsOfStat(stat: string): number {
  const fields = stat.split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
