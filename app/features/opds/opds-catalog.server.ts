import { sql } from 'drizzle-orm'
import { isPublished } from '#app/features/catalog/catalog.server.ts'
import { normalizeQuery, parsePage } from '#app/features/search/search-query.ts'
import { PAGE_SIZE as SEARCH_PAGE_SIZE } from '#app/features/search/search.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { bookEditions, books } from '#app/server/db/schema/index.server.ts'
import {
  BadCursorError,
  bestSellers,
  booksByTitle,
  findPublishedTopic,
  libraryBooks,
  listTopics,
  newBooks,
  OPDS_PAGE_SIZE,
  searchResults,
} from './opds-books.server.ts'
import type { Feed, NavigationEntry, OpdsBook } from './opds-feeds.ts'

/*
 * Which feed a path of the OPDS catalogue is (the same paths under /opds and /opds/v2), read from the database.
 * A path that is no feed is null (404); a bad query (no search words, a forged page link) is a FeedRequestError
 * (400).
 */

export class FeedRequestError extends Error {
  override name = 'FeedRequestError'
}

const rootEntries: NavigationEntry[] = [
  {
    id: 'new',
    title: 'New books',
    path: '/new',
    description: 'The newest computer-science eBooks in the store.',
    rel: 'http://opds-spec.org/sort/new',
    leadsTo: 'acquisition',
  },
  {
    id: 'best-sellers',
    title: 'Best sellers',
    path: '/best-sellers',
    description: 'The books readers buy most.',
    rel: 'http://opds-spec.org/sort/popular',
    leadsTo: 'acquisition',
  },
  {
    id: 'books',
    title: 'All books',
    path: '/books',
    description: 'Every book in the store, by title.',
    leadsTo: 'acquisition',
  },
  {
    id: 'library',
    title: 'Your library',
    path: '/library',
    description: 'The books you bought, to download: sign in with your email and an app password.',
    leadsTo: 'acquisition',
  },
  {
    id: 'topics',
    title: 'Topics',
    path: '/topics',
    description: 'Books by topic: languages, frameworks, systems and more.',
    leadsTo: 'navigation',
  },
]

export async function readFeed(db: Db, path: string, query: URLSearchParams): Promise<Feed | null> {
  const after = query.get('after')
  const page = async <T>(read: () => Promise<T>) => {
    try {
      return await read()
    } catch (error) {
      if (error instanceof BadCursorError) throw new FeedRequestError(error.message)
      throw error
    }
  }
  const withAfter = (base: string, cursor: string | null) =>
    cursor ? `${base}?${new URLSearchParams({ after: cursor })}` : undefined

  if (path === '') {
    return {
      kind: 'navigation',
      id: 'root',
      title: 'CodeBook',
      path: '',
      updated: await lastChange(db),
      entries: rootEntries,
    }
  }
  if (path === '/new') {
    const found = await page(() => newBooks(db, after))
    return acquisition({
      id: 'new',
      title: 'New books',
      path,
      books: found.books,
      next: withAfter(path, found.next),
    })
  }
  if (path === '/books') {
    const found = await page(() => booksByTitle(db, after))
    return acquisition({
      id: 'books',
      title: 'All books',
      path,
      books: found.books,
      next: withAfter(path, found.next),
    })
  }
  if (path === '/best-sellers') {
    return acquisition({ id: 'best-sellers', title: 'Best sellers', path, books: await bestSellers(db) })
  }
  if (path === '/topics') {
    const topics = await listTopics(db)
    return {
      kind: 'navigation',
      id: 'topics',
      title: 'Topics',
      path,
      up: '',
      updated: await lastChange(db),
      entries: topics.map((topic) => ({
        id: `topics/${topic.value}`,
        title: topic.name,
        path: `/topics/${topic.value}`,
        description: `${topic.count} ${topic.count === 1 ? 'book' : 'books'} on ${topic.name}.`,
        leadsTo: 'acquisition',
        count: topic.count,
      })),
    }
  }
  const topicSlug = /^\/topics\/([a-z0-9][a-z0-9-]{0,99})$/.exec(path)?.[1]
  if (topicSlug) {
    const topic = await findPublishedTopic(db, topicSlug)
    if (!topic) return null
    const found = await page(() => booksByTitle(db, after, topic.slug))
    return acquisition({
      id: `topics/${topic.slug}`,
      title: topic.name,
      path,
      up: '/topics',
      books: found.books,
      next: withAfter(path, found.next),
    })
  }
  if (path === '/search') {
    const q = normalizeQuery(query.get('q') ?? query.get('query'))
    if (q === '')
      throw new FeedRequestError('Say what to search for: ?q=words (OPDS 1.2) or ?query=words (OPDS 2.0).')
    const found = await searchResults(db, q, parsePage(query.get('page')))
    // The links name the words as the request did: ?q= (OPDS 1.2's OpenSearch) or ?query= (OPDS 2.0's template).
    const param = query.has('query') && !query.has('q') ? 'query' : 'q'
    const pageLink = (n: number) =>
      `${path}?${new URLSearchParams({ [param]: q, ...(n > 1 ? { page: String(n) } : {}) })}`
    const perPage = SEARCH_PAGE_SIZE
    return acquisition({
      id: 'search',
      title: `Search: ${q}`,
      path: pageLink(found.page),
      books: found.books,
      next: found.page < found.pageCount ? pageLink(found.page + 1) : undefined,
      previous: found.page > 1 ? pageLink(found.page - 1) : undefined,
      itemsPerPage: perPage,
      results: {
        total: found.total,
        startIndex: (found.page - 1) * perPage + 1,
        itemsPerPage: perPage,
        query: q,
      },
    })
  }
  return null
}

/** The reader's library: every book they own, with their downloads. */
export async function readLibraryFeed(db: Db, userId: string): Promise<Feed> {
  const owned = await libraryBooks(db, userId)
  return acquisition({
    id: 'library',
    title: 'Your library',
    path: '/library',
    books: owned,
    itemsPerPage: Math.max(owned.length, 1),
  })
}

function acquisition(feed: {
  id: string
  title: string
  path: string
  up?: string
  books: OpdsBook[]
  next?: string
  previous?: string
  itemsPerPage?: number
  results?: Feed['results']
}): Feed {
  const updated = feed.books.reduce(
    (latest, book) => (book.updated > latest ? book.updated : latest),
    new Date(0),
  )
  return { kind: 'acquisition', itemsPerPage: OPDS_PAGE_SIZE, up: '', ...feed, updated }
}

/** When anything a feed lists last changed: the newest book change or edition. */
async function lastChange(db: Db): Promise<Date> {
  const [row] = await db
    .select({
      book: sql<Date | null>`max(${books.updatedAt})`,
      edition: sql<Date | null>`(select max(${bookEditions.publishedAt}) from ${bookEditions})`,
    })
    .from(books)
    .where(isPublished)
  const dates = [row?.book, row?.edition].filter((date) => date != null).map((date) => new Date(date))
  return dates.reduce((latest, date) => (date > latest ? date : latest), new Date(0))
}
