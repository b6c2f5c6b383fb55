import { expect, test } from 'vitest'
import { splitTopicNames, topicSlug } from './topic-names.ts'

test('a topic of two words has one slug of two words', () => {
  expect(topicSlug('systems programming')).toBe('systems-programming')
  expect(topicSlug('Machine Learning')).toBe('machine-learning')
  expect(topicSlug('Node.js')).toBe('node-js')
  expect(topicSlug('Café  Design')).toBe('cafe-design')
  expect(topicSlug('++')).toBe('topic')
})

test('topics are separated by commas only, each kept once in the order typed', () => {
  expect(splitTopicNames('systems programming, rust')).toEqual(['systems programming', 'rust'])
  expect(splitTopicNames(' Rust ,rust,  Web   Development ,, ')).toEqual(['Rust', 'Web Development'])
  expect(splitTopicNames('')).toEqual([])
})
