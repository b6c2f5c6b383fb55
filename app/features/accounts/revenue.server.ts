import { and, between, eq, gt, gte, lt, or, sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { orderRefunds, orders, revenueDaily } from '#app/server/db/schema/index.server.ts'
import { moneyFigures, type MoneyFigures } from './money.ts'

/**
 * Calendar days from `from` to `to` (both included, 'YYYY-MM-DD') in an IANA time zone: a period of the
 * accounts, or of the dashboard (UTC days).
 */
export type DayBounds = { from: string; to: string; timeZone: string }

/**
 * The first moment of `day` (plus `plusDays`) in `timeZone`, computed by the database: never a JavaScript
 * Date, whose year 10000 PostgreSQL refuses (admin-orders.server.ts tells that story).
 */
export function startOfDay(day: string, timeZone: string, plusDays = 0): SQL {
  return sql`((${day}::date + ${plusDays}::int)::timestamp at time zone ${timeZone})`
}

/** `column` within the period: from its first day's midnight to the midnight after its last day. */
export function inBounds(column: SQLWrapper, bounds: DayBounds): SQL {
  return and(
    gte(column, startOfDay(bounds.from, bounds.timeZone)),
    lt(column, startOfDay(bounds.to, bounds.timeZone, 1)),
  )!
}

const cents = (column: SQL) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number)

/**
 * How the money of a period is read: UTC days from `revenue_daily`, which triggers keep equal to the orders and
 * refunds (a few hundred rows for a year, whatever the number of orders: `npm run bench:analytics`); any other
 * time zone, or `fromOrders` (tests compare the two), from the orders and refunds themselves.
 */
export type MoneySource = { fromOrders?: boolean }

async function sums(db: Db, bounds: DayBounds, byDay: boolean, source: MoneySource) {
  return bounds.timeZone === 'UTC' && !source.fromOrders
    ? dailySums(db, bounds, byDay)
    : orderSums(db, bounds, byDay)
}

/**
 * The sums kept per UTC day, read as they are (a row per day and currency) and added up here when not `byDay`:
 * a few hundred rows, which PGlite sums faster in JavaScript than in its numeric aggregates.
 */
async function dailySums(db: Db, bounds: DayBounds, byDay: boolean) {
  const rows = await db
    .select()
    .from(revenueDaily)
    .where(
      and(
        between(revenueDaily.day, bounds.from, bounds.to),
        // A row whose orders and refunds were all taken back (deleted, moved to another day) holds nothing.
        or(gt(revenueDaily.orders, 0), gt(revenueDaily.refunds, 0)),
      ),
    )
  const day = (row: (typeof rows)[number]) => (byDay ? row.day : '')
  return {
    paid: rows.filter((row) => row.orders > 0).map((row) => ({ ...row, day: day(row) })),
    refunded: rows
      .filter((row) => row.refunds > 0)
      .map((row) => ({
        day: day(row),
        currency: row.currency,
        refunds: row.refunds,
        amountCents: row.refundCents,
        netCents: row.refundNetCents,
        taxCents: row.refundTaxCents,
      })),
  }
}

/**
 * Orders paid in the period (`paid_at` is set exactly when an order was paid, refunded ones included: their
 * refund is booked on its own date) and refunds confirmed in it (`confirmed_at` is set exactly when a refund
 * is confirmed; 'requested' and 'failed' ones have none), summed per currency, and per day when `byDay`.
 * Both are range scans of a partial index on that date, so a period costs what its own rows cost.
 */
async function orderSums(db: Db, bounds: DayBounds, byDay: boolean) {
  const day = (column: SQLWrapper) =>
    byDay ? sql<string>`((${column} at time zone ${bounds.timeZone})::date)::text` : sql<string>`''`
  const paidDay = day(orders.paidAt)
  const refundDay = day(orderRefunds.confirmedAt)
  // By position: the day's expression carries the time zone as a parameter, and PostgreSQL does not see two
  // parameters as the same expression (the select list's and GROUP BY's).
  const byDayAndCurrency = [sql`1`, sql`2`]
  const [paid, refunded] = await Promise.all([
    db
      .select({
        day: paidDay,
        currency: orders.currency,
        orders: sql<number>`count(*)`.mapWith(Number),
        grossCents: cents(sql`${orders.totalCents}`),
        netCents: cents(sql`${orders.netCents}`),
        taxCents: cents(sql`${orders.taxCents}`),
      })
      .from(orders)
      .where(inBounds(orders.paidAt, bounds))
      .groupBy(...byDayAndCurrency),
    db
      .select({
        day: refundDay,
        currency: orderRefunds.currency,
        refunds: sql<number>`count(*)`.mapWith(Number),
        amountCents: cents(sql`${orderRefunds.amountCents}`),
        netCents: cents(sql`${orderRefunds.netCents}`),
        taxCents: cents(sql`${orderRefunds.taxCents}`),
      })
      .from(orderRefunds)
      .where(and(eq(orderRefunds.status, 'confirmed'), inBounds(orderRefunds.confirmedAt, bounds)))
      .groupBy(...byDayAndCurrency),
  ])
  return { paid, refunded }
}

/** Gross, refunds, tax and net of a period, per currency (money.ts says what each means). */
export async function getMoney(db: Db, bounds: DayBounds, source: MoneySource = {}): Promise<MoneyFigures[]> {
  const { paid, refunded } = await sums(db, bounds, false, source)
  return moneyFigures(paid, refunded)
}

export type DayMoney = MoneyFigures & { day: string }

/** The same per calendar day of the period (days without money left out), per currency. */
export async function getMoneyByDay(
  db: Db,
  bounds: DayBounds,
  source: MoneySource = {},
): Promise<DayMoney[]> {
  const { paid, refunded } = await sums(db, bounds, true, source)
  const days = new Map<string, { paid: typeof paid; refunded: typeof refunded }>()
  const of = (day: string) => {
    const found = days.get(day) ?? { paid: [], refunded: [] }
    days.set(day, found)
    return found
  }
  for (const row of paid) of(row.day).paid.push(row)
  for (const row of refunded) of(row.day).refunded.push(row)
  return [...days.keys()]
    .toSorted()
    .flatMap((day) =>
      moneyFigures(days.get(day)!.paid, days.get(day)!.refunded).map((money) => ({ ...money, day })),
    )
}
