/**
 * `npm run bench:analytics`: the /admin/analytics queries over 10,000,000 store events in embedded PGlite
 * (issue 12: p95 under 200 ms), and the money they show read from 250,000 paid orders with their refunds
 * (issue 31: one order per purchase event, 3 % refunded, 1 % with a refund still requested; dollars untaxed,
 * euros taxed in Germany or France), with the accounts page's queries and its files for a whole year. In a
 * fresh temporary folder (deleted at the end): the store's migrations,
 * the seed catalogue (and 493 made-up book ids), then the events generated in SQL with generate_series across the last 400 days (a
 * million per statement, timed), then the daily aggregates built by the same function the store runs on
 * every batch (aggregateEvents, in chunks of raw events), then the visitor ids of past days dropped as the
 * retention sweep does, then the orders. Then each dashboard query is run many times; p50/p95 are printed.
 * Asserts nothing. Not run in CI (several minutes). `--events=N` for a smaller run (orders: 2.5 % of it, or
 * `--orders=N`);
 * `--data-dir=PATH` keeps the generated
 * database in PATH (not deleted) and, run again, times the queries on it without generating anything.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { between, sql } from 'drizzle-orm'
import { accountsCsv, accountsWorkbook } from '#app/features/accounts/exports.server.ts'
import { resolvePeriod, periodForm } from '#app/features/accounts/period.server.ts'
import { getMoney, getMoneyByDay } from '#app/features/accounts/revenue.server.ts'
import { getTaxReturn } from '#app/features/accounts/tax-return.server.ts'
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
import { analyticsEvents, orders } from '#app/server/db/schema/index.server.ts'

const EVENTS = Number(process.argv.find((arg) => arg.startsWith('--events='))?.slice(9) ?? 10_000_000)
/** One paid order per purchase event (2.5 % of the events) unless `--orders=N`. */
const ORDERS = Number(
  process.argv.find((arg) => arg.startsWith('--orders='))?.slice(9) ?? Math.round(EVENTS * 0.025),
)
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
  const [{ paid }] = (await db.select({ paid: sql<number>`count(*)::int` }).from(orders)) as [
    { paid: number },
  ]
  if (paid === 0) await generateOrders(db, end)
  await db.execute(sql`vacuum analyze`)
  await timeQueries(db, end)
  await timeAccounts(db, end)
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

/**
 * Paid orders spread evenly over the DAYS before `end`, one line each (a seed book), and their refunds: 3 %
 * refunded whole three days after payment, 1 % with a refund requested and never confirmed. The trigger that
 * keeps the books' sales counts is off while they are written (a throwaway database: it would update a book's
 * row per line and time nothing the dashboard does).
 */
async function generateOrders(db: Db, end: Date) {
  console.log(`${ORDERS.toLocaleString('en')} paid orders over ${DAYS} days, 3 % refunded`)
  await timed('  orders, lines and refunds', async () => {
    await db.execute(
      sql`insert into "user" (id, name, email) values ('bench-buyer', 'Bench', 'bench@example.com')`,
    )
    await db.execute(sql`alter table order_items disable trigger order_items_maintain_book_sales`)
    await db.execute(sql`
      with catalogue as (select array_agg(id order by id) as ids, count(*)::int as n from books),
      sale as (
        select g, ${end.toISOString()}::timestamptz - (g::float8 / ${ORDERS}) * interval '${sql.raw(String(DAYS))} days' as paid_at,
          1999 + (g % 3) * 1000 as gross,
          case when g % 5 = 0 then 'EUR' else 'USD' end as currency,
          case when g % 5 <> 0 then null when g % 2 = 0 then 'DE' else 'FR' end as country
        from generate_series(1, ${ORDERS}) as g
      ),
      taxed as (
        select *, case country when 'DE' then 1900 when 'FR' then 550 else 0 end as rate from sale
      ),
      priced as (
        select *, floor((2 * gross * rate + (10000 + rate)) / (2 * (10000 + rate)))::int as tax from taxed
      ),
      made as (
        insert into orders (user_id, status, paid_at, total_cents, net_cents, tax_cents, tax_country,
          billing_country, currency, idempotency_key, attempt_id, payment_provider, payment_reference)
        select 'bench-buyer', case when g % 33 = 0 then 'refunded' else 'paid' end, paid_at, gross, gross - tax, tax,
          country, coalesce(country, 'US'), currency, 'bench-' || g, 'bench-' || g, 'test', 'bench-' || g
        from priced
        returning id, total_cents, net_cents, tax_cents, currency, tax_country
      )
      insert into order_items (order_id, book_id, title, price_cents, list_price_cents, currency, tax_rate_bp,
        net_cents, tax_cents, gross_cents)
      select made.id, catalogue.ids[1 + abs(hashtext(made.id::text)) % catalogue.n], 'A book', total_cents,
        total_cents, currency, case tax_country when 'DE' then 1900 when 'FR' then 550 else 0 end,
        net_cents, tax_cents, total_cents
      from made, catalogue`)
    await db.execute(sql`alter table order_items enable trigger order_items_maintain_book_sales`)
    await db.execute(sql`
      insert into order_refunds (order_id, status, amount_cents, net_cents, tax_cents, currency, lines,
        requested_by, requested_at, confirmed_at)
      select o.id, case when o.status = 'refunded' then 'confirmed' else 'requested' end, o.total_cents,
        o.net_cents, o.tax_cents, o.currency,
        jsonb_build_array(jsonb_build_object('bookId', i.book_id, 'netCents', i.net_cents, 'taxCents',
          i.tax_cents, 'grossCents', i.gross_cents)),
        'bench', o.paid_at + interval '3 days',
        case when o.status = 'refunded' then o.paid_at + interval '3 days' end
      from orders o join order_items i on i.order_id = o.id
      where o.status = 'refunded' or o.number % 97 = 0`)
  })
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
    await measure(`${label}: money per day (orders, refunds)`, () =>
      getMoneyByDay(db, { from: range.from, to: range.to, timeZone: 'UTC' }),
    )
    await measure(`${label}: previous period`, () => readPeriod(db, range.previous))
    await measure(`${label}: top books by revenue`, () => topBooks(db, range, 'revenue'))
    await measure(`${label}: top books by views`, () => topBooks(db, range, 'views'))
    await measure(`${label}: zero-result searches`, () => zeroResultSearches(db, range))
  }
  console.table(rows)
  const worst = Math.max(...Object.values(rows).map((row) => row['p95 ms']!))
  console.log(`worst p95: ${worst} ms (target: under 200 ms)`)
}

/** The accounts page for a month, a quarter and the last 365 days, and that year's files, once each. */
async function timeAccounts(db: Db, end: Date) {
  const today = utcDay(end)
  const quarter = `${today.slice(0, 4)}-Q${Math.ceil(Number(today.slice(5, 7)) / 3)}`
  const yearAgo = utcDay(new Date(end.getTime() - 364 * 86_400_000))
  const periods = {
    month: `period=month&month=${today.slice(0, 7)}`,
    quarter: `period=quarter&quarter=${quarter}`,
    year: `period=custom&from=${yearAgo}&to=${today}`,
  }
  const rows: Record<string, Record<string, number>> = {}
  for (const [label, query] of Object.entries(periods)) {
    const resolved = resolvePeriod(periodForm(new URLSearchParams(query), today), 'UTC')
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.errors))
    const { period } = resolved
    const times = { money: [] as number[], tax: [] as number[] }
    for (let index = 0; index < WARMUP + 10; index++) {
      let started = performance.now()
      await getMoney(db, period)
      if (index >= WARMUP) times.money.push(performance.now() - started)
      started = performance.now()
      await getTaxReturn(db, period)
      if (index >= WARMUP) times.tax.push(performance.now() - started)
    }
    for (const [what, list] of Object.entries(times)) {
      list.sort((a, b) => a - b)
      rows[`accounts ${label}: ${what === 'money' ? 'gross/refunds/tax/net' : 'tax per country and rate'}`] =
        {
          'p50 ms': Number(percentile(list, 50).toFixed(1)),
          'p95 ms': Number(percentile(list, 95).toFixed(1)),
          'max ms': Number(list.at(-1)!.toFixed(1)),
        }
    }
    if (label !== 'year') continue
    const drain = async (stream: ReadableStream<Uint8Array>) => {
      let bytes = 0
      for await (const chunk of stream) bytes += chunk.byteLength
      return bytes
    }
    for (const [what, make] of [
      ['orders CSV', () => accountsCsv(db, period, 'orders')],
      ['XLSX workbook', () => accountsWorkbook(db, period)],
    ] as const) {
      const heapBefore = process.memoryUsage().heapUsed
      const started = performance.now()
      const bytes = await drain(make())
      console.log(
        `${what} of ${period.label}: ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s (heap ${((process.memoryUsage().heapUsed - heapBefore) / 1e6).toFixed(0)} MB more at the end)`,
      )
    }
  }
  console.table(rows)
}
