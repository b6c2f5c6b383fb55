import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { invalidateCatalog } from '#app/features/catalog/catalog-cache.server.ts'
import {
  CATALOG_FORMATS,
  CATALOG_LEVELS,
  CATALOG_PAGE_SIZE,
  CATALOG_SORTS,
  PRICE_RANGES,
  RATING_MINIMUMS,
  type CatalogSort,
} from '#app/features/catalog/facets.ts'
import { shownRating } from '#app/features/catalog/rating.ts'
import { setBookTopics } from '#app/features/catalog/topics.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { loader as allBooksLoader } from '#app/routes/all-books.tsx'
import { loader as searchLoader } from '#app/routes/search.tsx'
import { loader as topicLoader } from '#app/routes/topic.tsx'
import { loader as topicsLoader } from '#app/routes/topics.tsx'
import { bookFiles, books, bookTopics, topics as topicTable } from '#app/server/db/schema/index.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'

let database: TestDatabase

/** This file's books beside the seed's 7: every facet value, several pages, a draft and an archived book. */
const GENERATED = 70
const levels = ['beginner', 'intermediate', 'advanced', null] as const

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  const start = Date.now()
  const inserted = await database.db
    .insert(books)
    .values(
      Array.from({ length: GENERATED + 2 }, (_, n) => ({
        slug: `facet-book-${n}`,
        title: `Facet Book ${n}`,
        author: 'Facet Author',
        description: 'A book made for the facet tests.',
        priceCents: 300 + ((n * 737) % 9000),
        coverPath: '/covers/django-framework.svg',
        coverAlt: `Cover of Facet Book ${n}`,
        rating: 1 + (n % 5),
        // Some books have readers' ratings: their average is what shows (and filters), not the prior.
        ...(n % 7 === 0 ? { ratingCount: 2, ratingSum: 9 } : {}),
        fileSizeBytes: 1_000_000,
        level: levels[n % 4],
        status:
          n === GENERATED
            ? ('draft' as const)
            : n === GENERATED + 1
              ? ('archived' as const)
              : ('published' as const),
        createdAt: new Date(start + (n + 1) * 1000),
      })),
    )
    .returning({ id: books.id, slug: books.slug })
  for (const { id, slug } of inserted) {
    const n = Number(slug.split('-').at(-1))
    await setBookTopics(
      database.db,
      id,
      n % 3 === 0 ? ['Alpha'] : n % 3 === 1 ? ['Beta', 'Alpha'] : ['Gamma'],
    )
  }
  const files = inserted.flatMap(({ id, slug }) => {
    const n = Number(slug.split('-').at(-1))
    const formats = [
      ...(n % 2 === 0 ? ['pdf' as const] : []),
      ...(n % 3 === 0 ? ['epub' as const] : []),
      'sample' as const,
    ]
    return formats.map((format) => ({
      bookId: id,
      format,
      storageKey: `test/${slug}.${format}`,
      sizeBytes: 1000,
      sha256: 'x',
      sourceHash: 'x',
    }))
  })
  await database.db.insert(bookFiles).values(files)
  invalidateCatalog(database.db)
})

type Data = Awaited<ReturnType<typeof allBooksLoader>>

async function browse(search: string, path = '/AllBooks'): Promise<Data> {
  return allBooksLoader(routeArgs({ db: database.db, path: `${path}${search}` }))
}

/** What every published book is, read straight from the tables: the reference the loaders must agree with. */
async function reference() {
  const rows = await database.db.select().from(books).where(eq(books.status, 'published'))
  const files = await database.db
    .select({ bookId: bookFiles.bookId, format: bookFiles.format })
    .from(bookFiles)
  const filed = await database.db
    .select({ bookId: bookTopics.bookId, slug: topicTable.slug })
    .from(bookTopics)
    .innerJoin(topicTable, eq(topicTable.id, bookTopics.topicId))
  return rows.map((row) => ({
    ...row,
    topics: filed.filter((entry) => entry.bookId === row.id).map((entry) => entry.slug),
    shown: shownRating(row).value,
    formats: files.filter((file) => file.bookId === row.id).map((file) => file.format as string),
  }))
}
type RefBook = Awaited<ReturnType<typeof reference>>[number]
type Filters = { topic?: string; level?: string; price?: string; rating?: number; format?: string }

function matches(book: RefBook, filters: Filters) {
  const band = PRICE_RANGES.find((range) => range.value === filters.price)
  return (
    (!filters.topic || book.topics.includes(filters.topic)) &&
    (!filters.level || book.level === filters.level) &&
    (!band || (book.priceCents >= band.min && book.priceCents < band.max)) &&
    (filters.rating === undefined || book.shown >= filters.rating) &&
    (!filters.format || book.formats.includes(filters.format))
  )
}

function toSearch(filters: Filters, extra: Record<string, string> = {}) {
  const params = new URLSearchParams(extra)
  for (const [name, value] of Object.entries(filters)) params.set(name, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** Every page of a state, in order, by following the loader's page count. */
async function allPages(filters: Filters, sort: CatalogSort) {
  const first = await browse(toSearch(filters, sort === 'relevance' ? {} : { sort }))
  const ids = first.books.map((book) => book.id)
  for (let page = 2; page <= first.pageCount; page++) {
    const next = await browse(
      toSearch(filters, { ...(sort === 'relevance' ? {} : { sort }), page: String(page) }),
    )
    expect(next.query.page).toBe(page)
    ids.push(...next.books.map((book) => book.id))
  }
  return { total: first.total, ids }
}

const combinations: Filters[] = [
  {},
  { topic: 'alpha' },
  { topic: 'databases' },
  { level: 'beginner' },
  { level: 'advanced' },
  { price: 'under-10' },
  { price: '50-and-up' },
  { rating: 4 },
  { rating: 2 },
  { format: 'pdf' },
  { format: 'epub' },
  { topic: 'alpha', level: 'intermediate' },
  { topic: 'beta', price: '25-50', rating: 3 },
  { level: 'beginner', price: '10-25', format: 'pdf', rating: 1 },
  { topic: 'gamma', level: 'advanced', price: '50-and-up', rating: 2, format: 'pdf' },
  { topic: 'alpha', format: 'epub', rating: 3 },
]

describe('/AllBooks filters and counts', () => {
  test.each(combinations)(
    '%o: the matching books, and each facet value counted with the other filters',
    async (filters) => {
      const all = await reference()
      const data = await browse(toSearch(filters))
      const expected = all.filter((book) => matches(book, filters))
      expect(data.total).toBe(expected.length)
      const { ids } = await allPages(filters, 'relevance')
      expect(new Set(ids)).toEqual(new Set(expected.map((book) => book.id)))

      const countOf = (override: Filters) =>
        all.filter((book) => matches(book, { ...filters, ...override })).length
      for (const level of CATALOG_LEVELS)
        expect(data.counts.level.find((entry) => entry.value === level.value)?.count, level.value).toBe(
          countOf({ level: level.value }),
        )
      for (const range of PRICE_RANGES)
        expect(data.counts.price.find((entry) => entry.value === range.value)?.count, range.value).toBe(
          countOf({ price: range.value }),
        )
      for (const minimum of RATING_MINIMUMS)
        expect(data.counts.rating.find((entry) => entry.value === minimum)?.count, `${minimum}+`).toBe(
          countOf({ rating: minimum }),
        )
      for (const format of CATALOG_FORMATS)
        expect(data.counts.format.find((entry) => entry.value === format.value)?.count, format.value).toBe(
          countOf({ format: format.value }),
        )
      const topics = [...new Set(all.flatMap((book) => book.topics))]
      for (const topic of topics) {
        const count = countOf({ topic })
        const entry = data.counts.topic.find((candidate) => candidate.value === topic)
        expect(entry?.count ?? 0, topic).toBe(count)
      }
    },
  )

  test('drafts and archived books are never listed or counted', async () => {
    const data = await browse('')
    expect(data.total).toBe(7 + GENERATED)
    const { ids } = await allPages({}, 'newest')
    const hidden = await database.db
      .select({ id: books.id })
      .from(books)
      .where(eq(books.author, 'Facet Author'))
    const published = (await reference()).map((book) => book.id)
    expect(ids.every((id) => published.includes(id))).toBe(true)
    expect(hidden.filter((book) => !published.includes(book.id))).toHaveLength(2)
  })

  test('the rating filter uses the shown rating: the readers’ average once there is one', async () => {
    // Facet Book 0 has a prior of 1 star but readers average 4.5: it is a 4-star book.
    const data = await browse('?rating=4&topic=alpha&level=beginner&sort=newest')
    const all = await allPages({ rating: 4, topic: 'alpha', level: 'beginner' }, 'newest')
    const [book0] = await database.db
      .select({ id: books.id })
      .from(books)
      .where(eq(books.slug, 'facet-book-0'))
    expect(all.ids).toContain(book0!.id)
    expect(data.total).toBeGreaterThan(0)
  })
})

describe('/AllBooks sorts and pages', () => {
  const key: Record<CatalogSort, ((book: RefBook) => number) | null> = {
    relevance: null,
    newest: (book) => -book.createdAt.getTime(),
    'price-asc': (book) => book.priceCents,
    'price-desc': (book) => -book.priceCents,
    rating: (book) => -book.shown,
    'best-selling': (book) => -book.salesCount,
  }

  test.each(CATALOG_SORTS.map((sort) => sort.value))(
    'sort %s: every book once across the pages, in order',
    async (sort) => {
      const all = await reference()
      const { total, ids } = await allPages({}, sort)
      expect(total).toBe(all.length)
      expect(ids).toHaveLength(all.length)
      expect(new Set(ids).size).toBe(all.length)
      const by = key[sort]
      if (by) {
        const values = ids.map((id) => by(all.find((book) => book.id === id)!))
        expect(values).toEqual([...values].sort((a, b) => a - b))
      } else {
        // Relevance without a query: the featured books first, in their order, then the best sellers.
        const featured = all
          .filter((book) => book.featured)
          .sort((a, b) => a.featuredPosition! - b.featuredPosition!)
        expect(ids.slice(0, 3)).toEqual(featured.map((book) => book.id))
        expect(all.find((book) => book.id === ids[3])?.bestSeller).toBe(true)
      }
    },
  )

  test('a filtered state pages through its books with no duplicate or gap', async () => {
    const all = await reference()
    const filters: Filters = { topic: 'alpha' }
    const { total, ids } = await allPages(filters, 'price-asc')
    expect(total).toBeGreaterThan(CATALOG_PAGE_SIZE)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids)).toEqual(new Set(all.filter((book) => matches(book, filters)).map((book) => book.id)))
  })

  test('a page past the last goes to the first page of the same state', async () => {
    const thrown = await thrownBy(() => browse('?topic=alpha&sort=newest&page=99'))
    expect(thrown).toBeInstanceOf(Response)
    expect((thrown as Response).status).toBe(302)
    expect((thrown as Response).headers.get('Location')).toBe('/AllBooks?topic=alpha&sort=newest')
  })

  test('best-selling follows paid orders, and a refund takes the sale back', async () => {
    const [book] = await database.db.select().from(books).where(eq(books.slug, 'facet-book-5'))
    const buyer = await createBuyer(database.db, [book!.id])
    const [sold] = await database.db
      .select({ sales: books.salesCount })
      .from(books)
      .where(eq(books.id, book!.id))
    expect(sold?.sales).toBe(1)
    invalidateCatalog(database.db)
    expect((await browse('?sort=best-selling')).books[0]?.id).toBe(book!.id)

    expect(await refundOrder(database.db, buyer.orderId)).toBe('refunded')
    const [refunded] = await database.db
      .select({ sales: books.salesCount })
      .from(books)
      .where(eq(books.id, book!.id))
    expect(refunded?.sales).toBe(0)
    invalidateCatalog(database.db)
    expect((await browse('?sort=best-selling')).books[0]?.id).not.toBe(book!.id)
  })
})

describe('bad parameter values are ignored, never an error', () => {
  const unfiltered = () => browse('')
  const bad: Record<string, string[]> = {
    topic: ['', 'Alpha', 'no-such-topic', 'a b', '../etc', 'x'.repeat(61), '%00', 'alpha,beta'],
    level: ['', 'expert', 'BEGINNER', '1', 'beginner '],
    price: ['', '0-5', '10-', '-1', 'cheap', '25-50-75'],
    rating: ['', '0', '5', '4.5', '-1', 'four', '1e1'],
    format: ['', 'mobi', 'PDF', 'sample', 'pdf,epub'],
    sort: ['', 'oldest', 'price', 'RATING', 'random()'],
    page: ['', '0', '-1', 'two', '1.5', '9999999', '1e3'],
  }
  test.each(Object.entries(bad))('%s', async (name, values) => {
    const expected = await unfiltered()
    for (const value of values) {
      const data = await browse(`?${new URLSearchParams({ [name]: value })}`)
      expect(data.total, `${name}=${value}`).toBe(expected.total)
      expect(
        data.books.map((book) => book.id),
        `${name}=${value}`,
      ).toEqual(expected.books.map((book) => book.id))
    }
  })

  test('a parameter given twice: the first value counts', async () => {
    const data = await browse('?level=beginner&level=advanced')
    expect(data.query.filters.level).toBe('beginner')
  })

  test('a real page beyond the catalogue is a redirect, not an error', async () => {
    const thrown = await thrownBy(() => browse('?page=999999'))
    expect((thrown as Response).status).toBe(302)
    expect((thrown as Response).headers.get('Location')).toBe('/AllBooks')
  })
})

describe('/search with facets', () => {
  async function search(params: string) {
    return searchLoader(routeArgs({ db: database.db, path: `/search${params}` }))
  }

  test('the matches are filtered, counted and sorted like the catalogue', async () => {
    const all = await reference()
    const data = await search('?q=facet&level=beginner&sort=price-desc')
    if (data instanceof Response || !data.results) throw new Error('expected results')
    const generated = all.filter((book) => book.author === 'Facet Author')
    expect(data.results.matchCount).toBe(generated.length)
    const expected = generated.filter((book) => matches(book, { level: 'beginner' }))
    expect(data.results.page.total).toBe(expected.length)
    const prices = data.results.page.books.map((book) => book.priceCents)
    expect(prices).toEqual([...prices].sort((a, b) => b - a))
    expect(data.results.page.counts.level.find((entry) => entry.value === 'advanced')?.count).toBe(
      generated.filter((book) => book.level === 'advanced').length,
    )
  })

  test('bad values are ignored there too', async () => {
    const plain = await search('?q=facet')
    const bad = await search('?q=facet&level=expert&rating=9&sort=up&format=mobi&price=free&topic=%20')
    if (plain instanceof Response || bad instanceof Response) throw new Error('expected data')
    expect(bad.results?.page.total).toBe(plain.results?.page.total)
  })
})

describe('topic pages', () => {
  test('the topics index lists every topic with its book count', async () => {
    const data = await topicsLoader(routeArgs({ db: database.db, path: '/topics' }))
    const all = await reference()
    const alpha = data.topics.find((topic) => topic.value === 'alpha')
    expect(alpha).toMatchObject({
      name: 'Alpha',
      count: all.filter((book) => book.topics.includes('alpha')).length,
    })
    expect(data.topics.find((topic) => topic.value === 'javascript')?.name).toBe('JavaScript')
  })

  test("a topic's page lists its books, with the other facets", async () => {
    const all = await reference()
    const data = await topicLoader(
      routeArgs({ db: database.db, path: '/topics/beta?level=intermediate', params: { slug: 'beta' } }),
    )
    const expected = all.filter((book) => matches(book, { topic: 'beta', level: 'intermediate' }))
    expect(data.total).toBe(expected.length)
    expect(data.name).toBe('Beta')
    expect(data.counts.level.find((entry) => entry.value === 'advanced')?.count).toBe(
      all.filter((book) => matches(book, { topic: 'beta', level: 'advanced' })).length,
    )
  })

  test.each(['no-such-topic', 'Alpha', 'a b', '%00', 'x'.repeat(100)])(
    '/topics/%s is a 404',
    async (slug) => {
      const thrown = await thrownBy(() =>
        topicLoader(
          routeArgs({ db: database.db, path: `/topics/${encodeURIComponent(slug)}`, params: { slug } }),
        ),
      )
      expect(thrown).toMatchObject({ init: { status: 404 } })
    },
  )
})
