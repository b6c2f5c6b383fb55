import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { asc, eq, lt, sql } from 'drizzle-orm'
import express from 'express'
import type { ServerBuild } from 'react-router'
import { describe, expect } from 'vitest'
import { getAnalyticsDashboard } from '#app/features/analytics/dashboard.server.ts'
import { createAnalyticsSink, recordPurchase } from '#app/features/analytics/record.server.ts'
import { resolveRange } from '#app/features/analytics/range.ts'
import { applyAnalyticsRetention } from '#app/features/analytics/retention.server.ts'
import { utcDay } from '#app/features/analytics/visitor.server.ts'
import { writeEvents } from '#app/features/analytics/write.server.ts'
import { loader as exportLoader } from '#app/routes/admin/analytics-export.ts'
import { loader as analyticsLoader } from '#app/routes/admin/analytics.tsx'
import { loader as bookLoader } from '#app/routes/book.tsx'
import { action as cartAction } from '#app/routes/cart.tsx'
import { action as checkoutAction, loader as checkoutLoader } from '#app/routes/checkout.tsx'
import { loader as searchLoader } from '#app/routes/search.tsx'
import routes from '#app/routes.ts'
import type { RecordedEvent } from '#app/server/analytics-sink.server.ts'
import { createBatchBuffer } from '#app/server/batch-buffer.server.ts'
import {
  analyticsEvents,
  analyticsSalts,
  books,
  orders,
  type AnalyticsEventName,
} from '#app/server/db/schema/index.server.ts'
import { createLogger, type Logger } from '#app/server/logger.server.ts'
import { answerCachedPagesFirst } from '#server/cache-hits.ts'
import { PageCache } from '#server/page-cache.ts'
import { pageViewCounter, recordPageViews } from '#server/page-views.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { addToCart, requireUserCart } from '#app/features/cart/cart.server.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

let database: TestDatabase
let bookIds: string[]
let admin: Awaited<ReturnType<typeof createAdmin>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  bookIds = (await database.db.select({ id: books.id }).from(books).orderBy(asc(books.slug))).map(
    (row) => row.id,
  )
  admin = await createAdmin(database.db)
})

const browser =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0 Safari/537.36'
const silent = createLogger('silent')

async function flush() {
  await servicesFor(database.db).analytics.flush()
}

/** An analytics sink of the test's own on this database, writing every `intervalMs`. */
function sinkEvery(intervalMs: number) {
  return createAnalyticsSink({ db: database.db, logger: silent, site: 'localhost', intervalMs })
}

/** A sink that writes only when told (its minute never comes within a test). */
const idleSink = () => sinkEvery(60_000)

async function eventsOf(name: AnalyticsEventName) {
  return database.db.select().from(analyticsEvents).where(eq(analyticsEvents.name, name))
}

/** Events of a past day, written as a batch would write them. */
async function writeOn(day: string, events: Array<Omit<RecordedEvent, 'occurredAt'>>, hour = 12) {
  const occurredAt = new Date(`${day}T${String(hour).padStart(2, '0')}:00:00Z`)
  await writeEvents(
    database.db,
    events.map((event) => ({ ...event, occurredAt })),
    { site: 'localhost:3000', saltCache: new Map() },
  )
}

const someone = { ip: '203.0.113.7', userAgent: browser }
const times = <T>(n: number, make: (index: number) => T) =>
  Array.from({ length: n }, (_, index) => make(index))

async function dashboardFor(query: string) {
  const result = await analyticsLoader(
    routeArgs({ db: database.db, path: `/admin/analytics?${query}`, cookie: admin.cookie }),
  )
  if ('type' in result) throw new Error(`expected the page, got ${JSON.stringify(result)}`)
  return result.dashboard
}

describe('recording', () => {
  test('a search is recorded with its query and result count; DNT, Sec-GPC and bots record nothing', async () => {
    const search = (query: string, headers: Record<string, string>) =>
      searchLoader(
        routeArgs({ db: database.db, path: `/search?q=${encodeURIComponent(query)}`, init: { headers } }),
      )
    await search('dnt-qqzzx', { 'User-Agent': browser, DNT: '1' })
    await search('gpc-qqzzx', { 'User-Agent': browser, 'Sec-GPC': '1' })
    await search('bot-qqzzx', { 'User-Agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' })
    await search('counted-qqzzx', { 'User-Agent': browser })
    await search('javascript', { 'User-Agent': browser })
    await flush()
    const searches = await eventsOf('search')
    expect(searches.map((event) => event.query).toSorted()).toEqual(['counted-qqzzx', 'javascript'])
    expect(searches.find((event) => event.query === 'counted-qqzzx')?.resultCount).toBe(0)
    expect(searches.find((event) => event.query === 'javascript')?.resultCount).toBeGreaterThan(0)
  })

  test('no IP address and no user agent are stored: a per-day visitor hash instead', async () => {
    const ip = '198.51.100.23'
    const cookie = (await createReader(database.db)).cookie
    const result = await cartAction(
      routeArgs({
        db: database.db,
        path: '/cart',
        cookie,
        clientIp: ip,
        init: {
          method: 'POST',
          headers: { 'User-Agent': `${browser} Uniq7781` },
          body: new URLSearchParams({
            intent: 'add',
            bookId: bookIds[0]!,
          }),
        },
      }),
    )
    expect(result).toBeInstanceOf(Response)
    await flush()
    const [added] = await eventsOf('add_to_cart')
    expect(added).toMatchObject({ bookId: bookIds[0], visitor: expect.stringMatching(/^[\w-]{22}$/) })
    const everything = JSON.stringify(await database.db.execute(sql`select * from analytics_events`))
    expect(everything).not.toContain(ip)
    expect(everything).not.toContain('Uniq7781')
    expect(everything).not.toContain('Mozilla')
  })

  test('the same visitor has one id all day and another the next day; old salts are deleted', async () => {
    const day1 = '2024-05-01'
    const day2 = '2024-05-02'
    await writeOn(day1, [{ name: 'search', client: someone, query: 'rotate-a', resultCount: 1 }], 9)
    await writeOn(day1, [{ name: 'search', client: someone, query: 'rotate-b', resultCount: 1 }], 20)
    await writeOn(day2, [{ name: 'search', client: someone, query: 'rotate-c', resultCount: 1 }], 9)
    const ids = Object.fromEntries(
      (await eventsOf('search'))
        .filter((event) => event.query?.startsWith('rotate-'))
        .map((event) => [event.query, event.visitor]),
    )
    expect(ids['rotate-a']).toBe(ids['rotate-b'])
    expect(ids['rotate-c']).not.toBe(ids['rotate-a'])
    // One visitor that day, however many events.
    const dashboard = await dashboardFor(`range=custom&from=${day1}&to=${day2}`)
    expect(dashboard.days.map((day) => day.visitors)).toEqual([1, 1])

    await applyAnalyticsRetention(database.db, { retentionDays: 400, now: new Date('2024-05-03T01:00:00Z') })
    const salts = await database.db.select({ day: analyticsSalts.day }).from(analyticsSalts)
    expect(salts.filter((salt) => salt.day < '2024-05-03')).toEqual([])
  })

  test('events wait in memory and are written in one batch off the request; a failing batch is logged and dropped', async () => {
    const sink = sinkEvery(100)
    const before = (await eventsOf('download')).length
    for (let index = 0; index < 3; index++)
      sink.push({ name: 'download', occurredAt: new Date(), client: someone, bookSlug: 'batch-test' })
    // Nothing is written while the request is answered.
    expect((await eventsOf('download')).length).toBe(before)
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect((await eventsOf('download')).length).toBe(before + 3)

    const logged: unknown[] = []
    const logger = { error: (...args: unknown[]) => logged.push(args), warn: () => {} } as unknown as Logger
    const batches: number[] = []
    const failing = createBatchBuffer<number>({
      write: async (items) => {
        batches.push(items.length)
        throw new Error('database unavailable')
      },
      logger,
      what: 'test events',
      maxBatch: 2,
    })
    expect(() => [1, 2, 3].forEach((item) => failing.push(item))).not.toThrow()
    await failing.stop()
    expect(batches).toEqual([2, 1])
    expect(logged).toHaveLength(2)
  })

  test('the checkout page records begin_checkout, and paying by card records the purchase with its value', async () => {
    const reader = await createReader(database.db)
    await addToCart(database.db, await requireUserCart(database.db, reader.userId), bookIds[5]!)
    const headers = { 'User-Agent': browser }
    await flush()
    const checkoutsBefore = (await eventsOf('begin_checkout')).length
    const page = await checkoutLoader(
      routeArgs({ db: database.db, path: '/checkout', cookie: reader.cookie, init: { headers } }),
    )
    if (page.step !== 'pay') throw new Error('expected the payment step')
    const paid = await checkoutAction(
      routeArgs({
        db: database.db,
        path: '/checkout',
        cookie: reader.cookie,
        init: {
          method: 'POST',
          headers,
          body: new URLSearchParams({
            billingCountry: 'US',
            pricedCountry: 'US',
            name: 'Ada Reader',
            number: '4242 4242 4242 4242',
            expiry: '12/34',
            cvc: '123',
            idempotencyKey: page.checkout.idempotencyKey,
            attemptId: page.checkout.attemptId,
          }),
        },
      }),
    )
    expect(paid).toBeInstanceOf(Response)
    const orderId = (paid as Response).headers.get('Location')!.split('/').at(-1)!
    await flush()
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId))
    const [purchase] = (await eventsOf('purchase')).filter((event) => event.orderId === orderId)
    expect(purchase).toMatchObject({
      valueCents: order!.totalCents,
      currency: order!.currency,
      items: [{ bookId: bookIds[5], cents: order!.totalCents }],
    })
    expect((await eventsOf('begin_checkout')).length).toBe(checkoutsBefore + 1)
  })

  test('stopping the sink writes what is still waiting', async () => {
    const sink = idleSink()
    const before = (await eventsOf('begin_checkout')).length
    sink.push({ name: 'begin_checkout', occurredAt: new Date(), client: someone })
    await sink.stop()
    expect((await eventsOf('begin_checkout')).length).toBe(before + 1)
  })

  test('page views: the route template and an external referrer host only; not .data, files, /admin, errors or bots', async () => {
    const sink = idleSink()
    const app = express()
    app.use(recordPageViews({ build: buildOf(routes), sink, ownHosts: ['shop.example'], logger: silent }))
    app.use((req, res) => {
      if (req.path === '/missing') res.status(404)
      res.type(req.path.endsWith('.data') ? 'text/x-script' : 'html').send('<p>page</p>')
    })
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const visit = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, { headers: { 'User-Agent': browser, ...headers } }).then((res) => res.text())
    try {
      await visit('/books/javascript-basics-to-advance?utm_source=x', {
        Referer: 'https://news.example.org/item?id=42',
      })
      await visit('/search?q=secret+words', { Referer: 'https://shop.example/books/x' })
      await visit('/', { Referer: `${base}/cart` })
      await visit('/books/javascript-basics-to-advance.data')
      await visit('/favicon.ico')
      await visit('/admin/analytics')
      await visit('/missing')
      await visit('/cart', { DNT: '1' })
      await visit('/cart', { 'User-Agent': 'Mozilla/5.0 (compatible; bingbot/2.0)' })
      await visit('/orders/7b0c7e56-1c55-4d2c-9a58-0d3f0b2a9a11')
    } finally {
      server.close()
    }
    const since = new Date(Date.now() - 60_000)
    await sink.stop()
    const views = (await eventsOf('page_view')).filter((event) => event.occurredAt > since)
    expect(views.map((event) => [event.path, event.referrerHost])).toEqual([
      ['/books/:slug', 'news.example.org'],
      ['/search', null],
      ['/', null],
      ['/orders/:orderId', null],
    ])
    const [item] = (await eventsOf('view_item')).filter((event) => event.occurredAt > since)
    const [book] = await database.db
      .select({ id: books.id })
      .from(books)
      .where(eq(books.slug, 'javascript-basics-to-advance'))
    expect(item?.bookId).toBe(book!.id)
  })
})

test('a page answered from the page cache before the page-view middleware is a page view too (issue 35)', async () => {
  const sink = idleSink()
  const pageCache = new PageCache({
    ttlMs: 60_000,
    maxEntries: 10,
    maxBytes: 1024 * 1024,
    visitorKey: async () => 'anyone',
    policy: () => "script-src 'self'",
  })
  const slug = 'javascript-basics-to-advance'
  const page = '<p>a book</p>'
  const rendered = new Response(page, { headers: { 'Content-Type': 'text/html; charset=utf-8' } })
  const key = await pageCache.keyFor({
    method: 'GET',
    path: `/books/${slug}`,
    originalUrl: `/books/${slug}`,
    headers: {},
  } as express.Request)
  pageCache.store(key!, rendered, page, 'n0nce', [])
  const options = { build: buildOf(routes), sink, ownHosts: ['shop.example'], logger: silent }
  const app = express()
  app.use(recordPageViews(options))
  // Nothing but the cache answers a page here.
  app.use((_req, res) => res.status(500).send('not from the cache'))
  const server = http
    .createServer(
      answerCachedPagesFirst(app, { pageCache, watchers: [], countPageView: pageViewCounter(options) }),
    )
    .listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const since = new Date(Date.now() - 1)
  try {
    for (let visit = 0; visit < 2; visit++) {
      const response = await fetch(`${base}/books/${slug}`, {
        headers: { 'User-Agent': browser, Referer: 'https://news.example.org/' },
      })
      expect(response.headers.get('x-page-cache')).toBe('hit')
      expect(await response.text()).toBe(page)
    }
    // A bot's hit is answered, not counted, as a rendered page's would be.
    const bot = await fetch(`${base}/books/${slug}`, { headers: { 'User-Agent': 'Googlebot/2.1' } })
    expect(bot.headers.get('x-page-cache')).toBe('hit')
  } finally {
    server.close()
  }
  await sink.stop()
  const views = (await eventsOf('page_view')).filter((event) => event.occurredAt > since)
  expect(views.map((event) => [event.path, event.referrerHost])).toEqual([
    ['/books/:slug', 'news.example.org'],
    ['/books/:slug', 'news.example.org'],
  ])
  expect((await eventsOf('view_item')).filter((event) => event.occurredAt > since)).toHaveLength(2)
})

describe('one book view per page view', () => {
  const slug = 'django-framework'
  const bookViews = async (since: Date) =>
    (await eventsOf('view_item')).filter((event) => event.occurredAt > since).length

  test('the page opened as a document counts once; its return after adding to the cart without JavaScript does not', async () => {
    const sink = idleSink()
    const app = express()
    app.use(recordPageViews({ build: buildOf(routes), sink, ownHosts: ['shop.example'], logger: silent }))
    app.use((_req, res) => res.type('html').send('<p>page</p>'))
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const since = new Date(Date.now() - 1)
    const visit = (path: string, referer: string) =>
      fetch(`${base}${path}`, { headers: { 'User-Agent': browser, Referer: referer } }).then((res) =>
        res.text(),
      )
    try {
      await visit(`/books/${slug}`, `${base}/AllBooks`)
      // 'Add To Cart' posted to /cart, which answered 303 back to the book: the browser's GET names the book.
      await visit(`/books/${slug}`, `${base}/books/${slug}`)
      await visit(`/books/${slug}`, `https://shop.example/books/${slug}`)
    } finally {
      server.close()
    }
    await sink.stop()
    expect(await bookViews(since)).toBe(1)
  })

  test("a client-side navigation to the book counts once; React Router revalidating it after the page's action does not", async () => {
    await flush()
    const since = new Date(Date.now() - 1)
    const fetchBook = (referer: string) =>
      bookLoader(
        routeArgs({
          db: database.db,
          path: `/books/${slug}`,
          params: { slug },
          dataRequest: true,
          init: { headers: { 'User-Agent': browser, Referer: referer } },
        }),
      )
    await fetchBook('http://localhost:3000/AllBooks')
    // After 'Add To Cart' (a fetcher posting to /cart), the book's loader is fetched again from the book's page.
    await fetchBook(`http://localhost:3000/books/${slug}`)
    await fetchBook(`http://localhost:3000/books/${slug}?sort=helpful`)
    await flush()
    expect(await bookViews(since)).toBe(1)
  })
})

describe('the dashboard', () => {
  // A week of 2025 and the week before it, which no other test writes to.
  const week = [
    '2025-01-01',
    '2025-01-02',
    '2025-01-03',
    '2025-01-04',
    '2025-01-05',
    '2025-01-06',
    '2025-01-07',
  ]

  test('revenue, orders, visitors, funnel rates, top books and empty searches match what was recorded', async () => {
    const buyer = await createBuyer(database.db, [bookIds[1]!, bookIds[2]!])
    // Money is read from the orders (decision 039): the order as if paid on the day its purchase was recorded.
    await database.db
      .update(orders)
      .set({ paidAt: new Date(`${week[2]}T12:00:00Z`) })
      .where(eq(orders.id, buyer.orderId))
    const [order] = await database.db.select().from(orders).where(eq(orders.id, buyer.orderId))
    const visitor = (n: number) => ({ ip: `192.0.2.${n}`, userAgent: browser })
    await writeOn(week[0]!, [
      ...times(10, (i) => ({ name: 'view_item' as const, client: visitor(i % 5), bookId: bookIds[1]! })),
      ...times(4, (i) => ({ name: 'add_to_cart' as const, client: visitor(i), bookId: bookIds[1]! })),
      ...times(2, (i) => ({ name: 'begin_checkout' as const, client: visitor(i) })),
      { name: 'search', client: visitor(1), query: 'kotlin', resultCount: 0 },
      { name: 'search', client: visitor(2), query: 'kotlin', resultCount: 0 },
      { name: 'search', client: visitor(3), query: 'react', resultCount: 3 },
    ])
    await writeOn(week[2]!, [
      { name: 'purchase', orderId: buyer.orderId },
      ...times(3, () => ({ name: 'view_item' as const, client: visitor(9), bookId: bookIds[3]! })),
    ])
    // The week before: 5 views, no sale.
    await writeOn(
      '2024-12-28',
      times(5, (i) => ({ name: 'view_item' as const, client: visitor(i), bookId: bookIds[1]! })),
    )

    const dashboard = await dashboardFor(`range=custom&from=${week[0]}&to=${week[6]}`)
    expect(dashboard.range).toMatchObject({ from: week[0], to: week[6], days: 7 })
    expect(dashboard.range.previous).toEqual({ from: '2024-12-25', to: '2024-12-31', days: 7 })
    expect(dashboard.currency).toBe(order!.currency)
    expect(dashboard.totals).toMatchObject({
      grossCents: order!.totalCents,
      orders: 1,
      visitors: 5 + 1,
      bookViews: 13,
      addToCarts: 4,
      checkouts: 2,
      searches: 3,
    })
    expect(dashboard.days[2]).toMatchObject({ day: week[2], orders: 1, grossCents: order!.totalCents })
    expect(dashboard.previous).toMatchObject({ bookViews: 5, orders: 0, grossCents: 0, visitors: 5 })
    expect(dashboard.funnel.map((step) => [step.name, step.count, step.rateFromPrevious])).toEqual([
      ['view_item', 13, null],
      ['add_to_cart', 4, 4 / 13],
      ['begin_checkout', 2, 0.5],
      ['purchase', 1, 0.5],
    ])
    expect(dashboard.conversionRate).toBeCloseTo(1 / 13)
    expect(dashboard.topByRevenue.map((book) => book.bookId).toSorted()).toEqual(
      [bookIds[1], bookIds[2]].toSorted(),
    )
    expect(dashboard.topByRevenue.reduce((sum, book) => sum + book.revenueCents, 0)).toBe(order!.totalCents)
    expect(dashboard.topByViews.map((book) => [book.bookId, book.views])).toEqual([
      [bookIds[1], 10],
      [bookIds[3], 3],
    ])
    expect(dashboard.zeroResultSearches).toEqual([{ query: 'kotlin', searches: 2 }])

    // The CSV holds the same series.
    const csv = await exportLoader(
      routeArgs({
        db: database.db,
        path: `/admin/analytics/export.csv?range=custom&from=${week[0]}&to=${week[6]}`,
        cookie: admin.cookie,
      }),
    )
    expect(csv.status).toBe(200)
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(csv.headers.get('Content-Disposition')).toContain(
      `codebook-analytics-${week[0]}-to-${week[6]}.csv`,
    )
    const lines = (await csv.text()).trim().split('\r\n')
    const c = order!.currency
    expect(lines[0]).toBe(
      `day,visitors,page_views,book_views,add_to_cart,begin_checkout,orders,gross_sales_${c},refunds_${c},tax_${c},net_revenue_${c}`,
    )
    expect(lines).toHaveLength(8)
    expect(lines[1]).toBe(`${week[0]},5,0,10,4,2,0,0.00,0.00,0.00,0.00`)
    const amount = (cents: number) => (cents / 100).toFixed(2)
    expect(lines[3]).toBe(
      `${week[2]},1,0,3,0,0,1,${amount(order!.totalCents)},0.00,${amount(order!.taxCents)},${amount(order!.netCents)}`,
    )
  })

  test('a paid order is one purchase however often its payment is confirmed; an unpaid one is none', async () => {
    const buyer = await createBuyer(database.db, [bookIds[4]!])
    const sink = idleSink()
    recordPurchase({ analytics: sink }, buyer.orderId)
    recordPurchase({ analytics: sink }, buyer.orderId)
    await sink.flush()
    recordPurchase({ analytics: sink }, buyer.orderId)
    recordPurchase({ analytics: sink }, '00000000-0000-4000-8000-000000000000')
    await sink.stop()
    const purchases = (await eventsOf('purchase')).filter((event) => event.orderId === buyer.orderId)
    expect(purchases).toHaveLength(1)
    expect(purchases[0]).toMatchObject({ visitor: null, items: [{ bookId: bookIds[4] }] })
    const today = utcDay(new Date())
    const dashboard = await getAnalyticsDashboard(
      database.db,
      (resolveRange(new URLSearchParams('range=7'), today) as { ok: true; range: never }).range,
    )
    expect(dashboard.topByRevenue.some((book) => book.bookId === bookIds[4])).toBe(true)
  })

  test('the retention sweep deletes old raw events and the dashboard shows the same totals', async () => {
    const day = '2023-03-10'
    await writeOn(day, [
      ...times(6, (i) => ({
        name: 'view_item' as const,
        client: { ip: `10.0.0.${i}`, userAgent: browser },
        bookId: bookIds[0]!,
      })),
      { name: 'search', client: someone, query: 'haskell', resultCount: 0 },
    ])
    const query = `range=custom&from=${day}&to=${day}`
    const before = await dashboardFor(query)
    const { deletedEvents } = await applyAnalyticsRetention(database.db, {
      retentionDays: 400,
      now: new Date('2024-06-01T00:00:00Z'),
    })
    expect(deletedEvents).toBeGreaterThanOrEqual(7)
    const left = await database.db
      .select({ id: analyticsEvents.id })
      .from(analyticsEvents)
      .where(lt(analyticsEvents.occurredAt, new Date('2023-03-11T00:00:00Z')))
    expect(left).toEqual([])
    const after = await dashboardFor(query)
    expect(after).toEqual(before)
    expect(after.totals).toMatchObject({ visitors: 7, bookViews: 6, searches: 1 })
    expect(after.zeroResultSearches).toEqual([{ query: 'haskell', searches: 1 }])
  })

  test('presets end today and compare with the same number of days before (the date fields are ignored)', async () => {
    const dashboard = await dashboardFor('range=7&from=nonsense&to=')
    const today = utcDay(new Date())
    expect(dashboard.range).toMatchObject({ choice: '7', to: today, days: 7 })
    expect(dashboard.days).toHaveLength(7)
    expect(dashboard.range.previous.days).toBe(7)
  })
})

describe('who may see it, and what it refuses', () => {
  test('anyone but an admin gets the ordinary 404, page and export alike', async () => {
    const reader = await createReader(database.db)
    for (const cookie of [undefined, reader.cookie]) {
      for (const load of [analyticsLoader, exportLoader]) {
        const thrown = await thrownBy(() =>
          load(routeArgs({ db: database.db, path: '/admin/analytics?range=7', cookie })),
        )
        expect(thrown).toMatchObject({ init: { status: 404 } })
      }
    }
  })

  test.each([
    ['range=13', 'range', 'Choose 7, 30 or 90 days, or a custom range.'],
    ['range=custom', 'from', 'Enter the first day.'],
    ['range=custom&from=2025-02-30&to=2025-03-01', 'from', 'That day does not exist.'],
    ['range=custom&from=yesterday&to=2025-03-01', 'from', 'Enter a date as YYYY-MM-DD.'],
    ['range=custom&from=2025-03-05&to=2025-03-01', 'to', 'The last day must not be before the first.'],
    ['range=custom&from=2020-01-01&to=2025-03-01', 'from', 'Choose at most 366 days.'],
    ['range=custom&from=2025-01-01&to=2999-01-01', 'to', 'The last day cannot be after today'],
  ])('%s → 400 with a message next to %s', async (query, field, message) => {
    const result = await analyticsLoader(
      routeArgs({ db: database.db, path: `/admin/analytics?${query}`, cookie: admin.cookie }),
    )
    expect(result).toMatchObject({ type: 'DataWithResponseInit', init: { status: 400 } })
    const errors = (result as { data: { errors: Record<string, string> } }).data.errors
    expect(errors[field]).toContain(message)

    const csv = await exportLoader(
      routeArgs({ db: database.db, path: `/admin/analytics/export.csv?${query}`, cookie: admin.cookie }),
    )
    expect(csv.status).toBe(400)
    expect(await csv.text()).toContain(message)
  })
})

/** The store's URL map (app/routes.ts) as the route manifest of a build: ids are the route files. */
function buildOf(config: typeof routes): ServerBuild {
  type Entry = { file: string; path?: string; index?: boolean; children?: Entry[] }
  const manifest: Record<string, { id: string; parentId?: string; path?: string; index?: boolean }> = {
    root: { id: 'root', path: '' },
  }
  const add = (entries: Entry[], parentId: string) => {
    for (const entry of entries) {
      const id = entry.file.replace(/\.tsx?$/, '')
      manifest[id] = { id, parentId, path: entry.path, index: entry.index }
      add(entry.children ?? [], id)
    }
  }
  add(config as unknown as Entry[], 'root')
  return { routes: manifest } as unknown as ServerBuild
}
