import { and, eq } from 'drizzle-orm'
import JSZip from 'jszip'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { ERRATA_PER_ADDRESS } from '#app/features/errata/errata.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { action as errataAction } from '#app/routes/book-errata.ts'
import { loader as epubLoader } from '#app/routes/read-epub.ts'
import { loader as stateLoader } from '#app/routes/read-state.ts'
import { action as positionAction } from '#app/routes/read-position.ts'
import { action as annotationsAction } from '#app/routes/read-annotations.ts'
import { action as annotationAction } from '#app/routes/read-annotation.ts'
import { loader as exportLoader } from '#app/routes/read-annotations-export.ts'
import { errata, libraryItems } from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'

// Issue 29: the online reader's files and state, and errata. The reader's page and its script: tests/e2e/reader.

let database: TestDatabase
let book: Awaited<ReturnType<typeof listBooks>>[number]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  book = (await listBooks(database.db))[0]!
  await publishBookFiles(database.db, servicesFor(database.db).storage, createLogger('silent'))
})

type Visitor = { cookie?: string; clientIp?: string }

const args = <Params extends Record<string, string>>(
  visitor: Visitor,
  path: string,
  params: Params,
  init?: RequestInit,
) => routeArgs({ db: database.db, path, cookie: visitor.cookie, clientIp: visitor.clientIp, params, init })

const json = (method: string, body: unknown): RequestInit => ({
  method,
  body: typeof body === 'string' ? body : JSON.stringify(body),
  headers: { 'Content-Type': 'application/json' },
})

const epub = (visitor: Visitor, file: string, headers: Record<string, string> = {}) =>
  epubLoader(args(visitor, `/read/${book.slug}/${file}`, { slug: book.slug, file }, { headers }))

const putPosition = (visitor: Visitor, body: unknown) =>
  positionAction(args(visitor, `/read/${book.slug}/position`, { slug: book.slug }, json('PUT', body)))

const state = async (visitor: Visitor) => {
  const response = await stateLoader(args(visitor, `/read/${book.slug}/state.json`, { slug: book.slug }))
  return { status: response.status, body: await response.json() }
}

const cfi = (n: number) => `epubcfi(/6/${2 * n}!/4/2/1:0)`

async function downloadsOf(buyer: { userId: string }) {
  const [item] = await database.db
    .select({ downloadCount: libraryItems.downloadCount })
    .from(libraryItems)
    .where(and(eq(libraryItems.userId, buyer.userId), eq(libraryItems.bookId, book.id)))
  return item?.downloadCount
}

describe('the EPUB the reader opens', () => {
  test("the owner's stamped copy, whole or in parts, is not counted as a download", async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const whole = await epub(buyer, 'book.epub')
    expect(whole.status).toBe(200)
    expect(whole.headers.get('Content-Type')).toBe('application/epub+zip')
    expect(whole.headers.get('Cache-Control')).toBe('private, no-store')
    const bytes = new Uint8Array(await whole.arrayBuffer())
    const zip = await JSZip.loadAsync(bytes)
    expect(await zip.file('mimetype')!.async('string')).toBe('application/epub+zip')
    // The same stamped copy as the library's download: the buyer's email is in it.
    const opf = await zip.file('OEBPS/content.opf')!.async('string')
    expect(opf).toContain(buyer.email)

    const part = await epub(buyer, 'book.epub', { Range: 'bytes=0-99' })
    expect(part.status).toBe(206)
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(0, 100))
    expect(await downloadsOf(buyer)).toBe(0)
  })

  test('anyone else is refused: signed out, a reader who does not own it, and the buyer once refunded', async () => {
    expect((await epub({}, 'book.epub')).status).toBe(403)
    const stranger = await createReader(database.db)
    expect((await epub(stranger, 'book.epub')).status).toBe(403)
    const buyer = await createBuyer(database.db, [book.id])
    expect((await epub(buyer, 'book.epub')).status).toBe(200)
    // A refund takes the book out of the library: the reader loses it at the next request.
    await database.db
      .delete(libraryItems)
      .where(and(eq(libraryItems.userId, buyer.userId), eq(libraryItems.bookId, book.id)))
    expect((await epub(buyer, 'book.epub')).status).toBe(403)
    expect((await state(buyer)).status).toBe(403)
  })

  test('the sample is an EPUB of the first chapter, for everyone; unknown files and books are 404', async () => {
    const response = await epub({}, 'sample.epub')
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('public, max-age=3600')
    const zip = await JSZip.loadAsync(await response.arrayBuffer())
    const chapters = Object.keys(zip.files).filter((name) => /chapter-\d+\.xhtml$/.test(name))
    expect(chapters).toEqual(['OEBPS/chapter-1.xhtml'])
    expect(await zip.file('OEBPS/content.opf')!.async('string')).toContain('(free sample)')
    expect((await epub({}, 'book.pdf')).status).toBe(404)
    const unknown = await epubLoader(
      args({}, '/read/no-such-book/sample.epub', { slug: 'no-such-book', file: 'sample.epub' }),
    )
    expect(unknown.status).toBe(404)
  })
})

describe('where the reader is', () => {
  test('saved and restored on another device; an older place does not overwrite a newer one', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    expect((await state(buyer)).body.position).toBeNull()
    const now = Date.now()
    const later = {
      edition: 1,
      cfi: cfi(3),
      fraction: 0.42,
      quote: 'the words there',
      at: new Date(now).toISOString(),
    }
    expect((await putPosition(buyer, later)).status).toBe(204)
    // Another device, offline for a while, sends where it was an hour ago: the newer place stays.
    const earlier = { ...later, cfi: cfi(1), fraction: 0.1, at: new Date(now - 3600_000).toISOString() }
    expect((await putPosition(buyer, earlier)).status).toBe(204)
    const restored = await state(buyer)
    expect(restored.status).toBe(200)
    expect(restored.body.position).toMatchObject({
      cfi: cfi(3),
      fraction: 0.42,
      quote: 'the words there',
      edition: 1,
    })
    expect(restored.body.edition).toBeGreaterThanOrEqual(1)
    const newest = { ...later, cfi: cfi(4), fraction: 0.5, at: new Date(now + 1000).toISOString() }
    expect((await putPosition(buyer, newest)).status).toBe(204)
    expect((await state(buyer)).body.position).toMatchObject({ cfi: cfi(4), fraction: 0.5 })
  })

  test('bad input is a 400 naming each field, never a 500; others get 401/403', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const bad = await putPosition(buyer, {
      edition: 0,
      cfi: 'not a cfi',
      fraction: 2,
      quote: 'x'.repeat(201),
      at: 'yesterday',
    })
    expect(bad.status).toBe(400)
    const { errors } = await bad.json()
    expect(Object.keys(errors).sort()).toEqual(['at', 'cfi', 'edition', 'fraction', 'quote'])
    expect(errors.fraction).toBe('The fraction must be between 0 and 1.')
    const notJson = await putPosition(buyer, '{"edition": 1,')
    expect(notJson.status).toBe(400)
    expect((await notJson.json()).error).toBe('The body must be JSON.')
    const extra = await putPosition(buyer, {
      edition: 1,
      cfi: cfi(1),
      fraction: 0,
      at: new Date().toISOString(),
      admin: true,
    })
    expect(extra.status).toBe(400)
    const nul = await putPosition(buyer, {
      edition: 1,
      cfi: cfi(1),
      fraction: 0,
      quote: 'a\u0000b',
      at: new Date().toISOString(),
    })
    expect(nul.status).toBe(400)
    const position = { edition: 1, cfi: cfi(1), fraction: 0, at: new Date().toISOString() }
    expect((await putPosition({}, position)).status).toBe(401)
    expect((await putPosition(await createReader(database.db), position)).status).toBe(403)
    const post = await positionAction(
      args(buyer, `/read/${book.slug}/position`, { slug: book.slug }, json('POST', position)),
    )
    expect(post.status).toBe(405)
    expect(post.headers.get('Allow')).toBe('PUT')
  })
})

describe('bookmarks and highlights', () => {
  const add = (visitor: Visitor, body: unknown) =>
    annotationsAction(
      args(visitor, `/read/${book.slug}/annotations`, { slug: book.slug }, json('POST', body)),
    )
  const change = (visitor: Visitor, id: string, init: RequestInit) =>
    annotationAction(args(visitor, `/read/${book.slug}/annotations/${id}`, { slug: book.slug, id }, init))

  test('added, noted, moved to a new edition, exported as Markdown and deleted — only by their owner', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const highlight = await add(buyer, {
      kind: 'highlight',
      edition: 1,
      cfi: cfi(2),
      quote: 'A closure captures variables',
      note: 'Compare with Go.',
    })
    expect(highlight.status).toBe(201)
    const { annotation } = await highlight.json()
    expect(annotation).toMatchObject({ kind: 'highlight', note: 'Compare with Go.', edition: 1 })
    expect((await add(buyer, { kind: 'bookmark', edition: 1, cfi: cfi(5) })).status).toBe(201)

    const noted = await change(buyer, annotation.id, json('PATCH', { note: 'Compare with Rust.' }))
    expect(noted.status).toBe(200)
    expect((await noted.json()).annotation.note).toBe('Compare with Rust.')
    // The reader found the quote in edition 2 and moves the highlight there.
    const moved = await change(buyer, annotation.id, json('PATCH', { edition: 2, cfi: cfi(3) }))
    expect((await moved.json()).annotation).toMatchObject({
      edition: 2,
      cfi: cfi(3),
      note: 'Compare with Rust.',
    })
    const halfMove = await change(buyer, annotation.id, json('PATCH', { edition: 3 }))
    expect(halfMove.status).toBe(400)

    const listed = (await state(buyer)).body.annotations
    expect(listed.map((item: { kind: string }) => item.kind)).toEqual(['highlight', 'bookmark'])

    const markdown = await exportLoader(args(buyer, `/read/${book.slug}/annotations.md`, { slug: book.slug }))
    expect(markdown.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8')
    const text = await markdown.text()
    expect(text).toContain(`# ${book.title}`)
    expect(text).toContain('> A closure captures variables')
    expect(text).toContain('Compare with Rust.')

    // Another reader of the same book can neither change nor delete it: 404, as for an unknown id.
    const other = await createBuyer(database.db, [book.id])
    expect((await change(other, annotation.id, json('PATCH', { note: 'mine' }))).status).toBe(404)
    expect((await change(other, annotation.id, { method: 'DELETE' })).status).toBe(404)
    expect((await change(buyer, 'not-a-uuid', { method: 'DELETE' })).status).toBe(404)
    expect((await change(buyer, annotation.id, { method: 'DELETE' })).status).toBe(204)
    expect((await change(buyer, annotation.id, { method: 'DELETE' })).status).toBe(404)
  })

  test('a highlight without its text, or an unknown kind, is a 400 with field errors', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const response = await add(buyer, { kind: 'underline', edition: 1, cfi: cfi(1) })
    expect(response.status).toBe(400)
    expect((await response.json()).errors.kind).toBe('The kind must be bookmark or highlight.')
    const empty = await add(buyer, { kind: 'highlight', edition: 1, cfi: cfi(1), quote: '' })
    expect((await empty.json()).errors.quote).toBe('A highlight needs the text it marks.')
  })
})

describe('errata', () => {
  const report = (visitor: Visitor, body: unknown) =>
    errataAction(args(visitor, `/books/${book.slug}/errata`, { slug: book.slug }, json('POST', body)))
  const erratum = {
    quote: 'the the',
    location: 'Chapter 1',
    description: 'A word twice.',
    suggestion: 'the',
    credit: 'Ada',
  }

  test('an owner reports one against the edition they read; bad input is a 400 with each field', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const response = await report(buyer, erratum)
    expect(response.status).toBe(201)
    const { id } = await response.json()
    const [row] = await database.db.select().from(errata).where(eq(errata.id, id))
    expect(row).toMatchObject({ status: 'open', reporterId: buyer.userId, credit: 'Ada', quote: 'the the' })
    const bad = await report(buyer, { quote: '  ', description: '', credit: 'x'.repeat(81) })
    expect(bad.status).toBe(400)
    expect(Object.keys((await bad.json()).errors).sort()).toEqual(['credit', 'description', 'quote'])
  })

  test('anyone may report from the sample, a few an hour from one address: then 429 with Retry-After', async () => {
    const visitor = { clientIp: '203.0.113.77' }
    for (let attempt = 0; attempt < ERRATA_PER_ADDRESS.limit; attempt++)
      expect((await report(visitor, erratum)).status).toBe(201)
    const refused = await report(visitor, erratum)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    // Another address is not affected.
    expect((await report({ clientIp: '203.0.113.78' }, erratum)).status).toBe(201)
  })
})
