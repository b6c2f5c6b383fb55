import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import AllBooksPage, { loader as allBooksLoader } from '#app/routes/all-books.tsx'
import BookPage, { loader as bookLoader } from '#app/routes/book.tsx'
import SearchPage, { loader as searchLoader } from '#app/routes/search.tsx'
import TopicPage, { loader as topicLoader } from '#app/routes/topic.tsx'
import { loader as homeLoader } from '#app/routes/home.tsx'
import { loader as legacyLoader } from '#app/routes/legacy-book-details.tsx'
import { bookFiles, books } from '#app/server/db/schema/index.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { elementOf, renderRoute, textOf } from '#tests/render-route.ts'
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

describe('the book page says what a buyer gets, and where the reader is (issue 34)', () => {
  const bookPage = async (slug: string) =>
    renderRoute({
      Component: BookPage as never,
      pattern: 'books/:slug',
      path: `/books/${slug}`,
      loaderData: await bookLoader(routeArgs({ db: database.db, path: `/books/${slug}`, params: { slug } })),
    })

  test("beside the price: 'Instant download · PDF + EPUB · DRM-free · free updates'; the seed's badges stay", async () => {
    const [book] = await database.db.select().from(books).where(eq(books.slug, 'django-framework'))
    await database.db.insert(bookFiles).values(
      (['pdf', 'epub'] as const).map((format, index) => ({
        bookId: book!.id,
        format,
        storageKey: `books/django-framework.${format}`,
        sizeBytes: (21 + index * 9) * 1024,
        sha256: 'x',
        sourceHash: 'x',
      })),
    )
    const html = await bookPage('django-framework')
    expect(textOf(html)).toContain('$19 Instant download · PDF + EPUB · DRM-free · free updates')
    const badges = elementOf(html, '<ul class="flex flex-wrap gap-2" aria-label="About this eBook"')
    expect(textOf(badges!)).toBe('INSTOCK PDF 21 KB EPUB 30 KB')
  })

  test('visible breadcrumbs on the book, topic and search pages: the JSON-LD trail, the page itself current', async () => {
    const crumbsOf = (html: string) => {
      const nav = elementOf(html, '<nav aria-label="Breadcrumb"')
      expect(nav, 'a breadcrumb nav').toBeDefined()
      expect(nav).toContain('<ol')
      const items = [...nav!.matchAll(/<li[^>]*>([\s\S]*?)<\/li>/g)].map((match) => match[1]!)
      return items.map((item) => ({
        text: textOf(item).replace(/ ›$/, ''),
        href: /href="([^"]*)"/.exec(item)?.[1] ?? null,
        current: item.includes('aria-current="page"'),
      }))
    }
    expect(crumbsOf(await bookPage('django-framework'))).toEqual([
      { text: 'Home', href: '/', current: false },
      { text: 'All eBooks', href: '/AllBooks', current: false },
      { text: 'Django Framework', href: null, current: true },
    ])

    const topic = await topicLoader(
      routeArgs({ db: database.db, path: '/topics/databases', params: { slug: 'databases' } }),
    )
    const topicHtml = renderRoute({
      Component: TopicPage as never,
      pattern: 'topics/:slug',
      path: '/topics/databases',
      loaderData: topic,
    })
    expect(crumbsOf(topicHtml)).toEqual([
      { text: 'Home', href: '/', current: false },
      { text: 'Topics', href: '/topics', current: false },
      { text: 'Databases', href: null, current: true },
    ])

    const results = await searchLoader(routeArgs({ db: database.db, path: '/search?q=react' }))
    const searchHtml = renderRoute({
      Component: SearchPage as never,
      pattern: 'search',
      path: '/search?q=react',
      loaderData: results,
    })
    expect(crumbsOf(searchHtml)).toEqual([
      { text: 'Home', href: '/', current: false },
      { text: 'Search', href: '/search', current: false },
      { text: '“react”', href: null, current: true },
    ])
  })
})

describe('the filters offer what there is (issue 34)', () => {
  test('no facet value without books (no seed book has a level: no Level filter); the rating minimums read right', async () => {
    const html = renderRoute({
      Component: AllBooksPage as never,
      pattern: 'AllBooks',
      path: '/AllBooks',
      loaderData: await allBooksLoader(routeArgs({ db: database.db, path: '/AllBooks' })),
    })
    const form = elementOf(html, '<form')!
    const labels = [...form.matchAll(/<label[^>]*>([^<]*)<\/label>/g)].map((match) => match[1])
    expect(labels).not.toContain('Level')
    expect(labels).toEqual(expect.arrayContaining(['Topic', 'Price', 'Rating', 'Sort by']))
    const options = [...form.matchAll(/<option[^>]*>([^<]*)<\/option>/g)].map((match) =>
      match[1]!.replace(/&amp;/g, '&'),
    )
    expect(options.filter((option) => option.endsWith('(0)'))).toEqual([])
    expect(options).toContain('1 star & up (7)')
    expect(options.filter((option) => /^\d stars? & up/.test(option))).not.toContain(
      expect.stringMatching(/^1 stars/),
    )
  })
})
