import { beforeEach, expect, test, vi } from 'vitest'
import type { Db } from '#app/server/db/database.server.ts'
import type { BookCard } from './catalog.server.ts'

type Load = { resolve(books: BookCard[]): void; reject(error: Error): void }
/** listBooks' queries, each answered by the test. */
const loads = vi.hoisted(() => ({ all: [] as Load[] }))
vi.mock('./catalog.server.ts', () => ({
  listBooks: () => new Promise<BookCard[]>((resolve, reject) => loads.all.push({ resolve, reject })),
  listFeaturedBooks: () => Promise.resolve([]),
}))
vi.mock('./facet-index.server.ts', () => ({ invalidateFacetIndex: () => {} }))
const { invalidateCatalog, readAllBooks } = await import('./catalog-cache.server.ts')

const card = (title: string) => ({ title }) as BookCard
let db: Db
beforeEach(() => {
  db = {} as Db
  loads.all = []
})

test('requests that want the list meanwhile share one query, and then read it from memory', async () => {
  const first = readAllBooks(db)
  const second = readAllBooks(db)
  expect(loads.all).toHaveLength(1)
  loads.all[0]!.resolve([card('Go')])
  expect(await first).toEqual([card('Go')])
  expect(await second).toEqual([card('Go')])
  expect(await readAllBooks(db)).toEqual([card('Go')])
  expect(loads.all).toHaveLength(1)
})

test('a failed read is not kept: the next request queries again', async () => {
  const failing = readAllBooks(db)
  loads.all[0]!.reject(new Error('database down'))
  await expect(failing).rejects.toThrow('database down')
  const next = readAllBooks(db)
  expect(loads.all).toHaveLength(2)
  loads.all[1]!.resolve([card('Go')])
  expect(await next).toEqual([card('Go')])
})

test('a change clears the lists at once; a read under way answers its requests but is not kept', async () => {
  const before = readAllBooks(db)
  invalidateCatalog(db)
  loads.all[0]!.resolve([card('Go')])
  expect(await before).toEqual([card('Go')])
  const after = readAllBooks(db)
  expect(loads.all).toHaveLength(2)
  loads.all[1]!.resolve([card('Go, 2nd edition')])
  expect(await after).toEqual([card('Go, 2nd edition')])
})
