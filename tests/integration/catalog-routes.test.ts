import { describe, expect } from 'vitest'
import { loader as allBooksLoader } from '#app/routes/all-books.tsx'
import { loader as bookLoader } from '#app/routes/book.tsx'
import { loader as homeLoader } from '#app/routes/home.tsx'
import { loader as legacyLoader } from '#app/routes/legacy-book-details.tsx'
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

/** The seed's detail URL `/<list>/<index>` through its route's loader (both lists share one module). */
function legacy(list: string, index: string) {
  return thrownBy(() =>
    legacyLoader(
      routeArgs({ db: database.db, path: `/${list}/${encodeURIComponent(index)}`, params: { index } }),
    ),
  )
}

describe("the seed's detail URLs", () => {
  test.each([
    ['Details', '0', '/books/complete-guide-to-backend-development'],
    ['Details', '2', '/books/javascript-basics-to-advance'],
    ['details', '1', '/books/frontend-fastlane-plan-with-projects'],
    ['AllBooksDetails', '0', '/books/basics-to-advanced-in-react'],
    ['AllBooksDetails', ' 0', '/books/basics-to-advanced-in-react'],
    ['allbooksdetails', ' 3', '/books/build-a-blockchain-from-scratch-in-go'],
  ])('/%s/%s redirects permanently to the canonical URL', async (list, index, location) => {
    const thrown = await legacy(list, index)
    expect(thrown).toBeInstanceOf(Response)
    expect((thrown as Response).status).toBe(301)
    expect((thrown as Response).headers.get('Location')).toBe(location)
  })

  test.each([
    ['Details', '3'],
    ['AllBooksDetails', '4'],
    ['AllBooksDetails', 'abc'],
    ['Details', '-1'],
  ])('/%s/%s (out of range): 404', async (list, index) => {
    expect(statusOf(await legacy(list, index))).toBe(404)
  })
})
