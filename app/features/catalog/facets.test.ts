import { expect, test } from 'vitest'
import { offeredOptions, ratingMinimumLabel, topicName } from './facets.ts'

test('topic names: the known spellings, title case otherwise, and never a property of Object', () => {
  expect(topicName('javascript')).toBe('JavaScript')
  expect(topicName('machine-learning')).toBe('Machine Learning')
  expect(topicName('data-structures')).toBe('Data Structures')
  expect(topicName('constructor')).toBe('Constructor')
  expect(topicName('__proto__')).toBe('__proto__')
  expect(topicName('to-string')).toBe('To String')
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
