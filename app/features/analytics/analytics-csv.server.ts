import { csvText } from '#app/server/csv.server.ts'
import type { AnalyticsDashboard } from './dashboard.server.ts'

/**
 * The dashboard's days as CSV: the counts, the orders paid, then gross sales, refunds, tax and net revenue for
 * each currency sold in during the period (the main one first; its own four columns each, so that no column
 * ever adds cents of two currencies). A store that sold nothing gets the main currency's columns, at 0.
 */
export function analyticsCsv(dashboard: AnalyticsDashboard): string {
  const currencies = [
    dashboard.currency,
    ...dashboard.money.map((money) => money.currency).filter((currency) => currency !== dashboard.currency),
  ]
  const money = new Map(dashboard.moneyByDay.map((row) => [`${row.day}:${row.currency}`, row]))
  const orders = new Map<string, number>()
  for (const row of dashboard.moneyByDay) orders.set(row.day, (orders.get(row.day) ?? 0) + row.orders)
  const header = [
    'day',
    'visitors',
    'page_views',
    'book_views',
    'add_to_cart',
    'begin_checkout',
    'orders',
    ...currencies.flatMap((currency) =>
      ['gross_sales', 'refunds', 'tax', 'net_revenue'].map((figure) => `${figure}_${currency}`),
    ),
  ]
  const rows = dashboard.days.map((day) => [
    day.day,
    day.visitors,
    day.pageViews,
    day.bookViews,
    day.addToCarts,
    day.checkouts,
    orders.get(day.day) ?? 0,
    ...currencies.flatMap((currency) => {
      const figures = money.get(`${day.day}:${currency}`)
      return [
        figures?.grossCents ?? 0,
        figures?.refundsCents ?? 0,
        figures?.taxCents ?? 0,
        figures?.netCents ?? 0,
      ].map((cents) => ({ cents }))
    }),
  ])
  return csvText(header, rows)
}
