import { describe, expect, test } from 'vitest'
import type { BookLine } from '#app/features/cart/book-line.ts'
import {
  buyerCurrencyOf,
  currencyFallbackMessage,
  currencyOfCountry,
  currencyOptions,
  priceAtRate,
} from './currencies.ts'
import { booksToLookUp, linesInCurrency } from './lines-in-currency.ts'

const offered = ['USD', 'EUR', 'GBP']
const nobody = { chosen: null, billingCountry: null, ipCountry: null }

describe('the buyer’s currency', () => {
  test('their choice first, if the store still offers it', () => {
    expect(buyerCurrencyOf({ ...nobody, chosen: 'GBP', ipCountry: 'FR' }, offered)).toBe('GBP')
    expect(buyerCurrencyOf({ ...nobody, chosen: 'CHF', ipCountry: 'FR' }, offered)).toBe('EUR')
  })

  test('else their country’s: the billing country they named, else their address’s', () => {
    expect(buyerCurrencyOf({ ...nobody, ipCountry: 'FR' }, offered)).toBe('EUR')
    expect(buyerCurrencyOf({ ...nobody, ipCountry: 'GB' }, offered)).toBe('GBP')
    expect(buyerCurrencyOf({ ...nobody, billingCountry: 'GB', ipCountry: 'FR' }, offered)).toBe('GBP')
    // Croatia (2023) and Bulgaria (2026) joined the euro; Poland and Sweden did not.
    expect(currencyOfCountry('HR')).toBe('EUR')
    expect(currencyOfCountry('BG')).toBe('EUR')
    expect(currencyOfCountry('PL')).toBe('PLN')
    expect(currencyOfCountry('SE')).toBe('SEK')
  })

  test('else the base currency: a country whose currency is not offered, or no country at all', () => {
    expect(buyerCurrencyOf({ ...nobody, ipCountry: 'CH' }, offered)).toBe('USD')
    expect(buyerCurrencyOf({ ...nobody, billingCountry: 'SE', ipCountry: 'FR' }, offered)).toBe('USD')
    expect(buyerCurrencyOf(nobody, offered)).toBe('USD')
    expect(buyerCurrencyOf({ ...nobody, ipCountry: 'FR' }, ['GBP', 'USD'])).toBe('GBP')
  })

  test('the form’s list names each currency', () => {
    expect(currencyOptions(offered)).toEqual([
      { code: 'USD', name: 'US Dollar' },
      { code: 'EUR', name: 'Euro' },
      { code: 'GBP', name: 'British Pound' },
    ])
  })
})

const book = (bookId: string, priceCents: number, extra: Partial<BookLine> = {}): BookLine => ({
  bookId,
  slug: bookId,
  title: `Book ${bookId.toUpperCase()}`,
  coverPath: '/covers/x.svg',
  priceCents,
  currency: 'USD',
  ...extra,
})

describe('a cart is paid in one currency', () => {
  test('every line has a price in the buyer’s currency: all in it', () => {
    const { lines, fallback } = linesInCurrency(
      [book('a', 1999), book('b', 4999)],
      'EUR',
      new Map([
        ['a', 1799],
        ['b', 4599],
      ]),
    )
    expect(lines.map((line) => [line.priceCents, line.currency])).toEqual([
      [1799, 'EUR'],
      [4599, 'EUR'],
    ])
    expect(fallback).toBeNull()
  })

  test('one line without: every line at its own price, and the cart says which', () => {
    const cart = [book('a', 1999), book('b', 4999)]
    const { lines, fallback } = linesInCurrency(cart, 'EUR', new Map([['a', 1799]]))
    expect(lines).toEqual(cart)
    expect(fallback).toEqual({ wanted: 'EUR', titles: ['Book B'] })
    expect(currencyFallbackMessage(fallback!, ['USD'])).toBe(
      'Some books have no EUR price, so your cart is in USD: Book B.',
    )
  })

  test('a bundle’s share and an amount the reader chose stay in their own currency', () => {
    const bundle = { id: 'x', slug: 'x', title: 'The Go Bundle' }
    const prices = new Map([
      ['a', 1799],
      ['b', 1799],
      ['c', 1799],
    ])
    const cart = [
      book('a', 1000, { bundle }),
      book('b', 1000, { bundle }),
      book('c', 500, { amountChosen: true }),
    ]
    expect(linesInCurrency(cart, 'EUR', prices).fallback).toEqual({
      wanted: 'EUR',
      titles: ['The Go Bundle', 'Book C'],
    })
    // Nothing to look up: the cart cannot be in euros whatever the prices.
    expect(booksToLookUp(cart, 'EUR')).toEqual([])
    // In the base currency they are what they are.
    expect(linesInCurrency(cart, 'USD', new Map()).fallback).toBeNull()
  })

  test('a book in another currency of its own is priced in the buyer’s if it has a price there', () => {
    const euroBook = book('e', 2500, { currency: 'EUR' })
    expect(booksToLookUp([book('a', 1999), euroBook], 'USD')).toEqual(['e'])
    const { lines } = linesInCurrency([book('a', 1999), euroBook], 'USD', new Map([['e', 2700]]))
    expect(lines.map((line) => `${line.priceCents} ${line.currency}`)).toEqual(['1999 USD', '2700 USD'])
  })
})

test('a price at the owner’s rate is written as shops write them: the nearest whole amount less a cent', () => {
  expect(priceAtRate(1900, 0.92)).toBe(1699) // 17.48 → 17 → 16.99
  expect(priceAtRate(1900, 0.95)).toBe(1799) // 18.05 → 18 → 17.99
  expect(priceAtRate(9900, 0.92)).toBe(9099) // 91.08 → 91 → 90.99
  expect(priceAtRate(10, 0.5)).toBe(99) // never below 0.99
  expect(priceAtRate(0, 0.92)).toBe(0) // a free book stays free
})
