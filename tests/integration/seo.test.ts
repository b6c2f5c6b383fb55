import { eq, inArray, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import type { MetaDescriptor } from 'react-router'
import { seedBooks } from '#app/features/catalog/seed-books.ts'
import {
  bookSitemapStream,
  countAuthorSitemaps,
  countBookSitemaps,
  sitemapIndexXml,
  staticSitemapXml,
  xmlEscape,
} from '#app/features/seo/sitemap.server.ts'
import { canonicalUrl } from '#app/features/seo/meta.ts'
import { clearOgImageCache } from '#app/features/seo/og-image.server.ts'
import { bookEditions, books } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import * as root from '#app/root.tsx'
import * as account from '#app/routes/account.tsx'
import * as accountOrders from '#app/routes/account-orders.tsx'
import * as adminLayout from '#app/routes/admin/layout.tsx'
import * as allBooks from '#app/routes/all-books.tsx'
import * as book from '#app/routes/book.tsx'
import * as bookOgImage from '#app/routes/book-og-image.ts'
import * as cart from '#app/routes/cart.tsx'
import * as checkout from '#app/routes/checkout.tsx'
import * as forgotPassword from '#app/routes/forgot-password.tsx'
import * as home from '#app/routes/home.tsx'
import * as legacyBook from '#app/routes/legacy-book-details.tsx'
import * as legacyCart from '#app/routes/legacy-cart-details.tsx'
import * as library from '#app/routes/library.tsx'
import * as login from '#app/routes/login.tsx'
import * as notFound from '#app/routes/not-found.tsx'
import * as ogImage from '#app/routes/og-image.ts'
import * as register from '#app/routes/register.tsx'
import * as resetPassword from '#app/routes/reset-password.tsx'
import * as robots from '#app/routes/robots-txt.ts'
import * as search from '#app/routes/search.tsx'
import * as topic from '#app/routes/topic.tsx'
import * as topics from '#app/routes/topics.tsx'
import * as sitemapIndex from '#app/routes/sitemap-index.ts'
import * as sitemapPage from '#app/routes/sitemap-page.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'
import { schemaOrgProblems } from '#tests/schema-org.ts'

let database: TestDatabase
test.beforeAll(({ database: fileDatabase }) => {
  database = fileDatabase
})

const ORIGIN = 'http://localhost:3000'
const slugs = seedBooks.map((seed) => seed.slug)

type RouteModule = {
  loader?: (args: never) => unknown
  meta?: (args: never) => MetaDescriptor[] | undefined
}

/**
 * What React Router puts in a page's <head>: the route's loader runs on a real Request (with the root's, for
 * the public origin), then its `meta` export gets the same arguments the framework gives it.
 */
async function headOf(
  module: RouteModule,
  path: string,
  options: { params?: Record<string, string>; env?: Record<string, string>; runLoader?: boolean } = {},
) {
  const services = options.env ? { ...servicesFor(database.db), env: parseEnv(options.env) } : undefined
  const args = () => routeArgs({ db: database.db, path, params: options.params, services })
  const rootData = await root.loader(args() as never)
  let loaderData: unknown
  let error: unknown
  if (module.loader && options.runLoader !== false) {
    try {
      loaderData = await module.loader(args() as never)
    } catch (thrown) {
      error = thrown
    }
  }
  const url = new URL(path, ORIGIN)
  const tags =
    module.meta?.({
      loaderData,
      data: loaderData,
      error,
      params: options.params ?? {},
      location: { pathname: url.pathname, search: url.search, hash: '', state: null, key: 'default' },
      matches: [
        { id: 'root', pathname: '/', params: {}, loaderData: rootData, data: rootData, meta: [] },
        { id: 'page', pathname: url.pathname, params: {}, loaderData, data: loaderData, meta: [] },
      ],
    } as never) ?? []
  return new Head(tags)
}

class Head {
  constructor(readonly tags: MetaDescriptor[]) {}
  get title() {
    return this.tags.flatMap((tag) => ('title' in tag ? [String(tag.title)] : []))[0]
  }
  named(name: string) {
    return this.tags.flatMap((tag) => ('name' in tag && tag.name === name ? [String(tag.content)] : []))
  }
  property(name: string) {
    return this.tags.flatMap((tag) =>
      'property' in tag && tag.property === name ? [String(tag.content)] : [],
    )
  }
  get canonical() {
    return this.tags.flatMap((tag) =>
      'tagName' in tag && tag.tagName === 'link' && tag.rel === 'canonical' ? [String(tag.href)] : [],
    )
  }
  get jsonLd() {
    return this.tags.flatMap((tag) => ('script:ld+json' in tag ? [tag['script:ld+json'] as object] : []))
  }
  get noindex() {
    return this.named('robots').some((content) => content.includes('noindex'))
  }
}

const publicPages: Array<[string, RouteModule, string, Record<string, string>?]> = [
  ['home', home, '/'],
  ['all books', allBooks, '/AllBooks'],
  ['search box', search, '/search'],
  ['search results', search, '/search?q=react'],
  ['all books, page 2', allBooks, '/AllBooks?page=2'],
  ...slugs.map((slug): [string, RouteModule, string, Record<string, string>] => [
    slug,
    book,
    `/books/${slug}`,
    { slug },
  ]),
]

/** Pages of one's own: their meta does not need their (guarded) loader. */
const privatePages: Array<[string, RouteModule, string]> = [
  ['cart', cart, '/cart'],
  ['checkout', checkout, '/checkout'],
  ['login', login, '/login'],
  ['register', register, '/Register'],
  ['forgot password', forgotPassword, '/forgot-password'],
  ['reset password', resetPassword, '/reset-password'],
  ['account', account, '/account'],
  ['orders', accountOrders, '/account/orders'],
  ['library', library, '/account/library'],
  ['back office', adminLayout, '/admin'],
]

describe('titles and descriptions', () => {
  test('every page has its own title and a description; private pages are noindex', async () => {
    const titles = new Map<string, string>()
    for (const [name, module, path, params] of publicPages) {
      const head = await headOf(module, path, { params })
      expect(head.title, name).toMatch(/ — CodeBook$/)
      expect(head.named('description')[0]?.length, name).toBeGreaterThan(30)
      expect(titles.get(head.title!), `${name} repeats a title`).toBeUndefined()
      titles.set(head.title!, name)
    }
    for (const [name, module, path] of privatePages) {
      const head = await headOf(module, path, { runLoader: module === cart })
      expect(head.noindex, name).toBe(true)
      expect(head.canonical, name).toEqual([])
      expect(head.named('description')).toHaveLength(1)
      expect(titles.get(head.title!), `${name} repeats a title`).toBeUndefined()
      titles.set(head.title!, name)
    }
  })

  test('the home page and a book page can be indexed; search results cannot', async () => {
    expect((await headOf(home, '/')).noindex).toBe(false)
    expect((await headOf(book, `/books/${slugs[0]}`, { params: { slug: slugs[0]! } })).noindex).toBe(false)
    expect((await headOf(allBooks, '/AllBooks?topic=go&sort=price')).noindex).toBe(false)
    expect((await headOf(search, '/search?q=react')).noindex).toBe(true)
  })

  test('error pages are titled as errors and not indexed', async () => {
    const unknown = await headOf(book, '/books/no-such-book', { params: { slug: 'no-such-book' } })
    expect(unknown.title).toBe('Book not found — CodeBook')
    expect(unknown.noindex).toBe(true)
    expect(unknown.canonical).toEqual([])
    const missing = await headOf(notFound, '/nowhere')
    expect(missing.title).toBe('Page not found — CodeBook')
    expect(missing.noindex).toBe(true)
  })
})

describe('canonical URLs', () => {
  test('are absolute, on the configured public origin, not the request’s host', async () => {
    const head = await headOf(home, '/', { env: { BETTER_AUTH_URL: 'https://books.example.com' } })
    expect(head.canonical).toEqual(['https://books.example.com/'])
    expect(head.property('og:url')).toEqual(['https://books.example.com/'])
  })

  test.each([
    ['/AllBooks', `${ORIGIN}/AllBooks`],
    ['/allbooks', `${ORIGIN}/AllBooks`],
    ['/ALLBOOKS?topic=go&level=beginner&sort=price&price=10-20', `${ORIGIN}/AllBooks`],
    ['/AllBooks?page=1&rating=4', `${ORIGIN}/AllBooks`],
  ])('%s → %s', async (path, canonical) => {
    expect((await headOf(allBooks, path)).canonical).toEqual([canonical])
  })

  test('a later page of a list keeps its page number, and only that', () => {
    // The seed store has one page of books: the rule itself, as the lists' meta apply it.
    expect(canonicalUrl(ORIGIN, '/AllBooks', '?sort=newest&page=2&format=pdf', ['page'])).toBe(
      `${ORIGIN}/AllBooks?page=2`,
    )
    expect(canonicalUrl(ORIGIN, '/topics/go', '?page=3&level=beginner', ['page'])).toBe(
      `${ORIGIN}/topics/go?page=3`,
    )
  })

  test.each([
    ['/search', `${ORIGIN}/search`],
    ['/search?q=react', `${ORIGIN}/search?q=react`],
    ['/search?q=react&topic=javascript&sort=price', `${ORIGIN}/search?q=react`],
    ['/search?sort=rating&q=go&page=1', `${ORIGIN}/search?q=go`],
  ])('%s → %s', async (path, canonical) => {
    expect((await headOf(search, path)).canonical).toEqual([canonical])
  })

  test('a book page, whatever its case and review parameters, names /books/<slug>', async () => {
    const head = await headOf(book, '/books/Django-Framework?sort=helpful&page=2', {
      params: { slug: 'Django-Framework' },
    })
    expect(head.canonical).toEqual([`${ORIGIN}/books/django-framework`])
  })

  test('the seed’s URLs answer 301 to the canonical ones', async () => {
    for (const [list, index] of [
      ['Details', '0'],
      ['AllBooksDetails', '3'],
    ] as const) {
      const thrown = await thrownBy(() =>
        legacyBook.loader(routeArgs({ db: database.db, path: `/${list}/${index}`, params: { index } })),
      )
      expect(thrown).toBeInstanceOf(Response)
      expect((thrown as Response).status).toBe(301)
      expect((thrown as Response).headers.get('Location')).toMatch(/^\/books\/[a-z0-9-]+$/)
    }
    const cartRedirect = await thrownBy(() => legacyCart.loader())
    expect((cartRedirect as Response).headers.get('Location')).toBe('/cart')
  })
})

describe('Open Graph and Twitter cards', () => {
  test('a book page previews the book with its own image', async () => {
    const head = await headOf(book, '/books/django-framework', { params: { slug: 'django-framework' } })
    expect(head.property('og:type')).toEqual(['book'])
    expect(head.property('og:site_name')).toEqual(['CodeBook'])
    expect(head.property('og:title')).toEqual([head.title])
    expect(head.property('og:description')).toEqual(head.named('description'))
    expect(head.property('og:url')).toEqual([`${ORIGIN}/books/django-framework`])
    expect(head.property('og:image')).toEqual([`${ORIGIN}/books/django-framework/og.png?v=1`])
    expect(head.property('og:image:width')).toEqual(['1200'])
    expect(head.property('og:image:height')).toEqual(['630'])
    expect(head.property('og:image:alt')[0]).toMatch(/^Django Framework by .+, \$\d+(\.\d\d)? at CodeBook$/)
    expect(head.named('twitter:card')).toEqual(['summary_large_image'])
    expect(head.named('twitter:image')).toEqual(head.property('og:image'))
  })

  test('other public pages preview with the store’s image', async () => {
    for (const [module, path] of [
      [home, '/'],
      [allBooks, '/AllBooks'],
    ] as const) {
      const head = await headOf(module, path)
      expect(head.property('og:type')).toEqual(['website'])
      expect(head.property('og:image')).toEqual([`${ORIGIN}/og-image.png`])
      expect(head.named('twitter:card')).toEqual(['summary_large_image'])
    }
  })
})

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes: Uint8Array) {
  const view = Buffer.from(bytes)
  expect(view.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  expect(view.subarray(12, 16).toString('ascii')).toBe('IHDR')
  return { width: view.readUInt32BE(16), height: view.readUInt32BE(20) }
}

async function bookImage(slug: string, headers: Record<string, string> = {}) {
  const args = routeArgs({
    db: database.db,
    path: `/books/${slug}/og.png`,
    params: { slug },
    init: { headers },
  })
  return bookOgImage.loader(args)
}

describe('the Open Graph image of a book', () => {
  test('is a 1200×630 PNG, drawn once per version of the book and revalidated by its ETag', async () => {
    clearOgImageCache()
    let started = performance.now()
    const first = await bookImage('django-framework')
    const cold = performance.now() - started
    expect(first.status).toBe(200)
    expect(first.headers.get('Content-Type')).toBe('image/png')
    expect(first.headers.get('Cache-Control')).toMatch(/public, max-age=\d+/)
    const bytes = new Uint8Array(await first.arrayBuffer())
    expect(pngSize(bytes)).toEqual({ width: 1200, height: 630 })
    const etag = first.headers.get('ETag')!
    expect(etag).toMatch(/^"[\w-]+"$/)

    started = performance.now()
    const second = await bookImage('django-framework')
    const warm = performance.now() - started
    expect(new Uint8Array(await second.arrayBuffer())).toEqual(bytes)
    expect(warm).toBeLessThan(cold)
    console.info(
      `Open Graph image: cold ${cold.toFixed(0)} ms, warm ${warm.toFixed(1)} ms, ${bytes.length} bytes`,
    )

    const revalidated = await bookImage('django-framework', { 'If-None-Match': etag })
    expect(revalidated.status).toBe(304)
    expect(await revalidated.text()).toBe('')

    // An edit (the back office bumps the version) draws the new price.
    await database.db
      .update(books)
      .set({ priceCents: 4321, version: sql`${books.version} + 1` })
      .where(eq(books.slug, 'django-framework'))
    const edited = await bookImage('django-framework', { 'If-None-Match': etag })
    expect(edited.status).toBe(200)
    expect(edited.headers.get('ETag')).not.toBe(etag)
  })

  test('is a 404 for an unknown book and for one not published', async () => {
    expect((await bookImage('no-such-book')).status).toBe(404)
    await database.db
      .update(books)
      .set({ status: 'draft' })
      .where(eq(books.slug, 'the-future-of-design-systems'))
    try {
      expect((await bookImage('the-future-of-design-systems')).status).toBe(404)
    } finally {
      await database.db
        .update(books)
        .set({ status: 'published' })
        .where(eq(books.slug, 'the-future-of-design-systems'))
    }
  })

  test('the store’s own image for other pages is a 1200×630 PNG too', async () => {
    const response = await ogImage.loader(routeArgs({ db: database.db, path: '/og-image.png' }))
    expect(response.headers.get('Content-Type')).toBe('image/png')
    expect(pngSize(new Uint8Array(await response.arrayBuffer()))).toEqual({ width: 1200, height: 630 })
  })
})

type Node = Record<string, unknown>
const ofType = (documents: object[], type: string) =>
  documents.filter((document) => (document as Node)['@type'] === type) as Node[]

describe('structured data (JSON-LD) is valid schema.org', () => {
  test('the validator rejects what is not schema.org (it can fail)', async () => {
    const problems = await schemaOrgProblems([
      { '@context': 'https://schema.org', '@type': 'Bok', name: 'x' },
      { '@context': 'https://schema.org', '@type': 'Book', priceCurrency: 'USD' },
      { '@context': 'https://schema.org', '@type': 'Book', colour: 'red' },
      { '@type': 'Book', name: 'no context' },
    ])
    expect(problems).toEqual([
      expect.stringContaining('Bok is not a schema.org type'),
      expect.stringContaining('priceCurrency does not apply to Book'),
      expect.stringContaining('colour is not a schema.org property'),
      expect.stringContaining('without @context'),
    ])
  })

  test('/ names the store and its search', async () => {
    const documents = (await headOf(home, '/')).jsonLd
    expect(await schemaOrgProblems(documents)).toEqual([])
    expect(ofType(documents, 'Organization')).toHaveLength(1)
    const [site] = ofType(documents, 'WebSite')
    expect(site).toMatchObject({
      url: `${ORIGIN}/`,
      potentialAction: {
        '@type': 'SearchAction',
        target: { '@type': 'EntryPoint', urlTemplate: `${ORIGIN}/search?q={search_term_string}` },
      },
    })
  })

  test('/AllBooks and /search?q=react list their books in order', async () => {
    const all = await headOf(allBooks, '/AllBooks')
    expect(await schemaOrgProblems(all.jsonLd)).toEqual([])
    const [list] = ofType(all.jsonLd, 'ItemList')
    const items = list!.itemListElement as Node[]
    expect(items).toHaveLength(7)
    expect(items.map((item) => item.position)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(items[0]).toMatchObject({ '@type': 'ListItem', url: expect.stringMatching(`^${ORIGIN}/books/`) })

    const results = await headOf(search, '/search?q=react')
    expect(await schemaOrgProblems(results.jsonLd)).toEqual([])
    const [found] = ofType(results.jsonLd, 'ItemList')
    expect((found!.itemListElement as Node[]).length).toBeGreaterThan(0)
  })

  test('a topic page lists its books; its filtered variants name the topic page as canonical', async () => {
    const head = await headOf(topic, '/topics/databases?sort=price-asc&page=1', {
      params: { slug: 'databases' },
    })
    expect(await schemaOrgProblems(head.jsonLd)).toEqual([])
    expect(head.canonical).toEqual([`${ORIGIN}/topics/databases`])
    expect(head.title).toMatch(/^Databases eBooks — CodeBook$/)
    const [list] = ofType(head.jsonLd, 'ItemList')
    expect((list!.itemListElement as Node[]).length).toBeGreaterThan(0)
    const index = await headOf(topics, '/topics')
    expect(index.canonical).toEqual([`${ORIGIN}/topics`])
  })

  test('a book page has Book with its Offer, ratings and accessibility, and a BreadcrumbList', async () => {
    const head = await headOf(book, '/books/django-framework', { params: { slug: 'django-framework' } })
    expect(await schemaOrgProblems(head.jsonLd)).toEqual([])
    const [row] = await database.db
      .select({ version: books.version, priceCents: books.priceCents })
      .from(books)
      .where(eq(books.slug, 'django-framework'))
    const [bookNode] = ofType(head.jsonLd, 'Book')
    expect(bookNode).toMatchObject({
      name: 'Django Framework',
      url: `${ORIGIN}/books/django-framework`,
      image: `${ORIGIN}/books/django-framework/og.png?v=${row!.version}`,
      offers: {
        '@type': 'Offer',
        price: (row!.priceCents / 100).toFixed(2),
        priceCurrency: 'USD',
        availability: 'https://schema.org/InStock',
        url: `${ORIGIN}/books/django-framework`,
      },
    })
    // The EPUB's accessibility, as its package metadata states it (issue 29).
    expect(bookNode).toMatchObject({
      accessMode: ['textual', 'visual'],
      accessModeSufficient: { '@type': 'ItemList', itemListElement: ['textual'] },
      accessibilityHazard: ['none'],
      accessibilitySummary: expect.stringContaining(
        'The EPUB edition meets EPUB Accessibility 1.1 - WCAG 2.1 Level AA.',
      ),
    })
    expect(bookNode!.accessibilityFeature).toEqual(
      expect.arrayContaining([
        'structuralNavigation',
        'tableOfContents',
        'alternativeText',
        'pageNavigation',
      ]),
    )
    const [crumbs] = ofType(head.jsonLd, 'BreadcrumbList')
    expect((crumbs!.itemListElement as Node[]).map((item) => item.item)).toEqual([
      `${ORIGIN}/`,
      `${ORIGIN}/AllBooks`,
      `${ORIGIN}/books/django-framework`,
    ])
  })
})

describe('sitemaps', () => {
  /** Every <loc> of a sitemap or index, unescaped. */
  const locs = (xml: string) =>
    [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) =>
      match[1]!.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>'),
    )
  const read = async (stream: ReadableStream<Uint8Array> | null) => new Response(stream).text()

  test('the index lists every page; every published book appears exactly once, with its lastmod', async () => {
    const extra = Array.from({ length: 11 }, (_, index) => ({
      slug: `sitemap-book-${String(index).padStart(2, '0')}`,
      title: `Sitemap book ${index}`,
      author: 'A. Writer',
      description: 'A book for the sitemap test.',
      priceCents: 1000,
      coverPath: '/covers/placeholder.svg',
      coverAlt: 'A plain cover',
      rating: 4,
      fileSizeBytes: 1000,
      status: index === 10 ? ('draft' as const) : ('published' as const),
    }))
    await database.db.insert(books).values(extra)
    try {
      const [withEdition] = await database.db
        .select({ id: books.id })
        .from(books)
        .where(eq(books.slug, 'sitemap-book-03'))
      await database.db.insert(bookEditions).values({
        bookId: withEdition!.id,
        number: 1,
        manuscript: '# x',
        sourceHash: 'x',
        publishedAt: new Date('2024-05-06T10:00:00Z'),
      })
      const published = [
        ...slugs,
        ...extra.filter((row) => row.status === 'published').map((row) => row.slug),
      ]
      const pageSize = 4
      const pages = await countBookSitemaps(database.db, pageSize)
      expect(pages).toBe(Math.ceil(published.length / pageSize))
      const index = await sitemapIndexXml(database.db, ORIGIN, pageSize)
      expect(index).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<sitemapindex /)
      expect(locs(index)).toEqual([
        `${ORIGIN}/sitemaps/static.xml`,
        ...Array.from({ length: pages }, (_, page) => `${ORIGIN}/sitemaps/books-${page + 1}.xml`),
        // The authors of published books, as many pages of `pageSize` as they fill.
        ...Array.from(
          { length: await countAuthorSitemaps(database.db, pageSize) },
          (_, page) => `${ORIGIN}/sitemaps/authors-${page + 1}.xml`,
        ),
      ])
      const seen: string[] = []
      let lastmodOfEdition: string | undefined
      for (let page = 1; page <= pages; page++) {
        const xml = await read(await bookSitemapStream(database.db, ORIGIN, page, pageSize))
        expect(xml).toMatch(
          /<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">[\s\S]*<\/urlset>\n$/,
        )
        const pageLocs = locs(xml)
        expect(pageLocs.length).toBeLessThanOrEqual(pageSize)
        seen.push(...pageLocs)
        lastmodOfEdition ??= /sitemap-book-03<\/loc><lastmod>([\d-]+)</.exec(xml)?.[1]
        // Every URL has its lastmod, a W3C date.
        expect(xml.match(/<url><loc>[^<]+<\/loc><lastmod>\d{4}-\d{2}-\d{2}<\/lastmod><\/url>/g)).toHaveLength(
          pageLocs.length,
        )
      }
      expect(seen.toSorted()).toEqual(published.map((slug) => `${ORIGIN}/books/${slug}`).toSorted())
      expect(new Set(seen).size).toBe(seen.length)
      expect(lastmodOfEdition).toBe('2024-05-06')
      expect(await bookSitemapStream(database.db, ORIGIN, pages + 1, pageSize)).toBeNull()
      expect(await bookSitemapStream(database.db, ORIGIN, 0, pageSize)).toBeNull()
    } finally {
      await database.db.delete(books).where(
        inArray(
          books.slug,
          extra.map((row) => row.slug),
        ),
      )
    }
  })

  test('the static sitemap has the store’s pages and one per topic of a published book', async () => {
    const pageLocs = locs(await staticSitemapXml(database.db, ORIGIN))
    expect(pageLocs.slice(0, 3)).toEqual([`${ORIGIN}/`, `${ORIGIN}/AllBooks`, `${ORIGIN}/topics`])
    const topics = [...new Set(seedBooks.flatMap((seed) => seed.topics))].toSorted()
    expect(pageLocs.slice(3, -6)).toEqual(topics.map((topic) => `${ORIGIN}/topics/${topic}`))
    expect(pageLocs.slice(-6)).toEqual(
      ['about', 'contact', 'terms', 'privacy', 'refunds', 'imprint'].map((slug) => `${ORIGIN}/${slug}`),
    )
  })

  test('URLs are XML-escaped', async () => {
    expect(xmlEscape(`a&b<c>"d'`)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;')
    const index = await sitemapIndexXml(database.db, 'https://example.com/shop?a=1&b=2')
    expect(index).toContain('<loc>https://example.com/shop?a=1&amp;b=2/sitemap')
    expect(index).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;)/)
  })

  test('the routes answer XML that may be cached, and 404 for a sitemap that does not exist', async () => {
    const index = await sitemapIndex.loader(routeArgs({ db: database.db, path: '/sitemap.xml' }))
    expect(index.headers.get('Content-Type')).toBe('application/xml; charset=utf-8')
    expect(index.headers.get('Cache-Control')).toMatch(/^public/)
    expect(locs(await index.text())).toContain(`${ORIGIN}/sitemaps/books-1.xml`)
    const page = (file: string) =>
      sitemapPage.loader(routeArgs({ db: database.db, path: `/sitemaps/${file}`, params: { file } }))
    const books1 = await page('books-1.xml')
    expect(books1.status).toBe(200)
    expect(locs(await books1.text())).toHaveLength(7)
    expect((await page('static.xml')).status).toBe(200)
    for (const file of ['books-2.xml', 'books-0.xml', 'books-x.xml', 'other.xml', 'books-99999999999.xml'])
      expect((await page(file)).status, file).toBe(404)
  })
})

describe('robots.txt', () => {
  test('names the sitemap index by its absolute URL and keeps crawlers out of private pages', async () => {
    const response = robots.loader(
      routeArgs({
        db: database.db,
        path: '/robots.txt',
        services: {
          ...servicesFor(database.db),
          env: parseEnv({ BETTER_AUTH_URL: 'https://books.example.com' }),
        },
      }),
    )
    expect(response.headers.get('Content-Type')).toBe('text/plain; charset=utf-8')
    expect(response.headers.get('Cache-Control')).toMatch(/^public/)
    const lines = (await response.text()).split('\n')
    expect(lines).toContain('User-agent: *')
    expect(lines).toContain('Sitemap: https://books.example.com/sitemap.xml')
    for (const path of ['/cart', '/checkout', '/account', '/admin', '/orders', '/login', '/Register'])
      expect(lines).toContain(`Disallow: ${path}`)
    expect(lines.filter((line) => /^Disallow: \/(books|AllBooks|topics|search)?$/.test(line))).toEqual([])
  })
})
