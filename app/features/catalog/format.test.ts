import { expect, test } from 'vitest'
import { formatFileSize, formatPrice } from './format.ts'

test('prices show whole dollars as the seed did, and cents when there are any', () => {
  expect(formatPrice(9900, 'USD')).toBe('$99')
  expect(formatPrice(1950, 'USD')).toBe('$19.50')
  expect(formatPrice(0, 'USD')).toBe('$0')
  expect(formatPrice(4900, 'EUR')).toBe('€49')
})

test('dollars are written without Intl exactly as Intl writes them', () => {
  for (const cents of [0, 1, 5, 99, 100, 1950, 9900, 123456, 100000000, -5, -123450, 2999, 10001]) {
    const intl = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: cents % 100 === 0 ? 0 : 2,
    }).format(cents / 100)
    expect(formatPrice(cents, 'USD'), String(cents)).toBe(intl)
  }
})

test('file sizes read like a file manager', () => {
  expect(formatFileSize(5 * 1024 * 1024)).toBe('5 MB')
  expect(formatFileSize(2.5 * 1024 * 1024)).toBe('2.5 MB')
  expect(formatFileSize(12.4 * 1024 * 1024)).toBe('12 MB')
  expect(formatFileSize(800 * 1024)).toBe('800 KB')
})
