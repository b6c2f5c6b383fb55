import { describe, expect, test } from 'vitest'
import { mainCurrency, moneyFigures, sumMoney } from './money.ts'

describe('moneyFigures', () => {
  test('sales less refunds, per currency: gross − refunds − tax = net, and currencies never mixed', () => {
    const money = moneyFigures(
      [
        { currency: 'EUR', orders: 2, grossCents: 4625, netCents: 4000, taxCents: 625 },
        { currency: 'USD', orders: 1, grossCents: 1100, netCents: 1000, taxCents: 100 },
      ],
      [
        { currency: 'EUR', refunds: 1, amountCents: 2380, netCents: 2000, taxCents: 380 },
        // A refund in a currency nothing sold in this period: its order was paid in an earlier one.
        { currency: 'GBP', refunds: 1, amountCents: 500, netCents: 500, taxCents: 0 },
      ],
    )
    expect(money).toEqual([
      {
        currency: 'EUR',
        orders: 2,
        grossCents: 4625,
        refunds: 1,
        refundsCents: 2380,
        taxCents: 245,
        netCents: 2000,
      },
      {
        currency: 'GBP',
        orders: 0,
        grossCents: 0,
        refunds: 1,
        refundsCents: 500,
        taxCents: 0,
        netCents: -500,
      },
      {
        currency: 'USD',
        orders: 1,
        grossCents: 1100,
        refunds: 0,
        refundsCents: 0,
        taxCents: 100,
        netCents: 1000,
      },
    ])
    for (const figures of money)
      expect(figures.grossCents - figures.refundsCents - figures.taxCents).toBe(figures.netCents)
  })

  test('nothing sold and nothing refunded is no currency at all', () => {
    expect(moneyFigures([], [])).toEqual([])
  })
})

describe('sumMoney and mainCurrency', () => {
  test('days add up per currency; the main currency is the one that sold most, never one of refunds alone', () => {
    const day = (currency: string, grossCents: number, refundsCents = 0) => ({
      currency,
      orders: grossCents > 0 ? 1 : 0,
      grossCents,
      refunds: refundsCents > 0 ? 1 : 0,
      refundsCents,
      taxCents: 0,
      netCents: grossCents - refundsCents,
    })
    const money = sumMoney([day('USD', 1000), day('EUR', 900), day('EUR', 900, 300), day('GBP', 0, 5000)])
    expect(
      money.map((figures) => [figures.currency, figures.orders, figures.grossCents, figures.netCents]),
    ).toEqual([
      ['EUR', 2, 1800, 1500],
      ['GBP', 0, 0, -5000],
      ['USD', 1, 1000, 1000],
    ])
    expect(mainCurrency(money)).toBe('EUR')
    expect(mainCurrency(sumMoney([day('GBP', 0, 5000)]))).toBeUndefined()
  })
})
