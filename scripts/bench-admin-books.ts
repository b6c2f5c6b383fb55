/**
 * `npm run bench:admin-books`: the back office's book list on a catalogue of 100,000 generated books
 * (plus the seed's 7) in embedded PGlite. The catalogue is generated in the database (generate_series) once
 * into .tmp/bench-admin-books (`--rebuild` builds it again); then listAdminBooks is timed for each sort on the
 * first page, on a page half-way through (by keyset cursor) and with searches. Prints p50/p99; asserts nothing.
 * Delete the folder when done (about 1 GB).
 */
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { sql } from 'drizzle-orm'
import { ADMIN_SORTS, type AdminSort } from '#app/features/catalog/admin-list.ts'
import { listAdminBooks } from '#app/features/catalog/admin-list.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { findProjectRoot } from '#app/server/project-root.server.ts'

const BOOKS = 100_000
const RUNS = 40
const dataDir = path.join(findProjectRoot(), '.tmp', 'bench-admin-books')

if (process.argv.includes('--rebuild')) fs.rmSync(dataDir, { recursive: true, force: true })
const fresh = !fs.existsSync(dataDir)
fs.mkdirSync(dataDir, { recursive: true })
const database = await openDatabase({ kind: 'pglite', dataDir })
const { db } = database

if (fresh) {
  const started = performance.now()
  await database.migrate()
  await seedCatalog(db)
  const words = (text: string) =>
    sql.raw(
      `(array[${text
        .split(',')
        .map((w) => `'${w.trim()}'`)
        .join(',')}])`,
    )
  const prefixes = words(
    'Practical, Mastering, Learning, Advanced, Modern, Effective, Applied, Essential, Pragmatic, Hands-On',
  )
  const subjects = words(
    'Python, Rust, Go, TypeScript, React, Django, Kotlin, Haskell, Elixir, Algorithms, Databases, PostgreSQL, Kubernetes, Linux, Cryptography, Compilers, Networking, Machine Learning, Data Science, Paxos',
  )
  const firstNames = words(
    'Ada, Alan, Grace, Edsger, Barbara, Donald, Margaret, Ken, Dennis, Radia, Linus, Guido, Priya, Kenji, Amara',
  )
  const lastNames = words(
    'Lovelace, Turing, Hopper, Dijkstra, Liskov, Knuth, Hamilton, Thompson, Ritchie, Perlman, Okafor, Moreau, Arakawa, Petrova, Santos',
  )
  await db.execute(sql`
    insert into ${books} (slug, title, author, description, price_cents, currency, cover_path, cover_alt, rating,
      file_size_bytes, topics, status, created_at)
    select
      'generated-' || i,
      ${prefixes}[1 + i % 10] || ' ' || ${subjects}[1 + (i / 10) % 20] || ' Volume ' || i,
      ${firstNames}[1 + (i * 7) % 15] || ' ' || ${lastNames}[1 + (i * 13) % 15],
      'A generated book for measuring the back office.',
      100 + (i * 7919) % 9900,
      'USD', '/covers/placeholder.svg', 'Cover', 1 + i % 5, 1000,
      array['generated'],
      (array['published', 'published', 'published', 'draft', 'archived'])[1 + i % 5],
      now() - (i || ' seconds')::interval
    from generate_series(1, ${BOOKS}) as i`)
  await db.execute(sql`analyze books`)
  console.log(
    `generated ${BOOKS.toLocaleString('en')} books in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  )
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}

async function measure(label: string, run: () => Promise<unknown>) {
  await run()
  const times: number[] = []
  for (let index = 0; index < RUNS; index++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  console.log(
    `${label.padEnd(42)} p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(times, 99).toFixed(1).padStart(6)} ms`,
  )
}

const [{ count } = { count: 0 }] = await db.select({ count: sql<number>`count(*)::int` }).from(books)
console.log(`catalogue: ${count.toLocaleString('en')} books, page size 50, ${RUNS} runs each\n`)
for (const sort of ADMIN_SORTS as readonly AdminSort[]) {
  await measure(`${sort}: first page`, () => listAdminBooks(db, { sort }))
  // A cursor half-way through: follow 1,000 pages once (timed as a whole), then time the next page.
  let after: string | null = null
  const walkStart = performance.now()
  for (let page = 0; page < 1000 && (page === 0 || after); page++)
    after = (await listAdminBooks(db, { sort, after })).next
  const walk = performance.now() - walkStart
  console.log(
    `${`${sort}: walking 1,000 pages (50,000 books)`.padEnd(42)} ${(walk / 1000).toFixed(2)} s in all, ${(walk / 1000).toFixed(2)} ms a page`,
  )
  await measure(`${sort}: page 1,001 (after 50,000 books)`, () => listAdminBooks(db, { sort, after }))
}
for (const q of ['python', 'lovelace', 'generated-4242', 'volume 99999', 'a', 'zz'])
  await measure(`search "${q}" (title sort)`, () => listAdminBooks(db, { q, sort: 'title' }))
await measure('search "python", newest first', () => listAdminBooks(db, { q: 'python', sort: 'newest' }))
await database.close()
