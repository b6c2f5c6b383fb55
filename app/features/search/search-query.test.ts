import { expect, test } from 'vitest'
import { MAX_QUERY_LENGTH, normalizeQuery, parsePage, searchUrl } from './search-query.ts'

test('a query is trimmed, its white space collapsed, and control characters dropped', () => {
  expect(normalizeQuery('  django \n\t framework  ')).toBe('django framework')
  expect(normalizeQuery('dj\u0000ango\u0007')).toBe('dj ango')
  expect(normalizeQuery('\u0000\u0000')).toBe('')
  expect(normalizeQuery(null)).toBe('')
  expect(normalizeQuery(undefined)).toBe('')
})

test('a long query is cut to 100 characters, never inside a character', () => {
  expect(normalizeQuery('a'.repeat(250))).toBe('a'.repeat(MAX_QUERY_LENGTH))
  const emoji = normalizeQuery('📚'.repeat(150))
  expect(Array.from(emoji)).toHaveLength(MAX_QUERY_LENGTH)
  expect(emoji).toBe('📚'.repeat(MAX_QUERY_LENGTH))
  // An unpaired surrogate (not valid text) becomes a space.
  expect(normalizeQuery('ab\uD800cd')).toBe('ab cd')
})

test('page numbers: positive whole numbers, anything else is page 1', () => {
  expect(parsePage('3')).toBe(3)
  for (const raw of [null, '', '0', '-2', '1.5', 'two', '9999999', ' 2'])
    expect(parsePage(raw), `${raw}`).toBe(1)
})

test('result URLs carry the query, and the page after the first', () => {
  expect(searchUrl('c++ & go')).toBe('/search?q=c%2B%2B+%26+go')
  expect(searchUrl('rust', 2)).toBe('/search?q=rust&page=2')
})
