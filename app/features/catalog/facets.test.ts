import { expect, test } from 'vitest'
import { topicName } from './facets.ts'

test('topic names: the known spellings, title case otherwise, and never a property of Object', () => {
  expect(topicName('javascript')).toBe('JavaScript')
  expect(topicName('machine-learning')).toBe('Machine Learning')
  expect(topicName('data-structures')).toBe('Data Structures')
  expect(topicName('constructor')).toBe('Constructor')
  expect(topicName('__proto__')).toBe('__proto__')
  expect(topicName('to-string')).toBe('To String')
})
