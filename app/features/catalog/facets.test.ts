import { expect, test } from 'vitest'
import { offeredOptions, parseCatalogParams, ratingMinimumLabel, topicPath } from './facets.ts'

test('a topic is a slug in the URL: words with spaces are no topic', () => {
  expect(parseCatalogParams(new URLSearchParams('topic=systems-programming')).filters.topic).toBe(
    'systems-programming',
  )
  expect(parseCatalogParams(new URLSearchParams('topic=systems programming')).filters.topic).toBeNull()
  expect(topicPath('systems-programming')).toBe('/topics/systems-programming')
})

test('a facet offers only values with books, and the chosen one whatever its count', () => {
  const options = [
    { value: 'beginner', label: 'Beginner', count: 0 },
    { value: 'intermediate', label: 'Intermediate', count: 2 },
    { value: 'advanced', label: 'Advanced', count: 0 },
  ]
  expect(offeredOptions(options, null).map((option) => option.value)).toEqual(['intermediate'])
  expect(offeredOptions(options, 'advanced').map((option) => option.value)).toEqual([
    'intermediate',
    'advanced',
  ])
  expect(offeredOptions([{ value: 'x', label: 'X', count: 0 }], null)).toEqual([])
})

test('rating minimums read as English: one star, several stars', () => {
  expect(ratingMinimumLabel(1)).toBe('1 star & up')
  expect(ratingMinimumLabel(4)).toBe('4 stars & up')
})
