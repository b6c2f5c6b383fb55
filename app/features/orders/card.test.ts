import { expect, test } from 'vitest'
import { cardBrand, hasExpired, normalizeCardNumber, parseExpiry, passesLuhn } from './card.ts'

test.each([
  '4242424242424242',
  '4000000000000002',
  '4000000000009995',
  '5555555555554444',
  '378282246310005',
])('%s passes Luhn', (number) => expect(passesLuhn(number)).toBe(true))

test.each(['4242424242424241', '1234567812345678', '42424242', '4242x24242424242', ''])(
  '%s fails Luhn',
  (number) => expect(passesLuhn(number)).toBe(false),
)

test('spaces and dashes are ignored; brands are recognised', () => {
  expect(normalizeCardNumber('4242 4242-4242 4242')).toBe('4242424242424242')
  expect(cardBrand('4242424242424242')).toBe('Visa')
  expect(cardBrand('5555555555554444')).toBe('Mastercard')
  expect(cardBrand('378282246310005')).toBe('American Express')
})

test('expiry: MM/YY or MM/YYYY, good through the end of its month', () => {
  const now = new Date(Date.UTC(2026, 10, 22))
  expect(parseExpiry('11/26')).toEqual({ month: 11, year: 2026 })
  expect(parseExpiry(' 3 / 2031 ')).toEqual({ month: 3, year: 2031 })
  expect(parseExpiry('13/30')).toBeUndefined()
  expect(parseExpiry('1130')).toBeUndefined()
  expect(hasExpired({ month: 11, year: 2026 }, now)).toBe(false)
  expect(hasExpired({ month: 10, year: 2026 }, now)).toBe(true)
  expect(hasExpired({ month: 1, year: 2025 }, now)).toBe(true)
})
