import { describe, expect } from 'vitest'
import { loader as allBooksLoader } from '#app/routes/all-books.tsx'
import { loader as bookLoader } from '#app/routes/book.tsx'
import { loader as homeLoader } from '#app/routes/home.tsx'
import { loader as legacyAllBooksLoader } from '#app/routes/legacy-all-books-details.tsx'
import { loader as legacyFeaturedLoader } from '#app/routes/legacy-featured-details.tsx'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'

let database: TestDatabase
test.beforeAll(({ database: fileDatabase }) => {
  database = fileDatabase
})

function statusOf(thrown: unknown) {
  if (thrown instanceof Response) return thrown.status
  if (thrown && typeof thrown === 'object' && 'init' in thrown)
    return (thrown as { init?: { status?: number } }).init?.status
  return undefined
}

describe('catalogue loaders', () => {
  test('home loads the three featured books', async () => {
    const data = await homeLoader(routeArgs({ db: database.db, path: '/' }))
    expect(data.featured).toHaveLength(3)
  })

  test('all books loads every book', async () => {
    const data = await allBooksLoader(routeArgs({ db: database.db, path: '/AllBooks' }))
    expect(data.books).toHaveLength(7)
  })

  test('a book page loads by slug, whatever its case', async () => {
    const data = await bookLoader(
      routeArgs({ db: database.db, path: '/books/Django-Framework', params: { slug: 'Django-Framework' } }),
    )
    expect(data.book.title).toBe('Django Framework')
  })

  test('an unknown book is a 404 "Book not found"', async () => {
    const thrown = await thrownBy(() =>
      bookLoader(routeArgs({ db: database.db, path: '/books/missing', params: { slug: 'missing' } })),
    )
    expect(statusOf(thrown)).toBe(404)
    expect(thrown).toMatchObject({ data: { title: 'Book not found' } })
  })
})

type IndexLoader = (args: ReturnType<typeof routeArgs<{ index: string }>>) => unknown

describe("the seed's detail URLs", () => {
  const cases: Array<[IndexLoader, string, string]> = [
    [legacyFeaturedLoader, '0', '/books/complete-guide-to-backend-development'],
    [legacyFeaturedLoader, '2', '/books/javascript-basics-to-advance'],
    [legacyAllBooksLoader, '0', '/books/basics-to-advanced-in-react'],
    [legacyAllBooksLoader, ' 0', '/books/basics-to-advanced-in-react'],
    [legacyAllBooksLoader, ' 3', '/books/build-a-blockchain-from-scratch-in-go'],
  ]
  test.each(cases)(
    'index %#: redirects permanently to the canonical URL',
    async (loader, index, location) => {
      const thrown = await thrownBy(() =>
        loader(routeArgs({ db: database.db, path: '/', params: { index } })),
      )
      expect(thrown).toBeInstanceOf(Response)
      expect((thrown as Response).status).toBe(301)
      expect((thrown as Response).headers.get('Location')).toBe(location)
    },
  )

  test.each<[IndexLoader, string]>([
    [legacyFeaturedLoader, '3'],
    [legacyAllBooksLoader, '4'],
    [legacyAllBooksLoader, 'abc'],
    [legacyFeaturedLoader, '-1'],
  ])('out-of-range index %#: 404', async (loader, index) => {
    const thrown = await thrownBy(() => loader(routeArgs({ db: database.db, path: '/', params: { index } })))
    expect(statusOf(thrown)).toBe(404)
  })
})
