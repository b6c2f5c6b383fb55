import fc from 'fast-check'
import { describe, expect } from 'vitest'
import { searchBooks, suggestBooks } from '#app/features/search/search.server.ts'
import { loader as searchLoader } from '#app/routes/search.tsx'
import { loader as suggestLoader } from '#app/routes/search-suggest.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'

let database: TestDatabase

/** A book for this file's catalogue (the seed's 7 are there too). */
function testBook(slug: string, title: string, extra: Partial<typeof books.$inferInsert> = {}) {
  return {
    slug,
    title,
    author: 'Test Author',
    description: 'A book made for the search tests.',
    priceCents: 1000,
    coverPath: '/covers/django-framework.svg',
    coverAlt: `Cover of ${title}`,
    rating: 4,
    fileSizeBytes: 1_000_000,
    topics: ['testing'],
    ...extra,
  }
}

const RUST_BOOKS = 120

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  await database.db.insert(books).values([
    testBook('introduction-to-algorithms-in-practice', 'Introduction to Algorithms in Practice', {
      author: 'Edsger Lamport',
      topics: ['algorithms', 'theory'],
    }),
    ...Array.from({ length: RUST_BOOKS }, (_, index) =>
      testBook(`rust-in-depth-volume-${index + 1}`, `Rust in Depth, Volume ${index + 1}`),
    ),
  ])
})

const titles = (found: { title: string }[]) => found.map((book) => book.title)

describe('searching the catalogue', () => {
  test('a title match ranks before books that only mention the word elsewhere', async () => {
    const react = await searchBooks(database.db, 'react')
    // 'The Future of Design Systems' has React among its topics and in its description.
    expect(titles(react.books)).toEqual(['Basics To Advanced In React', 'The Future of Design Systems'])
    const design = await searchBooks(database.db, 'design')
    // The backend guide's description starts 'Design, build and deploy'.
    expect(titles(design.books)).toEqual([
      'The Future of Design Systems',
      'Complete Guide to Backend Development',
    ])
  })

  test('finds books by author, by description and by topic', async () => {
    expect(titles((await searchBooks(database.db, 'Kowalczyk')).books)).toEqual(['Django Framework'])
    expect(titles((await searchBooks(database.db, 'hana kowalczyk')).books)).toEqual(['Django Framework'])
    expect(titles((await searchBooks(database.db, 'Gunicorn')).books)).toEqual(['Django Framework'])
    // 'cryptography' is only a topic of the blockchain book: its title and description never say it.
    expect(titles((await searchBooks(database.db, 'cryptography')).books)).toEqual([
      'Build a Blockchain from Scratch in Go',
    ])
    expect(titles((await searchBooks(database.db, 'python')).books)).toEqual(['Django Framework'])
  })

  test('every word must match; word forms do not matter', async () => {
    expect(titles((await searchBooks(database.db, 'django deploy')).books)).toEqual(['Django Framework'])
    expect(titles((await searchBooks(database.db, 'django blockchain')).books)).toEqual([])
    expect(titles((await searchBooks(database.db, 'algorithm')).books)).toEqual([
      'Introduction to Algorithms in Practice',
    ])
  })

  test('tolerates typos by correcting them from the catalogue’s own words', async () => {
    const django = await searchBooks(database.db, 'djnago')
    expect(titles(django.books)).toEqual(['Django Framework'])
    expect(django).toMatchObject({ query: 'django', correctedFrom: 'djnago', total: 1 })
    const algorithms = await searchBooks(database.db, 'algoritms')
    expect(titles(algorithms.books)).toEqual(['Introduction to Algorithms in Practice'])
    expect(algorithms.correctedFrom).toBe('algoritms')
    const twoWords = await searchBooks(database.db, 'djnago framwork')
    expect(twoWords).toMatchObject({ query: 'django framework', total: 1 })
  })

  test('nothing is invented: gibberish finds nothing', async () => {
    const found = await searchBooks(database.db, 'qqqxzv')
    expect(found).toMatchObject({ total: 0, books: [], correctedFrom: null })
  })

  test('results come 20 a page, and a broad query is capped at 100 results', async () => {
    const first = await searchBooks(database.db, 'rust')
    expect(first).toMatchObject({ total: 100, more: true, page: 1, pageCount: 5 })
    expect(first.books).toHaveLength(20)
    const fifth = await searchBooks(database.db, 'rust', { page: 5 })
    expect(fifth.books).toHaveLength(20)
    const pages = await Promise.all([1, 2, 3, 4, 5].map((page) => searchBooks(database.db, 'rust', { page })))
    const ids = pages.flatMap((page) => page.books.map((book) => book.id))
    expect(new Set(ids).size).toBe(100)
    const narrow = await searchBooks(database.db, 'rust volume 7')
    expect(narrow).toMatchObject({ total: 1, more: false, pageCount: 1 })
  })
})

describe('suggestions', () => {
  test('at most five, titles starting with the text first', async () => {
    const rust = await suggestBooks(database.db, 'rust')
    expect(rust).toHaveLength(5)
    expect(rust.every((book) => book.title.startsWith('Rust in Depth'))).toBe(true)
    expect(await suggestBooks(database.db, 'ru')).toHaveLength(5)
  })

  test('match the start of any title word while it is being typed, then other fields', async () => {
    expect(titles(await suggestBooks(database.db, 'reac'))).toEqual([
      'Basics To Advanced In React',
      'The Future of Design Systems',
    ])
    expect(titles(await suggestBooks(database.db, 'django fram'))).toEqual(['Django Framework'])
    expect(titles(await suggestBooks(database.db, 'kowal'))).toEqual(['Django Framework'])
    expect(await suggestBooks(database.db, 'dj')).toEqual([
      { slug: 'django-framework', title: 'Django Framework', author: 'Hana Kowalczyk' },
    ])
  })

  test('one or two letters only match the start of titles', async () => {
    // 'go' is a word of the blockchain book's title, but no title starts with it.
    expect(await suggestBooks(database.db, 'go')).toEqual([])
    expect(titles(await suggestBooks(database.db, 't'))).toEqual(['The Future of Design Systems'])
  })

  test('correct typos too', async () => {
    expect(titles(await suggestBooks(database.db, 'djnago'))).toEqual(['Django Framework'])
  })
})

describe('the /search and /search/suggest loaders', () => {
  const search = (query: string) => searchLoader(routeArgs({ db: database.db, path: `/search${query}` }))
  const suggest = async (query: string) => {
    const response = await suggestLoader(routeArgs({ db: database.db, path: `/search/suggest${query}` }))
    return { status: response.status, body: (await response.json()) as unknown }
  }

  test('/search without a query shows the box alone', async () => {
    for (const query of ['', '?q=', '?q=%20%20', '?q=%00', '?page=2']) {
      expect(await search(query), query).toEqual({ query: '', results: null })
    }
  })

  test('/search?q= finds books, and the query is cut to 100 characters', async () => {
    const data = await search('?q=djnago')
    expect(data).toMatchObject({
      query: 'djnago',
      results: { query: 'django', matchCount: 1, page: { total: 1 } },
    })
    const long = `django ${'x'.repeat(200)}`
    const cut = await search(`?${new URLSearchParams({ q: long })}`)
    expect(cut).toMatchObject({ query: long.slice(0, 100) })
  })

  test('a page past the last goes back to the first', async () => {
    const response = await search('?q=django&page=3')
    expect(response).toBeInstanceOf(Response)
    expect((response as Response).status).toBe(302)
    expect((response as Response).headers.get('Location')).toBe('/search?q=django')
  })

  test('/search/suggest answers JSON, with no suggestions for a missing or empty q', async () => {
    expect(await suggest('?q=djan')).toEqual({
      status: 200,
      body: {
        suggestions: [{ slug: 'django-framework', title: 'Django Framework', author: 'Hana Kowalczyk' }],
      },
    })
    for (const query of ['', '?q=', '?q=%00', `?q=${'%20'.repeat(300)}`]) {
      expect(await suggest(query), query).toEqual({ status: 200, body: { suggestions: [] } })
    }
    const long = await suggest(`?q=rust${'%20in'.repeat(100)}`)
    expect(long.status).toBe(200)
  })

  test('any string at all: never an error (1,000 random queries to each loader)', async () => {
    // What visitors and robots type: any Unicode (lone surrogates and NUL included), tsquery and LIKE
    // operators, quotes, backslashes, percent signs that are not escapes, and catalogue words among them.
    const tricky = fc.constantFrom(
      '&',
      '|',
      '!',
      '(',
      ')',
      ':',
      '*',
      ':*',
      '<->',
      '<2>',
      "'",
      '"',
      '\\',
      '\u0000',
      '%',
      '%25',
      '%zz',
      '%E0%A4',
      '_',
      '-',
      '+',
      '#',
      ' ',
      'django',
      'rust',
      'a',
      'the',
      'go',
      '📚',
      'é',
      'İ',
      '\u200b',
      '\r\n',
    )
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 150 }),
      fc.string({ unit: 'grapheme', maxLength: 60 }),
      fc.array(tricky, { maxLength: 40 }).map((parts) => parts.join('')),
    )
    await fc.assert(
      fc.asyncProperty(text, fc.boolean(), async (q, raw) => {
        // Either as a browser would encode it, or put in the URL as it is (stray % and all).
        const query = raw ? `?q=${q}` : `?${new URLSearchParams({ q })}`
        const page = await search(`${query}&page=${q.length % 7}`)
        if (page instanceof Response) expect(page.status).toBe(302)
        else expect(Array.from(page.query).length).toBeLessThanOrEqual(100)
        const suggestions = await suggest(query)
        expect(suggestions.status).toBe(200)
        expect((suggestions.body as { suggestions: unknown[] }).suggestions.length).toBeLessThanOrEqual(5)
      }),
      { numRuns: 1000 },
    )
  }, 180_000)
})
