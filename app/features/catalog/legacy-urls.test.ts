import { expect, test } from 'vitest'
import { legacyAllBooksSlugs, legacyFeaturedSlugs, parseLegacyIndex } from './legacy-urls.ts'
import { seedBooks } from './seed-books.ts'

test("legacy indexes accept the seed's space-prefixed form and nothing else", () => {
  expect(parseLegacyIndex('0')).toBe(0)
  expect(parseLegacyIndex(' 3')).toBe(3)
  for (const bad of [undefined, '', '-1', '1.5', 'x', '1e2', '0x1', '12345']) {
    expect(parseLegacyIndex(bad)).toBeUndefined()
  }
})

test("the legacy lists name the seed's books in the seed's order", () => {
  const featured = seedBooks
    .filter((book) => book.featured)
    .sort((a, b) => a.featuredPosition! - b.featuredPosition!)
  expect(legacyFeaturedSlugs).toEqual(featured.map((book) => book.slug))
  expect(legacyAllBooksSlugs).toEqual(seedBooks.filter((book) => !book.featured).map((book) => book.slug))
})
