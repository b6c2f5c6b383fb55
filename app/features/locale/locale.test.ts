import { expect, test } from 'vitest'
import { formatDate } from './date-format.ts'
import { DEFAULT_LOCALE, resolveLocale } from './locale.ts'

test('the first supported language the reader ranks highest, normalized to the locale Intl resolves', () => {
  expect(resolveLocale('de-DE')).toBe('de-DE')
  expect(resolveLocale('de-DE,de;q=0.9,en-US;q=0.8,en;q=0.7')).toBe('de-DE')
  expect(resolveLocale('en-US;q=0.5, fr-FR;q=0.8, de;q=0.7')).toBe('fr-FR')
  // Equal weights keep the header's order; a range without q weighs 1.
  expect(resolveLocale('en-GB;q=0.8, ja;q=0.8')).toBe('en-GB')
  expect(resolveLocale('fr;q=0.9, pt-BR')).toBe('pt-BR')
  // A region Intl has no data for falls back to the language; an extension is dropped.
  expect(resolveLocale('de-XX')).toBe('de')
  expect(resolveLocale('en-US-u-ca-buddhist-nu-arab')).toBe('en-US')
  expect(resolveLocale('DE-de')).toBe('de-DE')
})

test('no header, an empty one or only unknown languages: en-US', () => {
  expect(DEFAULT_LOCALE).toBe('en-US')
  expect(resolveLocale(null)).toBe('en-US')
  expect(resolveLocale(undefined)).toBe('en-US')
  expect(resolveLocale('')).toBe('en-US')
  expect(resolveLocale('tlh, zz-ZZ;q=0.9')).toBe('en-US')
  expect(resolveLocale('tlh, de;q=0.1')).toBe('de')
})

test('the wildcard means any language: the store’s own, unless a language is ranked above it', () => {
  expect(resolveLocale('*')).toBe('en-US')
  expect(resolveLocale('*, de;q=0.5')).toBe('en-US')
  expect(resolveLocale('de, *;q=0.5')).toBe('de')
  expect(resolveLocale('tlh, *;q=0.5, de;q=0.1')).toBe('en-US')
})

test('q-values: 0 means not wanted; one that is not a number from 0 to 1 is passed over', () => {
  expect(resolveLocale('de;q=0, fr;q=0.1')).toBe('fr')
  expect(resolveLocale('de;q=abc, fr;q=0.1')).toBe('fr')
  expect(resolveLocale('de;q=1.5, fr;q=0.1')).toBe('fr')
  expect(resolveLocale('de;q=-1, fr;q=0.1')).toBe('fr')
  expect(resolveLocale('de;q=0.0001, fr;q=0.1')).toBe('fr')
  expect(resolveLocale('de; Q = 0.9 , fr;q=0.8')).toBe('de')
  expect(resolveLocale('de;level=1;q=0.9, fr;q=0.8')).toBe('de')
})

test('garbage never throws: malformed tags are passed over', () => {
  const garbage = [
    ';;;',
    ',,,',
    'en_US',
    'x-pig-latin',
    'i-klingon',
    'de-DE-',
    '-de',
    '😀',
    'de\u0000DE',
    'a'.repeat(10_000),
    `${'zz,'.repeat(5_000)}de`,
    'en-GB-oed',
    '\\u0000',
    'q=0.5',
    ';q=0.9',
    'constructor',
    '__proto__',
  ]
  for (const header of garbage) expect(() => resolveLocale(header)).not.toThrow()
  for (const header of garbage) expect(resolveLocale(header)).toBe('en-US')
  expect(resolveLocale('en_US, de;q=0.5')).toBe('de')
  expect(resolveLocale('x-pig-latin, ja;q=0.2')).toBe('ja')
})

test('dates in the store’s three styles, in UTC whatever the server’s zone', () => {
  const at = new Date('2026-11-27T23:30:00Z')
  expect(formatDate(at, 'date', 'en-US')).toBe('Nov 27, 2026')
  expect(formatDate(at, 'date', 'de-DE')).toBe('27.11.2026')
  expect(formatDate(at.toISOString(), 'date', 'en-GB')).toBe('27 Nov 2026')
  expect(formatDate(at, 'dateTime', 'en-US')).toMatch(/^Nov 27, 2026, 11:30\sPM UTC$/)
  expect(formatDate(at, 'dateTime', 'de-DE')).toBe('27. Nov. 2026, 23:30 UTC')
  expect(formatDate(at, 'monthDay', 'en-US')).toBe('Nov 27')
  expect(formatDate(at, 'monthDay', 'de-DE')).toBe('27. Nov.')
})
