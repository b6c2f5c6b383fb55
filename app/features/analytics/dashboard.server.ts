import { and, between, desc, eq, sql, sum } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import {
  analyticsDaily,
  analyticsDailyBooks,
  analyticsDailyVisitors,
  analyticsDailyZeroSearches,
  books,
  type AnalyticsEventName,
} from '#app/server/db/schema/index.server.ts'
import { mainCurrency, noMoney, sumMoney, type MoneyFigures } from '#app/features/accounts/money.ts'
import { getMoneyByDay, type DayMoney } from '#app/features/accounts/revenue.server.ts'
import { addDays, type DayRange, type ResolvedRange } from './range.ts'

/** The money of a day or period in the dashboard's main currency (features/accounts/money.ts says what each is). */
type Money = Pick<MoneyFigures, 'orders' | 'grossCents' | 'refundsCents' | 'taxCents' | 'netCents'>

export type DayFigures = Money & {
  day: string
  visitors: number
  pageViews: number
  bookViews: number
  addToCarts: number
  checkouts: number
}

export type PeriodTotals = Omit<DayFigures, 'day'> & { searches: number; downloads: number }

export type FunnelStep = {
  name: AnalyticsEventName
  label: string
  count: number
  /** Share of the step before (null for the first step, or when the step before is 0). */
  rateFromPrevious: number | null
}

export type TopBook = {
  bookId: string
  title: string
  currency: string
  views: number
  purchases: number
  revenueCents: number
}

export type AnalyticsDashboard = {
  range: ResolvedRange
  /** The currency the per-day money and the totals are in: the one with the most gross sales this period. */
  currency: string
  /** Gross, refunds, tax and net of this period and the one before, in every currency sold in. */
  money: MoneyFigures[]
  previousMoney: MoneyFigures[]
  /** This period's money per day and currency (days without any left out), for the CSV. */
  moneyByDay: DayMoney[]
  days: DayFigures[]
  totals: PeriodTotals
  previous: PeriodTotals
  funnel: FunnelStep[]
  /** purchases ÷ book views, or null without views. */
  conversionRate: number | null
  topByRevenue: TopBook[]
  topByViews: TopBook[]
  zeroResultSearches: Array<{ query: string; searches: number }>
}

const FUNNEL: Array<{ name: AnalyticsEventName; label: string }> = [
  { name: 'view_item', label: 'Viewed a book' },
  { name: 'add_to_cart', label: 'Added to cart' },
  { name: 'begin_checkout', label: 'Began checkout' },
  { name: 'purchase', label: 'Purchased' },
]

const TOP_BOOKS = 10
const TOP_SEARCHES = 20

/**
 * Everything /admin/analytics shows. Visits, views, carts and searches are read from the daily aggregates only
 * (never the raw events), so their cost grows with the number of days and books, not of events. Money is that
 * of the orders and refunds (features/accounts: their sums kept per UTC day), as the accounts and the front page
 * read it: paid orders on their day of payment, confirmed refunds on theirs (decision 039). See
 * `npm run bench:analytics`.
 */
export async function getAnalyticsDashboard(db: Db, range: ResolvedRange): Promise<AnalyticsDashboard> {
  const utcDays = (days: DayRange) => ({ from: days.from, to: days.to, timeZone: 'UTC' })
  const [current, previousPeriod, byDay, previousByDay] = await Promise.all([
    readPeriod(db, range),
    readPeriod(db, range.previous),
    getMoneyByDay(db, utcDays(range)),
    getMoneyByDay(db, utcDays(range.previous)),
  ])
  const money = sumMoney(byDay)
  const previousMoney = sumMoney(previousByDay)
  const currency = mainCurrency(money) ?? mainCurrency(previousMoney) ?? money[0]?.currency ?? 'USD'
  const days = seriesOf(range, current, inCurrency(byDay, currency))
  const totals = totalsOf(days, current)
  const previous = totalsOf(
    seriesOf(range.previous, previousPeriod, inCurrency(previousByDay, currency)),
    previousPeriod,
  )
  const counts = current.counts
  const funnel = FUNNEL.map((step, index) => {
    const count = total(counts, step.name)
    const before = index > 0 ? total(counts, FUNNEL[index - 1]!.name) : 0
    return { ...step, count, rateFromPrevious: index > 0 && before > 0 ? count / before : null }
  })
  const views = funnel[0]!.count
  return {
    range,
    currency,
    money,
    previousMoney,
    moneyByDay: byDay,
    days,
    totals,
    previous,
    funnel,
    conversionRate: views > 0 ? funnel[3]!.count / views : null,
    topByRevenue: await topBooks(db, range, 'revenue'),
    topByViews: await topBooks(db, range, 'views'),
    zeroResultSearches: await zeroResultSearches(db, range),
  }
}

type Period = {
  /** day → event name → count. */
  counts: Map<string, Map<string, number>>
  visitors: Map<string, number>
}

/** One currency's money by day. */
function inCurrency(rows: DayMoney[], currency: string): Map<string, Money> {
  return new Map(rows.filter((row) => row.currency === currency).map((row) => [row.day, row]))
}

export async function readPeriod(db: Db, range: DayRange): Promise<Period> {
  const rows = await db
    .select({
      day: analyticsDaily.day,
      name: analyticsDaily.name,
      events: analyticsDaily.events,
    })
    .from(analyticsDaily)
    .where(between(analyticsDaily.day, range.from, range.to))
  const visitorRows = await db
    .select({ day: analyticsDailyVisitors.day, visitors: analyticsDailyVisitors.visitors })
    .from(analyticsDailyVisitors)
    .where(between(analyticsDailyVisitors.day, range.from, range.to))
  const period: Period = {
    counts: new Map(),
    visitors: new Map(visitorRows.map((row) => [row.day, Number(row.visitors)])),
  }
  for (const row of rows) {
    const events = Number(row.events)
    const names = period.counts.get(row.day) ?? new Map<string, number>()
    names.set(row.name, (names.get(row.name) ?? 0) + events)
    period.counts.set(row.day, names)
  }
  return period
}

function total(counts: Period['counts'], name: string): number {
  let sum = 0
  for (const names of counts.values()) sum += names.get(name) ?? 0
  return sum
}

function seriesOf(range: DayRange, period: Period, moneyByDay: Map<string, Money>): DayFigures[] {
  const none = noMoney('')
  return Array.from({ length: range.days }, (_, index) => {
    const day = addDays(range.from, index)
    const names = period.counts.get(day)
    const count = (name: AnalyticsEventName) => names?.get(name) ?? 0
    const money = moneyByDay.get(day) ?? none
    return {
      day,
      visitors: period.visitors.get(day) ?? 0,
      pageViews: count('page_view'),
      bookViews: count('view_item'),
      addToCarts: count('add_to_cart'),
      checkouts: count('begin_checkout'),
      orders: money.orders,
      grossCents: money.grossCents,
      refundsCents: money.refundsCents,
      taxCents: money.taxCents,
      netCents: money.netCents,
    }
  })
}

function totalsOf(days: DayFigures[], period: Period): PeriodTotals {
  const sumOf = (key: Exclude<keyof DayFigures, 'day'>) => days.reduce((sum, day) => sum + day[key], 0)
  return {
    visitors: sumOf('visitors'),
    pageViews: sumOf('pageViews'),
    bookViews: sumOf('bookViews'),
    addToCarts: sumOf('addToCarts'),
    checkouts: sumOf('checkouts'),
    orders: sumOf('orders'),
    grossCents: sumOf('grossCents'),
    refundsCents: sumOf('refundsCents'),
    taxCents: sumOf('taxCents'),
    netCents: sumOf('netCents'),
    searches: total(period.counts, 'search'),
    downloads: total(period.counts, 'download'),
  }
}

export async function topBooks(db: Db, range: DayRange, by: 'revenue' | 'views'): Promise<TopBook[]> {
  const views = sql<number>`sum(${analyticsDailyBooks.views})`
  const revenue = sql<number>`sum(${analyticsDailyBooks.revenueCents})`
  const measure = by === 'revenue' ? revenue : views
  const top = db
    .select({
      bookId: analyticsDailyBooks.bookId,
      views: views.as('views'),
      purchases: sql<number>`sum(${analyticsDailyBooks.purchases})`.as('purchases'),
      revenueCents: revenue.as('revenue_cents'),
    })
    .from(analyticsDailyBooks)
    .where(between(analyticsDailyBooks.day, range.from, range.to))
    .groupBy(analyticsDailyBooks.bookId)
    .having(sql`${measure} > 0`)
    .orderBy(desc(measure), analyticsDailyBooks.bookId)
    .limit(TOP_BOOKS)
    .as('top')
  const rows = await db
    .select({
      bookId: top.bookId,
      title: books.title,
      currency: books.currency,
      views: top.views,
      purchases: top.purchases,
      revenueCents: top.revenueCents,
    })
    .from(top)
    .leftJoin(books, eq(books.id, top.bookId))
  return rows
    .map((row) => ({
      bookId: row.bookId,
      title: row.title ?? 'A deleted book',
      currency: row.currency ?? 'USD',
      views: Number(row.views),
      purchases: Number(row.purchases),
      revenueCents: Number(row.revenueCents),
    }))
    .sort((a, b) =>
      by === 'revenue' ? b.revenueCents - a.revenueCents || b.views - a.views : b.views - a.views,
    )
}

export async function zeroResultSearches(db: Db, range: DayRange) {
  const searches = sum(analyticsDailyZeroSearches.searches).mapWith(Number)
  return db
    .select({ query: analyticsDailyZeroSearches.query, searches })
    .from(analyticsDailyZeroSearches)
    .where(and(between(analyticsDailyZeroSearches.day, range.from, range.to)))
    .groupBy(analyticsDailyZeroSearches.query)
    .orderBy(desc(searches), analyticsDailyZeroSearches.query)
    .limit(TOP_SEARCHES)
}
