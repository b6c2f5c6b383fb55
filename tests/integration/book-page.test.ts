import { eq } from 'drizzle-orm'
import { PDFDocument } from 'pdf-lib'
import { createElement, Fragment } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub, Meta, Outlet } from 'react-router'
import { describe, expect } from 'vitest'
import { listAlsoBought } from '#app/features/catalog/also-bought.server.ts'
import { listBooks, type BookCard } from '#app/features/catalog/catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { publishEdition } from '#app/features/library/editions.server.ts'
import { readManuscript } from '#app/features/library/editions/build-editions.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import BookDetails, { loader as bookLoader, meta as bookMeta } from '#app/routes/book.tsx'
import { bookContents, bookFiles, books } from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'

const logger = createLogger('silent')

let database: TestDatabase
let storage: FileStorage
let catalogue: BookCard[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  storage = servicesFor(database.db).storage
  catalogue = await listBooks(database.db)
  await publishBookFiles(database.db, storage, logger)
})

function book(index: number): BookCard {
  const found = catalogue[index]
  if (!found) throw new Error(`no book ${index}`)
  return found
}

function page(slug: string) {
  return bookLoader(routeArgs({ db: database.db, path: `/books/${slug}`, params: { slug } }) as never)
}

/** The book page as the server renders it from this loader data. */
function render(loaderData: Awaited<ReturnType<typeof page>>, slug: string) {
  const Stub = createRoutesStub([
    {
      id: 'root',
      path: '/',
      Component: () => createElement(Fragment, null, createElement(Meta), createElement(Outlet)),
      children: [
        { id: 'book', path: 'books/:slug', Component: BookDetails as never, meta: bookMeta as never },
      ],
    },
  ])
  const html = renderToString(
    createElement(Stub, {
      initialEntries: [`/books/${slug}`],
      hydrationData: { loaderData: { root: { publicOrigin: 'http://localhost:3000' }, book: loaderData } },
    }),
  )
  // React marks where adjacent text nodes meet; a reader sees the text without them.
  return html.replaceAll('<!-- -->', '')
}

async function pagesOf(key: string): Promise<number> {
  const bytes = await storage.read(key)
  if (!bytes) throw new Error(`${key} is not in storage`)
  return (await PDFDocument.load(bytes)).getPageCount()
}

/** The manuscript's chapters as its `#` lines give them. */
/** The manuscript's lines outside its fenced code blocks (a `# ` there is a shell or YAML comment). */
function proseLines(manuscript: string): string[] {
  let fenced = false
  return manuscript.split('\n').filter((line) => {
    if (/^(```|~~~)/.test(line)) fenced = !fenced
    return !fenced
  })
}

function chapterTitles(manuscript: string): string[] {
  return proseLines(manuscript)
    .filter((line) => /^# /.test(line))
    .map((line) => line.slice(2).trim().replaceAll('`', ''))
}

describe('the live edition on the book page', () => {
  test("a seed book: pages counted from its PDF, contents from its manuscript's headings, edition 1 since its files", async () => {
    const target = book(0)
    const data = await page(target.slug)
    const [pdf] = await database.db
      .select()
      .from(bookFiles)
      .where(eq(bookFiles.bookId, target.id))
      .then((rows) => rows.filter((row) => row.format === 'pdf'))
    const pages = await pagesOf(pdf!.storageKey)
    expect(data.edition.formats).toEqual([
      { format: 'pdf', sizeBytes: pdf!.sizeBytes, pageCount: pages },
      { format: 'epub', sizeBytes: expect.any(Number) as number, pageCount: null },
    ])
    expect(data.edition.sample?.pageCount).toBeGreaterThan(1)
    const manuscript = await readManuscript(target.slug)
    expect(data.edition.contents?.chapters.map((chapter) => chapter.title)).toEqual(chapterTitles(manuscript))
    const sections = proseLines(manuscript).filter((line) => /^## /.test(line)).length
    expect(data.edition.contents?.chapters.flatMap((chapter) => chapter.sections)).toHaveLength(sections)
    const words = data.edition.contents!.wordCount
    expect(words).toBeGreaterThan(manuscript.split(/\s+/).length * 0.8)
    expect(data.edition.contents?.readingMinutes).toBe(Math.max(1, Math.round(words / 250)))
    expect(data.edition.edition).toEqual({ number: 1, publishedAt: pdf!.createdAt })
    expect(data.edition.changelog).toEqual([])

    const html = render(data, target.slug)
    expect(html).toContain('Book details')
    expect(html).toMatch(/<details[^>]*><summary[^>]*>Table of contents/)
    expect(html).toContain(`${new Intl.NumberFormat('en-US').format(pages)} pages (PDF)`)
    expect(html).toContain('1st edition')
    for (const title of chapterTitles(manuscript)) expect(html).toContain(title.replaceAll('&', '&amp;'))
  })

  test('editions listed before pages and contents were recorded get them at the next start-up, without rendering again', async () => {
    const target = book(1)
    const before = await page(target.slug)
    await database.db.update(bookFiles).set({ pageCount: null }).where(eq(bookFiles.bookId, target.id))
    await database.db.delete(bookContents).where(eq(bookContents.bookId, target.id))
    const blank = await page(target.slug)
    expect(blank.edition.contents).toBeNull()
    expect(blank.edition.formats[0]?.pageCount).toBeNull()

    const summary = await publishBookFiles(database.db, storage, logger)
    expect(summary.rendered).toBe(0)
    const after = await page(target.slug)
    expect(after.edition).toEqual(before.edition)
    expect(after.edition.formats[0]?.pageCount).toBeGreaterThan(1)
  })

  test('a new edition brings its own pages, contents, number, date and changelog', async () => {
    const target = book(2)
    const admin = await createAdmin(database.db)
    const manuscript = [
      '# A new beginning',
      '',
      'Opening words of the second edition.',
      '',
      '## What changed',
      '',
      Array.from({ length: 600 }, (_, index) => `word${index}`).join(' '),
      '',
      '# The middle',
      '',
      'More text.',
      '',
      '# The end',
      '',
      'Last words.',
    ].join('\n')
    const published = await publishEdition(database.db, storage, {
      bookId: target.id,
      manuscript,
      changelog: 'Rewritten from the start.',
      actor: { id: admin.userId, email: admin.email },
      libraryUrl: 'http://localhost:3000/account/library',
      logger,
    })
    expect(published).toMatchObject({ ok: true, edition: 2 })

    const data = await page(target.slug)
    expect(data.edition.contents).toEqual({
      chapters: [
        { title: 'A new beginning', sections: ['What changed'] },
        { title: 'The middle', sections: [] },
        { title: 'The end', sections: [] },
      ],
      wordCount: 3 + 6 + 2 + 600 + 2 + 2 + 2 + 2,
      readingMinutes: 2,
    })
    const [pdf] = await database.db
      .select()
      .from(bookFiles)
      .where(eq(bookFiles.bookId, target.id))
      .then((rows) => rows.filter((row) => row.format === 'pdf'))
    expect(data.edition.formats[0]).toEqual({
      format: 'pdf',
      sizeBytes: pdf!.sizeBytes,
      pageCount: await pagesOf(pdf!.storageKey),
    })
    expect(data.edition.edition?.number).toBe(2)
    expect(data.edition.changelog.map(({ number, changelog }) => ({ number, changelog }))).toEqual([
      { number: 2, changelog: 'Rewritten from the start.' },
      { number: 1, changelog: 'First edition.' },
    ])
    expect(data.edition.edition?.publishedAt).toEqual(data.edition.changelog[0]?.publishedAt)

    const html = render(data, target.slug)
    expect(html).toContain('2nd edition')
    expect(html).toMatch(/<summary[^>]*>Edition history/)
    expect(html).toContain('Rewritten from the start.')

    // A restart keeps the admin's edition's contents (start-up renders the newest edition from the database).
    await publishBookFiles(database.db, storage, logger)
    expect((await page(target.slug)).edition).toEqual(data.edition)
  })
})

describe('Readers also bought', () => {
  test('books bought in the same paid orders, most often first, never the book itself, never a refunded order; hidden when none', async () => {
    const [b0, b1, b2, b3, b4, b5, b6] = [0, 1, 2, 3, 4, 5, 6].map(book)
    await createBuyer(database.db, [b0!.id, b1!.id, b2!.id])
    await createBuyer(database.db, [b0!.id, b1!.id])
    const refunded = await createBuyer(database.db, [b0!.id, b3!.id])
    expect(await refundOrder(database.db, refunded.orderId)).toBe('refunded')
    await createBuyer(database.db, [b4!.id, b5!.id])

    const data = await page(b0!.slug)
    expect(data.alsoBought.map((entry) => [entry.slug, entry.together])).toEqual([
      [b1!.slug, 2],
      [b2!.slug, 1],
    ])
    const html = render(data, b0!.slug)
    expect(html).toContain('Readers also bought')
    expect(html).toContain(`href="/books/${b1!.slug}"`)

    const alone = await page(b6!.slug)
    expect(alone.alsoBought).toEqual([])
    expect(render(alone, b6!.slug)).not.toContain('Readers also bought')
  })

  test('at most four, ties by title; a book taken out of the store is not offered', async () => {
    const all = catalogue.slice(0, 7)
    const [first, ...others] = all
    // A fresh book's orders only: a copy bought with every other seed book.
    const [seed] = await database.db.select().from(books).where(eq(books.id, first!.id))
    const { id: _id, createdAt: _c, updatedAt: _u, featured: _f, featuredPosition: _p, ...rest } = seed!
    const [copy] = await database.db
      .insert(books)
      .values({ ...rest, slug: 'also-bought-copy', title: 'Also bought copy' })
      .returning({ id: books.id })
    await createBuyer(database.db, [copy!.id, ...others.map((other) => other.id)])
    const expected = [...others].sort((a, b) => a.title.localeCompare(b.title))
    const offered = await listAlsoBought(database.db, copy!.id)
    expect(offered.map((entry) => entry.title)).toEqual(expected.slice(0, 4).map((entry) => entry.title))

    await database.db.update(books).set({ status: 'archived' }).where(eq(books.id, expected[0]!.id))
    const afterArchive = await listAlsoBought(database.db, copy!.id)
    expect(afterArchive.map((entry) => entry.title)).toEqual(expected.slice(1, 5).map((entry) => entry.title))
    await database.db.update(books).set({ status: 'published' }).where(eq(books.id, expected[0]!.id))
  })
})
