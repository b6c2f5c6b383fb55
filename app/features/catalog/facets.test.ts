import { expect, test } from 'vitest'
import { parseCatalogParams, topicPath } from './facets.ts'

test('a topic is a slug in the URL: words with spaces are no topic', () => {
  expect(parseCatalogParams(new URLSearchParams('topic=systems-programming')).filters.topic).toBe(
    'systems-programming',
  )
  expect(parseCatalogParams(new URLSearchParams('topic=systems programming')).filters.topic).toBeNull()
  expect(topicPath('systems-programming')).toBe('/topics/systems-programming')
})
