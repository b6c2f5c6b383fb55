import { and, eq } from 'drizzle-orm'
import JSZip from 'jszip'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { ERRATA_PER_ADDRESS } from '#app/features/errata/errata.server.ts'
import { deleteAccount, exportAccountData } from '#app/features/identity/account-deletion.server.ts'
import { publishEdition } from '#app/features/library/editions.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { readManuscript } from '#app/features/library/editions/build-editions.server.ts'
import { action as triageAction, loader as triageLoader } from '#app/routes/admin/errata.tsx'
import { loader as manuscriptLoader } from '#app/routes/admin/book-manuscript.tsx'
import { action as bookAction, loader as bookLoader } from '#app/routes/book.tsx'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { ANNOTATIONS_PER_BOOK_MAX } from '#app/features/reader/annotations.server.ts'
import { READER_OPENS_PER_DAY } from '#app/features/reader/reader-books.server.ts'
import { action as errataAction } from '#app/routes/book-errata.ts'
import { loader as epubLoader } from '#app/routes/read-epub.ts'
import { loader as readerPageLoader } from '#app/routes/read.tsx'
import type { FirstPage } from '#app/features/reader/first-page.ts'
import { loader as stateLoader } from '#app/routes/read-state.ts'
import { action as positionAction } from '#app/routes/read-position.ts'
import { action as annotationsAction } from '#app/routes/read-annotations.ts'
import { action as annotationAction } from '#app/routes/read-annotation.ts'
import { loader as exportLoader } from '#app/routes/read-annotations-export.ts'
import {
  annotations,
  emailOutbox,
  errata,
  libraryItems,
  rateLimits,
  readingPositions,
} from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

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

  test('opening it is limited on its own (300 a day), so the reader is no unlimited download', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    await database.db.insert(rateLimits).values({
      key: `reader-opens:${buyer.userId}:${book.id}`,
      hits: READER_OPENS_PER_DAY.limit,
      resetAt: new Date(Date.now() + 3600_000),
    })
    const refused = await epub(buyer, 'book.epub')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    // The library's own download is a separate count.
    expect(await downloadsOf(buyer)).toBe(0)
  })

  test('anyone else is refused: signed out, a reader who does not own it, and the buyer once refunded', async () => {
    expect((await epub({}, 'book.epub')).status).toBe(403)
    const stranger = await createReader(database.db)
    expect((await epub(stranger, 'book.epub')).status).toBe(403)
    const buyer = await createBuyer(database.db, [book.id])
    expect((await epub(buyer, 'book.epub')).status).toBe(200)
    // A refund takes the book out of the library: the reader loses it at the next request.
    expect(await refundOrder(database.db, buyer.orderId)).toBe('refunded')
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

describe('the first screen the server renders (decision 041)', () => {
  const firstScreen = async (visitor: Visitor, path: string) => {
    const result = await readerPageLoader(args(visitor, path, { slug: book.slug }))
    const page = (result as unknown as { data: { kind: string; firstPage?: FirstPage | null } }).data
    return page.kind === 'reader' ? page.firstPage : undefined
  }
  const text = (page: unknown) => JSON.stringify(page)

  test('the first chapter for the sample and a new owner; the saved place for an owner; nothing for others', async () => {
    const manuscript = await readManuscript(book.slug)
    const firstTitle = /^# (.+)$/m.exec(manuscript)![1]!
    const sample = await firstScreen({}, `/read/${book.slug}/sample`)
    expect(sample?.chapter).toBe(0)
    expect(sample?.blocks[0]).toMatchObject({ type: 'chapter-heading', prefix: 'Chapter 1 — ' })
    expect(text(sample)).toContain(firstTitle.replaceAll('`', '').slice(0, 20))

    const buyer = await createBuyer(database.db, [book.id])
    expect(await firstScreen(buyer, `/read/${book.slug}`)).toEqual(sample)
    // A place in the third chapter, as the reader's page saves it: its first words.
    const third = manuscript.split(/^# /m)[3]!
    const paragraph = third.split('\n\n').find((block) => /^[A-Z][a-z]/.test(block) && block.length > 120)!
    const words = paragraph.replace(/\s+/g, ' ').replaceAll('`', '').slice(30, 150).trim()
    const place = { edition: 1, cfi: cfi(8), fraction: 0.3, quote: words, at: new Date().toISOString() }
    expect((await putPosition(buyer, place)).status).toBe(204)
    const restored = await firstScreen(buyer, `/read/${book.slug}`)
    expect(restored?.chapter).toBe(2)
    expect(restored?.blocks[0]).toMatchObject({ type: 'paragraph', continued: true })
    expect(text(restored)).toContain(words.slice(0, 40))
    // A place whose words are not in the book: the browser finds it, the server shows nothing in its stead.
    expect(
      (
        await putPosition(buyer, {
          ...place,
          quote: 'Words from no edition of this book at all',
          at: new Date(Date.now() + 1000).toISOString(),
        })
      ).status,
    ).toBe(204)
    expect(await firstScreen(buyer, `/read/${book.slug}`)).toBeNull()

    // Not the owner: the 403 page, without any of the book's text.
    const stranger = await createReader(database.db)
    expect(await firstScreen(stranger, `/read/${book.slug}`)).toBeUndefined()
    expect(await firstScreen({}, `/read/${book.slug}`)).toBeUndefined()
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
    // The reader found the quote elsewhere in the edition it reads and moves the highlight there.
    const moved = await change(buyer, annotation.id, json('PATCH', { edition: 1, cfi: cfi(3) }))
    expect((await moved.json()).annotation).toMatchObject({
      edition: 1,
      cfi: cfi(3),
      note: 'Compare with Rust.',
    })
    // An edition not published (yet), or past what the column holds: a 400 beside the field, never a 500.
    for (const edition of [2, 3_000_000_000]) {
      const refused = await change(buyer, annotation.id, json('PATCH', { edition, cfi: cfi(3) }))
      expect(refused.status).toBe(400)
      expect(Object.keys((await refused.json()).errors)).toEqual(['edition'])
      const position = await putPosition(buyer, {
        edition,
        cfi: cfi(1),
        fraction: 0,
        at: new Date().toISOString(),
      })
      expect(position.status).toBe(400)
    }
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

  test('a book holds at most 2,000: twelve additions of the last one at once, one of them lands', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    await database.db.insert(annotations).values(
      Array.from({ length: ANNOTATIONS_PER_BOOK_MAX - 1 }, (_, n) => ({
        userId: buyer.userId,
        bookId: book.id,
        kind: 'bookmark' as const,
        edition: 1,
        cfi: cfi(n + 1),
      })),
    )
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => add(buyer, { kind: 'bookmark', edition: 1, cfi: cfi(1) })),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, ...Array(11).fill(409)])
    const refused = answers.find((answer) => answer.status === 409)!
    expect((await refused.json()).error).toBe('A book holds at most 2000 bookmarks and highlights.')
    expect(
      await database.db.$count(
        annotations,
        and(eq(annotations.userId, buyer.userId), eq(annotations.bookId, book.id)),
      ),
    ).toBe(ANNOTATIONS_PER_BOOK_MAX)
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
    const other = await report({ clientIp: '203.0.113.78' }, { ...erratum, credit: 'Someone Famous' })
    expect(other.status).toBe(201)
    // Not on the book page until the back office has looked at it; an owner's own report is there at once.
    const { id } = await other.json()
    const listed = async () =>
      (
        await bookLoader(
          args({}, `/books/${book.slug}`, { slug: book.slug }) as Parameters<typeof bookLoader>[0],
        )
      ).errata.map((item) => item.id)
    expect(await listed()).not.toContain(id)
    const buyer = await createBuyer(database.db, [book.id])
    const owned = (await (await report(buyer, erratum)).json()).id
    expect(await listed()).toContain(owned)
  })

  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    body: new URLSearchParams(fields),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  })
  const postOnBookPage = (visitor: Visitor, fields: Record<string, string>) =>
    bookAction({
      ...args(
        visitor,
        `/books/${book.slug}`,
        { slug: book.slug },
        form({ intent: 'report-erratum', ...fields }),
      ),
    } as Parameters<typeof bookAction>[0])
  const triage = (visitor: Visitor, fields: Record<string, string>) =>
    triageAction(args(visitor, '/admin/errata', {}, form(fields)) as Parameters<typeof triageAction>[0])

  test("the book page's form: an owner's report lands (303), bad fields come back beside them, others are refused", async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const sent = (await postOnBookPage(buyer, { ...erratum, credit: '' })) as Response
    expect(sent.status).toBe(303)
    expect(sent.headers.get('Location')).toBe(`/books/${book.slug}?erratum=sent#errata`)
    const refused = (await postOnBookPage(buyer, { quote: 'the the', description: ' ' })) as unknown as {
      init: ResponseInit
      data: { erratumErrors: Record<string, string>; erratumValues: Record<string, string> }
    }
    expect(refused.init.status).toBe(400)
    expect(refused.data.erratumErrors).toEqual({ description: 'Please say what is wrong.' })
    expect(refused.data.erratumValues.quote).toBe('the the')
    const stranger = await createReader(database.db)
    const notOwner = (await postOnBookPage(stranger, erratum)) as unknown as { init: ResponseInit }
    expect(notOwner.init.status).toBe(403)
    // Signed out: sent to log in, as for a review.
    const signedOut = (await thrownBy(() => postOnBookPage({}, erratum))) as Response
    expect(signedOut.status).toBe(302)
  })

  test('triaged in the back office (audited), offered for the next edition, fixed in it; the reporter is mailed', async () => {
    const admin = await createAdmin(database.db)
    const buyer = await createBuyer(database.db, [book.id])
    const reportIt = async (quote: string) =>
      (await (await report(buyer, { ...erratum, quote })).json()).id as string
    const confirmedId = await reportIt('an confirmed mistake')
    const rejectedId = await reportIt('not a mistake')

    // Only an admin: anyone else gets the 404 of an unknown page.
    const thrown = (await thrownBy(() => triage(buyer, { decision: 'confirm', id: confirmedId }))) as {
      init: ResponseInit
    }
    expect(thrown.init.status).toBe(404)
    expect(((await triage(admin, { decision: 'confirm', id: confirmedId })) as Response).status).toBe(303)
    const noReason = (await triage(admin, {
      decision: 'reject',
      id: rejectedId,
      reason: ' ',
    })) as unknown as {
      init: ResponseInit
      data: { reasonError: string }
    }
    expect(noReason.init.status).toBe(400)
    expect(noReason.data.reasonError).toBe('Please say why it is rejected: the reporter reads it.')
    expect(
      (
        (await triage(admin, {
          decision: 'reject',
          id: rejectedId,
          reason: 'The text is right.',
        })) as Response
      ).status,
    ).toBe(303)
    // The reporter reads the reason: by mail (the book page does not list rejected errata).
    const [rejection] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'erratum-rejected'), eq(emailOutbox.to, buyer.email)))
    expect(rejection!.text).toContain('The text is right.')
    const audit = await listAuditLog(database.db, {})
    expect(audit.rows.map((row) => row.action)).toEqual(
      expect.arrayContaining(['erratum.confirm', 'erratum.reject']),
    )
    const confirmedList = await triageLoader(
      args(admin, '/admin/errata?status=confirmed', {}) as Parameters<typeof triageLoader>[0],
    )
    expect(confirmedList.errata.map((item) => item.id)).toContain(confirmedId)

    // The book page lists open, confirmed and fixed errata; a rejected one stays in the back office.
    const page = async () =>
      (
        await bookLoader(
          args({}, `/books/${book.slug}`, { slug: book.slug }) as Parameters<typeof bookLoader>[0],
        )
      ).errata
    expect((await page()).map((item) => item.id)).toContain(confirmedId)
    expect((await page()).map((item) => item.id)).not.toContain(rejectedId)

    // The manuscript page offers the confirmed errata as the next edition's changelog.
    const manuscriptPage = await manuscriptLoader(
      args(admin, `/admin/books/${book.id}/manuscript`, { bookId: book.id }) as Parameters<
        typeof manuscriptLoader
      >[0],
    )
    expect(manuscriptPage.errataChangelog).toContain('an confirmed mistake')

    const published = await publishEdition(database.db, servicesFor(database.db).storage, {
      bookId: book.id,
      manuscript: `${await readManuscript(book.slug)}

A paragraph added in the next edition.
`,
      changelog: manuscriptPage.errataChangelog,
      actor: admin.actor,
      libraryUrl: 'http://localhost:3000/account/library',
      logger: createLogger('silent'),
    })
    expect(published.ok).toBe(true)
    if (!published.ok) return
    expect(published.fixedErrata).toBeGreaterThanOrEqual(1)
    const [fixed] = await database.db.select().from(errata).where(eq(errata.id, confirmedId))
    expect(fixed).toMatchObject({ status: 'fixed', fixedInEdition: published.edition })
    const [rejected] = await database.db.select().from(errata).where(eq(errata.id, rejectedId))
    expect(rejected!.status).toBe('rejected')
    const [mail] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'erratum-fixed'), eq(emailOutbox.subjectKey, confirmedId)))
    expect(mail).toMatchObject({ to: buyer.email })
    expect(mail!.text).toContain(`fixed in edition ${published.edition}`)
    // Fixed is final: it cannot be reopened.
    const reopen = (await triage(admin, { decision: 'reopen', id: confirmedId })) as unknown as {
      init: ResponseInit
    }
    expect(reopen.init.status).toBe(409)
  })
})

test("a reader's data export holds their reading and errata; deleting the account removes them", async () => {
  const buyer = await createBuyer(database.db, [book.id])
  const at = new Date().toISOString()
  await putPosition(buyer, { edition: 1, cfi: cfi(2), fraction: 0.2, quote: 'here', at })
  await annotationsAction(
    args(
      buyer,
      `/read/${book.slug}/annotations`,
      { slug: book.slug },
      json('POST', { kind: 'bookmark', edition: 1, cfi: cfi(2) }),
    ),
  )
  const reported = await errataAction(
    args(
      buyer,
      `/books/${book.slug}/errata`,
      { slug: book.slug },
      json('POST', { quote: 'teh', description: 'A typo.', credit: 'Grace' }),
    ),
  )
  const { id } = await reported.json()
  const exported = await exportAccountData(database.db, buyer.userId)
  expect(exported.reading.positions).toMatchObject([{ book: book.slug, cfi: cfi(2), quote: 'here' }])
  expect(exported.reading.annotations).toMatchObject([{ book: book.slug, kind: 'bookmark' }])
  expect(exported.errata).toMatchObject([{ book: book.slug, quote: 'teh', credit: 'Grace' }])

  await deleteAccount(
    { ...servicesFor(database.db), clientIp: '127.0.0.1' },
    { userId: buyer.userId, email: buyer.email },
  )
  expect(
    await database.db.select().from(readingPositions).where(eq(readingPositions.userId, buyer.userId)),
  ).toEqual([])
  expect(await database.db.select().from(annotations).where(eq(annotations.userId, buyer.userId))).toEqual([])
  // The erratum is about the book and stays, no longer tied to them or their name.
  const [kept] = await database.db.select().from(errata).where(eq(errata.id, id))
  expect(kept).toMatchObject({ reporterId: null, credit: '', quote: 'teh' })
})
