import { and, asc, count, eq, gt, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { bookEditions, books, bookTopics, topics } from '#app/server/db/schema/index.server.ts'
import { SITE_PAGES } from '#app/features/site-pages/site-pages.ts'
import { countPublishedAuthors, listPublishedAuthorSlugs } from '#app/features/authors/authors.server.ts'
import { listActiveBundleSlugs } from '#app/features/bundles/bundles.server.ts'

/**
 * The sitemaps (https://www.sitemaps.org/protocol.html): /sitemap.xml is an index of /sitemaps/static.xml (the
 * store's own pages and a page per topic), /sitemaps/books-<n>.xml, at most 50,000 published books each, and
 * /sitemaps/authors-<n>.xml, the pages of authors with a published book.
 * A books sitemap is written as a stream, read from the database in keyset-paged chunks by slug, so that a
 * large catalogue is never held in memory (docs/decisions/020-seo.md).
 */

/** The protocol's limit of URLs per sitemap. */
export const SITEMAP_MAX_URLS = 50_000
/** Rows read per query while a books sitemap is streamed. */
const CHUNK = 2_000

const published = eq(books.status, 'published')

export function xmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

/** How many books sitemaps there are (at least one, empty when nothing is published). */
export async function countBookSitemaps(db: Db, pageSize = SITEMAP_MAX_URLS): Promise<number> {
  const [row] = await db.select({ total: count() }).from(books).where(published)
  return Math.max(1, Math.ceil((row?.total ?? 0) / pageSize))
}

/** How many authors sitemaps there are (none when no author has a published book). */
export async function countAuthorSitemaps(db: Db, pageSize = SITEMAP_MAX_URLS): Promise<number> {
  return Math.ceil((await countPublishedAuthors(db)) / pageSize)
}

export async function sitemapIndexXml(db: Db, origin: string, pageSize = SITEMAP_MAX_URLS): Promise<string> {
  const [pages, authorPages] = await Promise.all([
    countBookSitemaps(db, pageSize),
    countAuthorSitemaps(db, pageSize),
  ])
  const locations = [
    `${origin}/sitemaps/static.xml`,
    ...Array.from({ length: pages }, (_, index) => `${origin}/sitemaps/books-${index + 1}.xml`),
    ...Array.from({ length: authorPages }, (_, index) => `${origin}/sitemaps/authors-${index + 1}.xml`),
  ]
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...locations.map((loc) => `<sitemap><loc>${xmlEscape(loc)}</loc></sitemap>`),
    '</sitemapindex>',
    '',
  ].join('\n')
}

/**
 * The store's pages that are not a book's: home, the catalogue, the topics index, each topic in use, the
 * bundles' pages (a store has a few, not thousands) and the site pages.
 */
export async function staticSitemapXml(db: Db, origin: string): Promise<string> {
  const [rows, bundleSlugs] = await Promise.all([
    db
      .selectDistinct({ slug: topics.slug })
      .from(topics)
      .innerJoin(bookTopics, eq(bookTopics.topicId, topics.id))
      .innerJoin(books, eq(books.id, bookTopics.bookId))
      .where(published)
      .orderBy(topics.slug),
    listActiveBundleSlugs(db),
  ])
  const paths = ['/', '/AllBooks', '/topics', ...rows.map((row) => `/topics/${row.slug}`)]
  paths.push(...bundleSlugs.map((slug) => `/bundles/${slug}`))
  // The site pages (About, Contact, the legal pages), after the catalogue's.
  paths.push(...SITE_PAGES.map((sitePage) => `/${sitePage.slug}`))
  return urlset(paths.map((path) => urlEntry(`${origin}${path}`)))
}

/**
 * Authors sitemap number `page` (from 1): the pages of authors with a published book, by slug; null past the
 * last one. Slugs are short, so a page of 50,000 is read at once (a few megabytes at most).
 */
export async function authorSitemapXml(
  db: Db,
  origin: string,
  page: number,
  pageSize = SITEMAP_MAX_URLS,
): Promise<string | null> {
  if (!Number.isSafeInteger(page) || page < 1) return null
  if (page > (await countAuthorSitemaps(db, pageSize))) return null
  const slugs = await listPublishedAuthorSlugs(db, (page - 1) * pageSize, pageSize)
  return urlset(slugs.map((slug) => urlEntry(`${origin}/authors/${encodeURIComponent(slug)}`)))
}

/**
 * Books sitemap number `page` (from 1) as a stream, or null past the last one. Its books are the published
 * ones in slug order; `lastmod` is the day of the newest edition, else of the book's last change.
 */
export async function bookSitemapStream(
  db: Db,
  origin: string,
  page: number,
  pageSize = SITEMAP_MAX_URLS,
): Promise<ReadableStream<Uint8Array> | null> {
  if (!Number.isSafeInteger(page) || page < 1) return null
  if (page > (await countBookSitemaps(db, pageSize))) return null
  const encoder = new TextEncoder()
  let remaining = pageSize
  let after: string | null = null
  let started = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true
          controller.enqueue(encoder.encode(urlsetOpening))
        }
        const limit = Math.min(CHUNK, remaining)
        // The page's first chunk skips the pages before it (an index scan); the next ones go on from the last
        // slug seen, so each query is as cheap as the first.
        const rows: BookRow[] =
          limit > 0 ? await readChunk(db, after, after ? 0 : (page - 1) * pageSize, limit) : []
        remaining -= rows.length
        if (rows.length > 0) {
          after = rows.at(-1)!.slug
          const entries = rows.map((row) =>
            urlEntry(`${origin}/books/${encodeURIComponent(row.slug)}`, row.lastmod ?? undefined),
          )
          controller.enqueue(encoder.encode(`${entries.join('\n')}\n`))
        }
        if (rows.length < limit || remaining === 0) {
          controller.enqueue(encoder.encode(urlsetClosing))
          controller.close()
        }
      } catch (error) {
        controller.error(error)
      }
    },
  })
}

type BookRow = { slug: string; lastmod: string | null }

function readChunk(db: Db, after: string | null, offset: number, limit: number): Promise<BookRow[]> {
  const newestEdition = db
    .select({ at: sql`max(${bookEditions.publishedAt})` })
    .from(bookEditions)
    .where(eq(bookEditions.bookId, books.id))
  // The W3C date (YYYY-MM-DD) is made by the database, in UTC, the same on PGlite and PostgreSQL.
  const lastmod = sql<
    string | null
  >`to_char(coalesce((${newestEdition}), ${books.updatedAt}) at time zone 'UTC', 'YYYY-MM-DD')`
  return db
    .select({ slug: books.slug, lastmod })
    .from(books)
    .where(after === null ? published : and(published, gt(books.slug, after)))
    .orderBy(asc(books.slug))
    .offset(offset)
    .limit(limit)
}

const urlsetOpening =
  '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
const urlsetClosing = '</urlset>\n'

function urlset(entries: string[]): string {
  return `${urlsetOpening}${entries.map((entry) => `${entry}\n`).join('')}${urlsetClosing}`
}

function urlEntry(loc: string, lastmod?: string): string {
  return `<url><loc>${xmlEscape(loc)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`
}

/** robots.txt: every crawler may read the store except its private pages; the sitemap index is named. */
export function robotsTxt(origin: string): string {
  const privatePaths = [
    '/cart',
    '/CartDetails',
    '/checkout',
    '/account',
    '/orders',
    '/admin',
    '/login',
    '/Register',
    '/register',
    '/logout',
    '/forgot-password',
    '/reset-password',
    '/library',
    '/api',
    '/webhooks',
    '/search/suggest',
    '/theme',
  ]
  return [
    'User-agent: *',
    'Allow: /',
    ...privatePaths.map((path) => `Disallow: ${path}`),
    '',
    `Sitemap: ${origin}/sitemap.xml`,
    '',
  ].join('\n')
}
