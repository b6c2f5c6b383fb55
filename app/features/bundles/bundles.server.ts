import crypto from 'node:crypto'
import { and, asc, eq, sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import sharp from 'sharp'
import { readCoverSource } from '#app/features/catalog/covers.server.ts'
import { priceBundle } from '#app/features/pricing/bundle-price.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { books, bundleBooks, bundles, libraryItems } from '#app/server/db/schema/index.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'

/** A bundle's page (issue 30): the bundle, its books, and what it costs the reader looking at it. */
export type BundlePage = {
  id: string
  slug: string
  title: string
  description: string
  priceCents: number
  currency: string
  updatedAt: Date
  books: {
    id: string
    slug: string
    title: string
    author: string
    coverPath: string
    /** An uploaded cover's stored sizes (null: the seed's SVG at coverPath). */
    cover: (typeof books.$inferSelect)['cover']
    priceCents: number
    currency: string
    owned: boolean
  }[]
  /** The books' prices together: what buying them one by one costs. */
  separateCents: number
  /** What the reader pays (less when they own some: decision 033), or null when they own them all. */
  yourPriceCents: number | null
  /** Every book is published and for sale: the bundle can be bought. */
  forSale: boolean
}

/** A bundle that is in the store (switched on), with its books in order; null for an unknown or switched-off one. */
export async function getBundlePage(db: Db, slug: string, userId: string | null): Promise<BundlePage | null> {
  const [bundle] = await db
    .select({
      id: bundles.id,
      slug: bundles.slug,
      title: bundles.title,
      description: bundles.description,
      priceCents: bundles.priceCents,
      currency: bundles.currency,
      updatedAt: bundles.updatedAt,
    })
    .from(bundles)
    .where(and(eq(bundles.slug, slug), eq(bundles.active, true)))
    .limit(1)
  if (!bundle) return null
  const rows = await db
    .select({
      id: books.id,
      slug: books.slug,
      title: books.title,
      author: books.author,
      coverPath: books.coverPath,
      cover: books.cover,
      priceCents: books.priceCents,
      currency: books.currency,
      forSale: sql<boolean>`${books.available} and ${books.status} = 'published'`,
      owned: userId
        ? sql<boolean>`exists (select 1 from ${libraryItems} where ${libraryItems.userId} = ${userId} and ${libraryItems.bookId} = ${books.id})`
        : sql<boolean>`false`,
    })
    .from(bundleBooks)
    .innerJoin(books, eq(books.id, bundleBooks.bookId))
    .where(eq(bundleBooks.bundleId, bundle.id))
    .orderBy(asc(bundleBooks.position))
  const priced = priceBundle(
    bundle.priceCents,
    rows.map((row) => ({ bookId: row.id, listCents: row.priceCents, owned: row.owned })),
  )
  return {
    ...bundle,
    books: rows.map(({ forSale: _forSale, ...book }) => book),
    separateCents: rows.reduce((total, row) => total + row.priceCents, 0),
    yourPriceCents: priced?.priceCents ?? null,
    forSale: rows.length > 0 && rows.every((row) => row.forSale),
  }
}

export type BundleWithBook = {
  slug: string
  title: string
  priceCents: number
  currency: string
  bookCount: number
}

/** The bundles in the store that include a book, with how many books each has: its page points to them. */
export function listBundlesWithBook(db: Db, bookId: string): Promise<BundleWithBook[]> {
  return db
    .select({
      slug: bundles.slug,
      title: bundles.title,
      priceCents: bundles.priceCents,
      currency: bundles.currency,
      bookCount:
        sql<number>`(select count(*) from ${bundleBooks} as members where members.bundle_id = ${bundles.id})`.mapWith(
          Number,
        ),
    })
    .from(bundleBooks)
    .innerJoin(bundles, eq(bundles.id, bundleBooks.bundleId))
    .where(and(eq(bundleBooks.bookId, bookId), eq(bundles.active, true)))
    .orderBy(asc(bundles.title))
}

/** The slugs of the bundles that have a page (the active ones), for the sitemap. */
export async function listActiveBundleSlugs(db: Db): Promise<string[]> {
  const rows = await db
    .select({ slug: bundles.slug })
    .from(bundles)
    .where(eq(bundles.active, true))
    .orderBy(asc(bundles.slug))
  return rows.map((row) => row.slug)
}

export const BUNDLE_COVER = { width: 1200, height: 630 } as const

type Collage = { png: Buffer; etag: string }
type CollageContext = { storage: FileStorage; books: BundlePage['books'] }

/** Drawn collages by bundle and version, at most 16 MB of them; one drawing per key at a time (`fetch`). */
const covers = new LRUCache<string, Collage, CollageContext>({
  maxSize: 16 * 1024 * 1024,
  sizeCalculation: (collage) => collage.png.length,
  fetchMethod: (_key, _stale, { context }) => drawCollage(context.storage, context.books.slice(0, 4)),
})

/**
 * The bundle's cover: its first books' covers fanned out on a 1200×630 PNG, for its page, link previews and
 * its JSON-LD. Drawn by sharp on first request and kept in memory under the bundle's id and last change.
 */
export async function bundleCoverPng(
  storage: FileStorage,
  bundle: Pick<BundlePage, 'id' | 'updatedAt' | 'books'>,
): Promise<Collage> {
  const key = `${bundle.id}:${bundle.updatedAt.getTime()}:${bundle.books.map((book) => book.coverPath).join(',')}`
  return (await covers.fetch(key, { context: { storage, books: bundle.books } }))!
}

async function drawCollage(
  storage: FileStorage,
  shown: BundlePage['books'],
): Promise<{ png: Buffer; etag: string }> {
  const { width, height } = BUNDLE_COVER
  const coverHeight = 520
  const coverWidth = Math.round((coverHeight * 2) / 3)
  const step =
    shown.length > 1 ? Math.min(coverWidth + 40, (width - 120 - coverWidth) / (shown.length - 1)) : 0
  const left0 = Math.round((width - (coverWidth + step * (shown.length - 1))) / 2)
  const layers = await Promise.all(
    shown.map(async (book, index) => {
      const source = await readCoverSource(storage, book)
      const input = source
        ? await sharp(source, { density: 144 })
            .resize(coverWidth, coverHeight, { fit: 'cover' })
            .png()
            .toBuffer()
        : await sharp({
            create: { width: coverWidth, height: coverHeight, channels: 3, background: '#334155' },
          })
            .png()
            .toBuffer()
      return { input, left: Math.round(left0 + index * step), top: Math.round((height - coverHeight) / 2) }
    }),
  )
  const png = await sharp({ create: { width, height, channels: 3, background: '#0f172a' } })
    .composite(layers)
    .png({ compressionLevel: 9 })
    .toBuffer()
  return { png, etag: `"${crypto.createHash('sha256').update(png).digest('hex').slice(0, 32)}"` }
}

/** How many of a bundle's books a reader owns: none, some, or all. */
export async function getBundleOwnership(
  db: Db,
  bundleId: string,
  userId: string,
): Promise<'none' | 'some' | 'all'> {
  const [row] = await db
    .select({
      books: sql<number>`count(*)`.mapWith(Number),
      owned: sql<number>`count(${libraryItems.bookId})`.mapWith(Number),
    })
    .from(bundleBooks)
    .leftJoin(libraryItems, and(eq(libraryItems.bookId, bundleBooks.bookId), eq(libraryItems.userId, userId)))
    .where(eq(bundleBooks.bundleId, bundleId))
  if (!row || row.owned === 0) return 'none'
  return row.owned === row.books ? 'all' : 'some'
}
