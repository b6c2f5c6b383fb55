import { expect, test } from 'vitest'
import { memoizeLocales } from './locale-memo.server.ts'
import { DEFAULT_LOCALE, resolveLocale } from './locale.ts'

test('answers as resolveLocale does, resolving each header value once', () => {
  const resolved: string[] = []
  const localeOf = memoizeLocales((header) => {
    resolved.push(header)
    return resolveLocale(header)
  })
  for (let round = 0; round < 3; round++) {
    expect(localeOf('de-DE,de;q=0.9')).toBe('de-DE')
    expect(localeOf('de-DE-u-ca-buddhist, en;q=0.1')).toBe('de-DE')
    expect(localeOf('x-pig-latin')).toBe(DEFAULT_LOCALE)
    expect(localeOf(null)).toBe(DEFAULT_LOCALE)
    expect(localeOf('')).toBe(DEFAULT_LOCALE)
  }
  expect(resolved).toEqual(['de-DE,de;q=0.9', 'de-DE-u-ca-buddhist, en;q=0.1', 'x-pig-latin'])
})

test('bounded: past its entries or its headers’ length, the least recently used are resolved again', () => {
  const resolved: string[] = []
  const localeOf = memoizeLocales(
    (header) => {
      resolved.push(header)
      return resolveLocale(header)
    },
    { maxEntries: 2, maxHeaderChars: 100 },
  )
  localeOf('de')
  localeOf('fr')
  localeOf('it')
  localeOf('de')
  expect(resolved).toEqual(['de', 'fr', 'it', 'de'])
  // A header longer than the whole bound is answered, never kept.
  const long = `en-US,${'x'.repeat(200)}`
  expect(localeOf(long)).toBe('en-US')
  expect(localeOf(long)).toBe('en-US')
  expect(resolved.filter((header) => header === long)).toHaveLength(2)
})
