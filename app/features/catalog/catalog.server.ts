import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, bookSlugRedirects } from '#app/server/db/schema/index.server.ts'
import { plainText } from './markdown.ts'
import { listBookTopics, type TopicRef } from './topics.server.ts'

export type Book = typeof books.$inferSelect

/** What a card needs; keeps the long text and flags of the detail page out of list payloads. */
export const cardColumns = {
  id: books.id,
  slug: books.slug,
  title: books.title,
  description: books.description,
  priceCents: books.priceCents,
  currency: books.currency,
  coverPath: books.coverPath,
  coverAlt: books.coverAlt,
  cover: books.cover,
  rating: books.rating,
  ratingCount: books.ratingCount,
  ratingSum: books.ratingSum,
  available: books.available,
}

/** What the store shows: drafts and archived books are the back office's only (owners keep theirs). */
export const isPublished = eq(books.status, 'published')

export type BookCard = { [K in keyof typeof cardColumns]: Book[K] }

/** A card shows the description's words, not its Markdown marks (the book page renders them). */
export function asCard<T extends { description: string }>(book: T): T {
  return { ...book, description: plainText(book.description) }
}

export async function listBooks(db: Db): Promise<BookCard[]> {
  const rows = await db
    .select(cardColumns)
    .from(books)
    .where(isPublished)
    .orderBy(asc(books.createdAt), asc(books.title))
  return rows.map(asCard)
}

export async function listFeaturedBooks(db: Db): Promise<BookCard[]> {
  const rows = await db
    .select(cardColumns)
    .from(books)
    .where(and(eq(books.featured, true), isPublished))
    .orderBy(asc(books.featuredPosition))
  return rows.map(asCard)
}

/** A book as its page shows it: its topics named, in order (`books.topics` is only the search index's copy). */
export type BookDetail = Omit<Book, 'topics'> & { topics: TopicRef[] }

/** A published book by its slug (a draft or an archived book is not found). */
export async function getBookBySlug(db: Db, slug: string): Promise<BookDetail | undefined> {
  const [book] = await db
    .select()
    .from(books)
    .where(and(eq(books.slug, slug), isPublished))
    .limit(1)
  if (!book) return undefined
  return { ...book, topics: await listBookTopics(db, book.id) }
}

/** The current slug of the published book that had `slug` before (its old URL answers 301 to the new one). */
export async function findRenamedBookSlug(db: Db, slug: string): Promise<string | undefined> {
  const [row] = await db
    .select({ slug: books.slug })
    .from(bookSlugRedirects)
    .innerJoin(books, eq(books.id, bookSlugRedirects.bookId))
    .where(and(eq(bookSlugRedirects.slug, slug), isPublished))
    .limit(1)
  return row?.slug
}
