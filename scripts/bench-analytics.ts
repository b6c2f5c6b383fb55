/**
 * `npm run bench:analytics`: the /admin/analytics queries over 10,000,000 store events in embedded PGlite
 * (issue 12: p95 under 200 ms). In a fresh temporary folder (deleted at the end): the store's migrations,
 * the seed catalogue (and 493 made-up book ids), then the events generated in SQL with generate_series across the last 400 days (a
 * million per statement, timed), then the daily aggregates built by the same function the store runs on
 * every batch (aggregateEvents, in chunks of raw events), then the visitor ids of past days dropped as the
 * retention sweep does. Then each dashboard query is run many times; p50/p95 are printed. Asserts nothing.
 * Not run in CI (several minutes). `--events=N` for a smaller run; `--data-dir=PATH` keeps the generated
 * database in PATH (not deleted) and, run again, times the queries on it without generating anything.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { between, sql } from 'drizzle-orm'
import { aggregateEvents } from '#app/features/analytics/aggregate.server.ts'
import {
  getAnalyticsDashboard,
  readPeriod,
  topBooks,
  zeroResultSearches,
} from '#app/features/analytics/dashboard.server.ts'
import { resolveRange } from '#app/features/analytics/range.ts'
import { applyAnalyticsRetention } from '#app/features/analytics/retention.server.ts'
import { utcDay } from '#app/features/analytics/visitor.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { openDatabase, type Db } from '#app/server/db/database.server.ts'
import { analyticsEvents } from '#app/server/db/schema/index.server.ts'

const EVENTS = Number(process.argv.find((arg) => arg.startsWith('--events='))?.slice(9) ?? 10_000_000)
const DAYS = 400
const VISITORS_PER_DAY = 3_000
/** Books that sell and are viewed: the seed's 7 and ids of made-up ones (the page names them 'A deleted book'). */
const BOOKS = 500
const INSERT_CHUNK = 1_000_000
const AGGREGATE_CHUNK = 250_000
const RUNS = 40
const WARMUP = 5

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

async function timed<T>(what: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now()
  const result = await run()
  console.log(`${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return result
}

const keptDir = process.argv.find((arg) => arg.startsWith('--data-dir='))?.slice(11)
const dataDir = keptDir
  ? path.resolve(keptDir)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-bench-analytics-'))
const handle = await openDatabase({ kind: 'pglite', dataDir })
try {
  const { db } = handle
  await handle.migrate()
  await seedCatalog(db)
  const [{ events }] = (await db.select({ events: sql<number>`count(*)::int` }).from(analyticsEvents)) as [
    { events: number },
  ]
  const end = events > 0 ? await lastEventTime(db) : new Date()
  if (events === 0) await generate(db, end)
  else console.log(`${events.toLocaleString('en')} events already in ${dataDir}: timing the queries only`)
  await db.execute(sql`analyze`)
  await timeQueries(db, end)
} finally {
  await handle.close()
  if (!keptDir) fs.rmSync(dataDir, { recursive: true, force: true })
}

async function lastEventTime(db: Db): Promise<Date> {
  const [row] = await db
    .select({ at: sql<string>`max(${analyticsEvents.occurredAt})::text` })
    .from(analyticsEvents)
  return new Date(row!.at)
}

async function generate(db: Db, end: Date) {
  console.log(
    `${EVENTS.toLocaleString('en')} events over ${DAYS} days, ${VISITORS_PER_DAY} visitors a day, ${BOOKS} books`,
  )

  const generation = performance.now()
  for (let start = 1; start <= EVENTS; start += INSERT_CHUNK) {
    const stop = Math.min(EVENTS, start + INSERT_CHUNK - 1)
    await timed(`  events ${start.toLocaleString('en')}–${stop.toLocaleString('en')}`, () =>
      // About half page views, a quarter book views, then carts, checkouts, searches, purchases, downloads.
      db.execute(sql`
        with catalogue as (
          select array_agg(id) as ids, count(*)::int as n from (
            select id from books
            union all
            select md5('bench book ' || n)::uuid from generate_series(1, ${BOOKS - 7}) as n
          ) as every_book
        ),
        raw as (
          select g,
            ${end.toISOString()}::timestamptz - (g::float8 / ${EVENTS}) * interval '${sql.raw(String(DAYS))} days' as at,
            (g * 2654435761) % 1000 as r
          from generate_series(${start}::bigint, ${stop}::bigint) as g
        ),
        named as (
          select g, at, r,
            case when r < 480 then 'page_view' when r < 730 then 'view_item' when r < 810 then 'add_to_cart'
                 when r < 830 then 'remove_from_cart' when r < 870 then 'begin_checkout'
                 when r < 960 then 'search' when r < 985 then 'purchase' else 'download' end as name,
            catalogue.ids[1 + (g * 7919) % catalogue.n] as book_id
          from raw, catalogue
        )
        insert into analytics_events
          (occurred_at, name, visitor, path, referrer_host, book_id, value_cents, currency, items, query, result_count)
        select at, name,
          case when name = 'purchase' then null
               else left(md5(((g * 40503) % ${VISITORS_PER_DAY} + floor(extract(epoch from at) / 86400) * ${VISITORS_PER_DAY})::text), 22) end,
          case when name = 'page_view' then (array['/', '/books/:slug', '/AllBooks', '/search', '/cart'])[1 + g % 5] end,
          case when name = 'page_view' and g % 10 = 0 then 'news.example.org' end,
          case when name in ('view_item', 'add_to_cart', 'remove_from_cart', 'download') then book_id end,
          case when name = 'purchase' then 1999 + (g % 3) * 1000 end,
          case when name = 'purchase' then 'USD' end,
          case when name = 'purchase' then jsonb_build_array(jsonb_build_object('bookId', book_id, 'cents', 1999 + (g % 3) * 1000)) end,
          case when name = 'search' then 'query ' || (g % 700) end,
          case when name = 'search' then (case when g % 9 = 0 then 0 else 1 + g % 20 end) end
        from named`),
    )
  }
  console.log(`generating the events: ${((performance.now() - generation) / 1000).toFixed(1)} s in all`)

  const [{ max }] = (await db
    .select({ max: sql<number>`max(${analyticsEvents.id})` })
    .from(analyticsEvents)) as [{ max: number }]
  await timed('building the daily aggregates (as every written batch does, in chunks)', async () => {
    for (let from = 1; from <= Number(max); from += AGGREGATE_CHUNK)
      await db.transaction((tx) =>
        aggregateEvents(tx, between(analyticsEvents.id, from, from + AGGREGATE_CHUNK - 1)),
      )
  })
  await timed('retention sweep (drops past days’ visitor ids and salts; nothing is past 400 days)', () =>
    applyAnalyticsRetention(db, { retentionDays: DAYS + 1, now: end }),
  )
}

async function timeQueries(db: Db, end: Date) {
  const today = utcDay(end)
  const ranges = {
    '7 days': 'range=7',
    '30 days': 'range=30',
    '90 days': 'range=90',
    'custom 180 days': `range=custom&from=${utcDay(new Date(end.getTime() - 300 * 86_400_000))}&to=${utcDay(new Date(end.getTime() - 121 * 86_400_000))}`,
    // The longest range the form accepts (and the year before it as the comparison).
    'custom 366 days': `range=custom&from=${utcDay(new Date(end.getTime() - 365 * 86_400_000))}&to=${utcDay(end)}`,
  }
  const rows: Record<string, Record<string, number>> = {}
  const measure = async (name: string, run: () => Promise<unknown>) => {
    for (let index = 0; index < WARMUP; index++) await run()
    const times: number[] = []
    for (let index = 0; index < RUNS; index++) {
      const started = performance.now()
      await run()
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    rows[name] = {
      'p50 ms': Number(percentile(times, 50).toFixed(1)),
      'p95 ms': Number(percentile(times, 95).toFixed(1)),
      'max ms': Number(times.at(-1)!.toFixed(1)),
    }
  }
  for (const [label, query] of Object.entries(ranges)) {
    const resolved = resolveRange(new URLSearchParams(query), today)
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.errors))
    const { range } = resolved
    await measure(`${label}: whole page`, () => getAnalyticsDashboard(db, range))
    await measure(`${label}: per-day series + funnel`, () => readPeriod(db, range))
    await measure(`${label}: previous period`, () => readPeriod(db, range.previous))
    await measure(`${label}: top books by revenue`, () => topBooks(db, range, 'revenue'))
    await measure(`${label}: top books by views`, () => topBooks(db, range, 'views'))
    await measure(`${label}: zero-result searches`, () => zeroResultSearches(db, range))
  }
  console.table(rows)
  const worst = Math.max(...Object.values(rows).map((row) => row['p95 ms']!))
  console.log(`worst p95: ${worst} ms (target: under 200 ms)`)
}
