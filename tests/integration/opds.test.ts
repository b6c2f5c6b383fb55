import { and, asc, eq, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import { OPDS_PAGE_SIZE } from '#app/features/opds/opds-books.server.ts'
import { bookEditions, books, bookTopics, topics } from '#app/server/db/schema/index.server.ts'
import sharp from 'sharp'
import * as bookCoverPng from '#app/routes/book-cover-png.ts'
import * as home from '#app/routes/home.tsx'
import * as opds from '#app/routes/opds.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { readOpds1, readOpds2, type R2Link } from '#tests/readium-opds.ts'
import { routeArgs } from '#tests/route-args.ts'

/**
 * Issue 33's public catalogue feeds, read as a reading app reads them: every OPDS 1.2 feed is parsed by Readium's
 * parser (r2-opds-js, what Thorium uses) and converted to OPDS 2 by it, every OPDS 2.0 feed deserialised by it.
 */

let database: TestDatabase
test.beforeAll(({ database: fileDatabase }) => {
  database = fileDatabase
})

const ORIGIN = 'http://localhost:3000'

async function get(path: string): Promise<Response> {
  const url = new URL(path, ORIGIN)
  const splat = url.pathname.replace(/^\/opds\/?/, '')
  return opds.loader(routeArgs({ db: database.db, path, params: { '*': splat } }) as never)
}

/** An OPDS 1.2 feed as Readium reads it, and converted by it to OPDS 2. */
async function opds1(path: string) {
  const response = await get(path)
  expect(response.status, path).toBe(200)
  const xml = await response.text()
  return { response, xml, ...readOpds1(xml) }
}

/** An OPDS 2.0 feed as Readium reads it. */
async function opds2(path: string) {
  const response = await get(path)
  expect(response.status, path).toBe(200)
  expect(response.headers.get('Content-Type')).toBe('application/opds+json; charset=utf-8')
  const json = (await response.json()) as Record<string, unknown>
  return { json, feed: readOpds2(json) }
}

const hrefsOf = (links: { Href: string }[]) => links.map((link) => link.Href)
const relOf = (link: R2Link) => link.Rel?.[0]

describe('the root and the navigation', () => {
  test('/opds is a navigation feed leading to new, best sellers, all books, your library and topics', async () => {
    const { response, feed } = await opds1('/opds')
    expect(response.headers.get('Content-Type')).toBe(
      'application/atom+xml;profile=opds-catalog;kind=navigation;charset=utf-8',
    )
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*')
    expect(feed.Title).toBe('CodeBook')
    expect(feed.Entries!.map((entry) => entry.Title)).toEqual([
      'New books',
      'Best sellers',
      'All books',
      'Your library',
      'Topics',
    ])
    expect(feed.Entries!.flatMap((entry) => hrefsOf(entry.Links))).toEqual([
      `${ORIGIN}/opds/new`,
      `${ORIGIN}/opds/best-sellers`,
      `${ORIGIN}/opds/books`,
      `${ORIGIN}/opds/library`,
      `${ORIGIN}/opds/topics`,
    ])
    const search = feed.Links.find((link) => link.Rel === 'search')
    expect(search).toMatchObject({
      Href: `${ORIGIN}/opds/opensearch.xml`,
      Type: 'application/opensearchdescription+xml',
    })

    const v2 = await opds2('/opds/v2')
    expect(v2.feed.Navigation?.map((link) => link.Href)).toEqual([
      `${ORIGIN}/opds/v2/new`,
      `${ORIGIN}/opds/v2/best-sellers`,
      `${ORIGIN}/opds/v2/books`,
      `${ORIGIN}/opds/v2/library`,
      `${ORIGIN}/opds/v2/topics`,
    ])
    const templated = (v2.json.links as { rel: string; href: string; templated?: boolean }[]).find(
      (l) => l.rel === 'search',
    )
    expect(templated).toMatchObject({ href: `${ORIGIN}/opds/v2/search{?query}`, templated: true })
  })

  test('the home page advertises both catalogues and the search with <link rel>', () => {
    expect(home.links()).toEqual([
      {
        rel: 'alternate',
        type: 'application/atom+xml;profile=opds-catalog;kind=navigation',
        href: '/opds',
        title: 'CodeBook catalogue (OPDS 1.2)',
      },
      {
        rel: 'alternate',
        type: 'application/opds+json',
        href: '/opds/v2',
        title: 'CodeBook catalogue (OPDS 2.0)',
      },
      {
        rel: 'search',
        type: 'application/opensearchdescription+xml',
        href: '/opds/opensearch.xml',
        title: 'CodeBook',
      },
    ])
  })

  test('the OpenSearch description gives the search URL template', async () => {
    const response = await get('/opds/opensearch.xml')
    expect(response.headers.get('Content-Type')).toBe('application/opensearchdescription+xml; charset=utf-8')
    const description = await response.text()
    expect(description).toContain(`template="${ORIGIN}/opds/search?q={searchTerms}"`)
    expect(description).toContain(`template="${ORIGIN}/search?q={searchTerms}"`)
  })

  test('topics list each topic with its count, and lead to its books', async () => {
    const { feed } = await opds1('/opds/topics')
    const go = feed.Entries!.find((entry) => entry.Title === 'Go')
    expect(go?.Links[0]?.Href).toBe(`${ORIGIN}/opds/topics/go`)
    const { feed: topic } = await opds1('/opds/topics/go')
    const goBooks = await database.db
      .select({ title: books.title })
      .from(books)
      .innerJoin(bookTopics, eq(bookTopics.bookId, books.id))
      .innerJoin(topics, eq(topics.id, bookTopics.topicId))
      .where(and(eq(topics.slug, 'go'), eq(books.status, 'published')))
      .orderBy(asc(books.title))
    expect(goBooks.length).toBeGreaterThan(0)
    expect(topic.Entries!.map((entry) => entry.Title)).toEqual(goBooks.map((book) => book.title))
    expect((await get('/opds/topics/no-such-topic')).status).toBe(404)
    expect((await get('/opds/v2/topics/no-such-topic')).status).toBe(404)
    expect((await get('/opds/nothing-here')).status).toBe(404)
  })
})

describe('acquisition feeds', () => {
  test('every published book with its price, covers, samples, author and the date of its newest edition', async () => {
    const [book] = await database.db.select().from(books).where(eq(books.slug, seedBooks[0]!.slug))
    const editionDate = new Date('2031-05-06T07:08:09.000Z')
    await database.db.insert(bookEditions).values({
      bookId: book!.id,
      number: 99,
      manuscript: '# A\n\nText.\n',
      sourceHash: 'x',
      publishedAt: editionDate,
    })
    const { feed, converted } = await opds1('/opds/books')
    expect(feed.Entries).toHaveLength(seedBooks.length)
    const entry = feed.Entries!.find((e) => e.Title === book!.title)!
    expect(entry.Id).toBe(`urn:uuid:${book!.id}`)
    const buy = entry.Links.find((link) => link.Rel === 'http://opds-spec.org/acquisition/buy')!
    expect(buy).toMatchObject({
      Href: `${ORIGIN}/books/${book!.slug}`,
      Type: 'text/html',
      OpdsPrice: book!.priceCents / 100,
      OpdsPriceCurrencyCode: book!.currency,
    })
    const samples = entry.Links.filter((link) => link.Rel === 'http://opds-spec.org/acquisition/sample')
    expect(samples.map((link) => [link.Href, link.Type])).toEqual([
      [`${ORIGIN}/read/${book!.slug}/sample.epub`, 'application/epub+zip'],
      [`${ORIGIN}/books/${book!.slug}/sample.pdf`, 'application/pdf'],
    ])
    // The seed's SVG cover, drawn as a PNG: OPDS wants a JPEG, PNG or GIF, and reading apps draw no SVG.
    const image = entry.Links.find((link) => link.Rel === 'http://opds-spec.org/image')!
    expect([image.Href, image.Type]).toEqual([`${ORIGIN}/books/${book!.slug}/cover.png`, 'image/png'])
    const png = await bookCoverPng.loader(
      routeArgs({
        db: database.db,
        path: `/books/${book!.slug}/cover.png`,
        params: { slug: book!.slug },
      }) as never,
    )
    expect(png.headers.get('Content-Type')).toBe('image/png')
    expect(await sharp(Buffer.from(await png.arrayBuffer())).metadata()).toMatchObject({
      format: 'png',
      width: 400,
      height: 600,
    })

    // Readium's own conversion to OPDS 2 finds the same publication, price and update.
    const publication = converted.Publications!.find((p) => p.Metadata.Title === book!.title)!
    expect(publication.Metadata.Modified?.toISOString()).toBe(editionDate.toISOString())
    expect(
      publication.Links.find((link) => relOf(link) === 'http://opds-spec.org/acquisition/buy')?.Properties
        ?.Price,
    ).toEqual({
      Currency: book!.currency,
      Value: book!.priceCents / 100,
    })

    const v2 = await opds2('/opds/v2/books')
    const same = v2.feed.Publications!.find((p) => p.Metadata.Title === book!.title)!
    expect(same.Metadata.Identifier).toBe(`urn:uuid:${book!.id}`)
    expect(same.Metadata.Modified?.toISOString()).toBe(editionDate.toISOString())
    expect(same.Metadata.Author?.[0]?.Name).toBe(book!.author)
    expect(same.Images.map((image) => [image.Href, image.TypeLink, image.Width, image.Height])).toEqual([
      [`${ORIGIN}/books/${book!.slug}/cover.png`, 'image/png', 400, 600],
    ])
    expect(same.Links.map((link) => [relOf(link), link.TypeLink])).toEqual([
      ['alternate', 'text/html'],
      ['http://opds-spec.org/acquisition/buy', 'text/html'],
      ['http://opds-spec.org/acquisition/sample', 'application/epub+zip'],
      ['http://opds-spec.org/acquisition/sample', 'application/pdf'],
    ])
    await database.db
      .delete(bookEditions)
      .where(and(eq(bookEditions.bookId, book!.id), eq(bookEditions.number, 99)))
  })

  test('an archived or draft book is in no feed', async () => {
    const [archived] = await database.db
      .update(books)
      .set({ status: 'archived' })
      .where(eq(books.slug, seedBooks[1]!.slug))
      .returning({ title: books.title })
    try {
      for (const path of [
        '/opds/books',
        '/opds/new',
        '/opds/best-sellers',
        '/opds/search?q=' + encodeURIComponent(archived!.title),
      ]) {
        const response = await get(path)
        expect(response.status, path).toBe(200)
        const { feed } = await opds1(path)
        expect(
          (feed.Entries ?? []).map((entry) => entry.Title),
          path,
        ).not.toContain(archived!.title)
      }
    } finally {
      await database.db.update(books).set({ status: 'published' }).where(eq(books.slug, seedBooks[1]!.slug))
    }
  })

  test('search finds books in both versions; no words or a forged page link is a 400', async () => {
    const { feed, xml } = await opds1('/opds/search?q=django')
    expect(feed.Entries!.map((entry) => entry.Title)).toContain('Django Framework')
    expect(xml).toMatch(/<opensearch:totalResults>\d+<\/opensearch:totalResults>/)
    const v2 = await opds2('/opds/v2/search?query=django')
    expect(v2.feed.Publications!.map((p) => p.Metadata.Title)).toContain('Django Framework')
    expect(v2.feed.Metadata.NumberOfItems).toBeGreaterThan(0)

    const empty = await get('/opds/search?q=%20')
    expect(empty.status).toBe(400)
    expect(await empty.text()).toContain('Say what to search for')
    const forged = await get('/opds/v2/books?after=not-a-cursor')
    expect(forged.status).toBe(400)
    expect(forged.headers.get('Content-Type')).toBe('application/problem+json')
    expect(await forged.json()).toMatchObject({
      status: 400,
      detail: 'This page link is not one the catalogue made.',
    })
  })

  test(`long lists come ${OPDS_PAGE_SIZE} at a time; following 'next' lists every book once, in order`, async () => {
    const extra = 2 * OPDS_PAGE_SIZE + 7
    const base = Date.now() - 1_000_000
    await database.db.insert(books).values(
      Array.from({ length: extra }, (_, n) => ({
        slug: `opds-book-${n}`,
        // Equal titles in pairs: the id breaks the tie, so a page boundary never skips or repeats one.
        title: `OPDS Paging ${String(Math.floor(n / 2)).padStart(3, '0')}`,
        author: 'Paging Author',
        description: 'A book for the paging test.',
        priceCents: 500,
        coverPath: '/covers/django-framework.svg',
        coverAlt: 'A cover',
        rating: 4,
        fileSizeBytes: 1000,
        // Equal dates in threes, for the newest-first keyset.
        createdAt: new Date(base + Math.floor(n / 3) * 1000),
      })),
    )
    // Apart by microseconds, within one millisecond: the newest-first cursor must keep them apart.
    await database.db.execute(
      sql`update books set created_at = timestamptz '2020-01-01 00:00:00+00' + (substring(slug from 11)::int / 3) * interval '1 microsecond' where slug like 'opds-book-%'`,
    )
    const total = seedBooks.length + extra
    for (const [path, expected] of [
      ['/opds/books', 'title'],
      ['/opds/new', 'newest'],
      ['/opds/v2/books', 'title'],
    ] as const) {
      const seen: string[] = []
      let next: string | undefined = path
      let pages = 0
      while (next) {
        pages++
        if (path.startsWith('/opds/v2')) {
          const { feed } = await opds2(next)
          seen.push(...feed.Publications!.map((p) => p.Metadata.Identifier))
          next = feed.Links.find((link) => relOf(link) === 'next')?.Href.replace(ORIGIN, '')
        } else {
          const { feed } = await opds1(next)
          seen.push(...feed.Entries!.map((entry) => entry.Id))
          next = feed.Links.find((link) => link.Rel === 'next')?.Href.replace(ORIGIN, '')
        }
      }
      expect(pages, path).toBe(Math.ceil(total / OPDS_PAGE_SIZE))
      expect(new Set(seen).size, path).toBe(total)
      const rows = await database.db
        .select({
          id: books.id,
          title: books.title,
          createdAt: sql<string>`to_char(${books.createdAt}, 'YYYYMMDDHH24MISSUS')`,
        })
        .from(books)
        .where(eq(books.status, 'published'))
      const sorted = [...rows].sort((a, b) =>
        expected === 'title'
          ? a.title < b.title
            ? -1
            : a.title > b.title
              ? 1
              : a.id < b.id
                ? -1
                : 1
          : b.createdAt.localeCompare(a.createdAt) || (a.id < b.id ? 1 : -1),
      )
      expect(seen, path).toEqual(sorted.map((row) => `urn:uuid:${row.id}`))
    }
  })
})
