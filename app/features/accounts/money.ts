/**
 * The four figures of money the back office shows for a period, in one currency (issue 31, decision 039):
 * - gross: what the orders paid in the period were paid, tax included;
 * - refunds: what the refunds confirmed in the period gave back, tax included, whatever period their order
 *   was paid in (a refund is booked when the money went back);
 * - tax: the tax of those orders less the tax those refunds gave back (what is owed for the period);
 * - net: gross − refunds − tax, which is the orders' net less the refunds' net: what the store keeps.
 * Cents of different currencies are never added together: every figure is per currency.
 */
export type MoneyFigures = {
  currency: string
  /** Orders paid in the period. */
  orders: number
  grossCents: number
  /** Refunds confirmed in the period. */
  refunds: number
  refundsCents: number
  taxCents: number
  netCents: number
}

/** Orders paid in a period, in one currency: their count and the sums of their total, net and tax. */
export type PaidSums = {
  currency: string
  orders: number
  grossCents: number
  netCents: number
  taxCents: number
}

/** Refunds confirmed in a period, in one currency: their count and the sums of their amount, net and tax. */
export type RefundSums = {
  currency: string
  refunds: number
  amountCents: number
  netCents: number
  taxCents: number
}

export const noMoney = (currency: string): MoneyFigures => ({
  currency,
  orders: 0,
  grossCents: 0,
  refunds: 0,
  refundsCents: 0,
  taxCents: 0,
  netCents: 0,
})

/** Sales and refunds of a period put together per currency, by currency code. */
export function moneyFigures(paid: readonly PaidSums[], refunded: readonly RefundSums[]): MoneyFigures[] {
  const figures = new Map<string, MoneyFigures>()
  const of = (currency: string) => {
    const found = figures.get(currency) ?? noMoney(currency)
    figures.set(currency, found)
    return found
  }
  for (const sales of paid) {
    const money = of(sales.currency)
    money.orders += sales.orders
    money.grossCents += sales.grossCents
    money.taxCents += sales.taxCents
    money.netCents += sales.netCents
  }
  for (const refund of refunded) {
    const money = of(refund.currency)
    money.refunds += refund.refunds
    money.refundsCents += refund.amountCents
    money.taxCents -= refund.taxCents
    money.netCents -= refund.netCents
  }
  return [...figures.values()].toSorted((a, b) => a.currency.localeCompare(b.currency))
}

/** Figures of several days (or periods) added up per currency, by currency code. */
export function sumMoney(rows: readonly MoneyFigures[]): MoneyFigures[] {
  const sums = new Map<string, MoneyFigures>()
  for (const row of rows) {
    const sum = sums.get(row.currency) ?? noMoney(row.currency)
    sums.set(row.currency, {
      currency: row.currency,
      orders: sum.orders + row.orders,
      grossCents: sum.grossCents + row.grossCents,
      refunds: sum.refunds + row.refunds,
      refundsCents: sum.refundsCents + row.refundsCents,
      taxCents: sum.taxCents + row.taxCents,
      netCents: sum.netCents + row.netCents,
    })
  }
  return [...sums.values()].toSorted((a, b) => a.currency.localeCompare(b.currency))
}

/** The currency that sold most (by gross), or undefined when nothing sold (refunds alone do not make one). */
export function mainCurrency(money: readonly MoneyFigures[]): string | undefined {
  return money
    .filter((figures) => figures.grossCents > 0)
    .toSorted((a, b) => b.grossCents - a.grossCents || a.currency.localeCompare(b.currency))[0]?.currency
}
