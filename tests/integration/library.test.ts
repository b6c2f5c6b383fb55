import { testStorage } from '#harness/services.ts'
import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { and, eq } from 'drizzle-orm'
import { PDFDocument } from 'pdf-lib'
import pino from 'pino'
import { afterAll, describe, expect } from 'vitest'
import { getBookBySlug, listBooks } from '#app/features/catalog/catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { prepareDownload, stampedCopyKey } from '#app/features/library/downloads.server.ts'
import { publishEditions, readManuscript } from '#app/features/library/editions/build-editions.server.ts'
import { stampFormatVersion } from '#app/features/library/editions/stamp.server.ts'
import { getBookFile } from '#app/features/library/library.server.ts'
import { parseManuscript, plainText } from '#app/features/library/editions/manuscript.ts'
import { loader as bookLoader } from '#app/routes/book.tsx'
import { loader as sampleLoader } from '#app/routes/book-sample.ts'
import { loader as downloadLoader } from '#app/routes/library-download.ts'
import { loader as libraryLoader } from '#app/routes/library.tsx'
import { bookFiles, libraryItems, rateLimits } from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

const run = promisify(execFile)
const logger = createLogger('silent')

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let tempDir: string
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  await publishBookFiles(database.db, servicesFor(database.db).storage, logger)
  tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'codebook-library-'))
})
afterAll(async () => {
  await fs.rm(tempDir, { recursive: true, force: true })
})

const bookA = () => catalogue[0]!
const bookB = () => catalogue[1]!

async function download(path: string, cookie = '') {
  const [, , slug, file] = path.split('/')
  return downloadLoader(
    routeArgs({ db: database.db, path, cookie, params: { slug: slug ?? '', file: file ?? '' } }),
  )
}

/**
 * The text of each page of a PDF, through poppler's pdftotext (a real reader, not our own code): one entry
 * per page, an empty page included, and as many as pdf-lib counts in the file.
 */
async function pdfPages(bytes: Uint8Array): Promise<string[]> {
  const file = path.join(tempDir, `${crypto.randomUUID()}.pdf`)
  await fs.writeFile(file, bytes)
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'])
  // pdftotext ends every page, the last one too, with a form feed.
  const pages = stdout.split('\f').slice(0, -1)
  expect(pages.length, 'pages pdftotext read').toBe((await PDFDocument.load(bytes)).getPageCount())
  return pages
}

/** A storage that records every call made to it in `calls` (as 'method key'). */
function watched(storage: FileStorage, calls: string[]): FileStorage {
  return {
    put: (key, bytes) => (calls.push(`put ${key}`), storage.put(key, bytes)),
    stat: (key) => (calls.push(`stat ${key}`), storage.stat(key)),
    read: (key) => (calls.push(`read ${key}`), storage.read(key)),
    createReadStream: (key, range) => (
      calls.push(`createReadStream ${key}`),
      storage.createReadStream(key, range)
    ),
    delete: (key) => (calls.push(`delete ${key}`), storage.delete(key)),
    list: (prefix) => (calls.push(`list ${prefix}`), storage.list(prefix)),
  }
}

async function downloadCountOf(userId: string, bookId: string) {
  const [item] = await database.db
    .select({ downloadCount: libraryItems.downloadCount })
    .from(libraryItems)
    .where(and(eq(libraryItems.userId, userId), eq(libraryItems.bookId, bookId)))
  return item!.downloadCount
}

function limitRowsOf(userId: string, bookId: string) {
  return database.db
    .select({ hits: rateLimits.hits })
    .from(rateLimits)
    .where(eq(rateLimits.key, `downloads:${userId}:${bookId}`))
}

/** A logger that keeps its JSON lines, parsed, for a test to read. */
function recordingLogger() {
  const lines: { level: number; msg: string; [field: string]: unknown }[] = []
  const recorder = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
  return { logger: recorder, lines }
}

describe('the books’ files', () => {
  test('every book has a PDF, an EPUB and a sample, and its page shows their real sizes', async () => {
    const files = await database.db.select().from(bookFiles)
    expect(files).toHaveLength(catalogue.length * 3)
    const page = await bookLoader(
      routeArgs({ db: database.db, path: `/books/${bookA().slug}`, params: { slug: bookA().slug } }),
    )
    const stored = files.filter((file) => file.bookId === bookA().id)
    const sizeOf = (format: string) => stored.find((file) => file.format === format)!.sizeBytes
    expect(page.formats).toEqual([
      { label: 'PDF', sizeBytes: sizeOf('pdf') },
      { label: 'EPUB', sizeBytes: sizeOf('epub') },
    ])
    expect(page.sampleSizeBytes).toBe(sizeOf('sample'))
    expect(page.book.fileSizeBytes).toBe(sizeOf('pdf'))
  })

  test('publishing again renders nothing when no manuscript changed', async () => {
    const again = await publishBookFiles(database.db, servicesFor(database.db).storage, logger)
    expect(again).toMatchObject({ books: catalogue.length, rendered: 0, missingManuscripts: [] })
  })

  test('the free sample: anyone may have it; it is the first chapter only', async () => {
    const response = await sampleLoader(
      routeArgs({
        db: database.db,
        path: `/books/${bookA().slug}/sample.pdf`,
        params: { slug: bookA().slug },
      }),
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('application/pdf')
    expect(response.headers.get('Content-Disposition')).toContain(`filename="${bookA().slug}-sample.pdf"`)
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(bytes.length).toBe(Number(response.headers.get('Content-Length')))
    const text = (await pdfPages(bytes)).join('\n').replace(/\s+/g, ' ')
    const manuscript = parseManuscript(await readManuscript(bookA().slug))
    const firstParagraph = manuscript.chapters[0]!.blocks.find((block) => block.type === 'paragraph')!
    const firstWords = plainText(firstParagraph.text).split(/\s+/).slice(0, 6).join(' ')
    expect(text).toContain(firstWords)
    expect(text).not.toContain(manuscript.chapters[1]!.title)

    const etag = response.headers.get('ETag')!
    const revalidated = await sampleLoader(
      routeArgs({
        db: database.db,
        path: `/books/${bookA().slug}/sample.pdf`,
        params: { slug: bookA().slug },
        init: { headers: { 'If-None-Match': etag } },
      }),
    )
    expect(revalidated.status).toBe(304)
  })

  test('a sample’s ETag is of the bytes served: an instance with another edition does not answer 304 for the listed one', async () => {
    const book = (await getBookBySlug(database.db, catalogue[3]!.slug))!
    const sample = (services?: Parameters<typeof routeArgs>[0]['services'], etag?: string) =>
      sampleLoader(
        routeArgs({
          db: database.db,
          path: `/books/${book.slug}/sample.pdf`,
          params: { slug: book.slug },
          services,
          init: etag ? { headers: { 'If-None-Match': etag } } : {},
        }),
      )
    const listedEtag = (await sample()).headers.get('ETag')!
    const instanceFiles = testStorage()
    const manuscript = await readManuscript(book.slug)
    await publishEditions(
      instanceFiles,
      book,
      manuscript.replace(/\n\n/, '\n\nAn earlier edition’s sample.\n\n'),
    )
    const services = { ...servicesFor(database.db), storage: instanceFiles }
    const served = await sample(services, listedEtag)
    expect(served.status).toBe(200)
    expect(served.headers.get('ETag')).not.toBe(listedEtag)
    const bytes = new Uint8Array(await served.arrayBuffer())
    expect(bytes.length).toBe(Number(served.headers.get('Content-Length')))
    expect((await sample(services, served.headers.get('ETag')!)).status).toBe(304)
  })

  test('an unknown book has no sample', async () => {
    for (const slug of ['no-such-book', '..', '../../etc/passwd', 'a/../../b']) {
      const response = await sampleLoader(
        routeArgs({ db: database.db, path: '/books/x/sample.pdf', params: { slug } }),
      )
      expect(response.status, slug).toBe(404)
    }
  })
})

describe('the library', () => {
  test('an empty library for a reader who has bought nothing', async () => {
    const reader = await createReader(database.db)
    const page = await libraryLoader(
      routeArgs({ db: database.db, path: '/account/library', cookie: reader.cookie }),
    )
    expect(page.books).toEqual([])
  })

  test('signed out, the library sends the visitor to log in and back', async () => {
    const thrown = await thrownBy(() =>
      libraryLoader(routeArgs({ db: database.db, path: '/account/library' })),
    )
    expect((thrown as Response).headers.get('Location')).toBe('/login?redirectTo=%2Faccount%2Flibrary')
  })

  test('the owner downloads both formats, stamped with their email and order number', async () => {
    const buyer = await createBuyer(database.db, [bookA().id, bookB().id])
    const library = await libraryLoader(
      routeArgs({ db: database.db, path: '/account/library', cookie: buyer.cookie }),
    )
    expect(library.books.map((book) => book.slug).toSorted()).toEqual([bookA().slug, bookB().slug].toSorted())
    const listed = library.books.find((book) => book.slug === bookA().slug)!
    expect(listed.files.map((file) => file.format)).toEqual(['pdf', 'epub'])
    expect(listed.downloadCount).toBe(0)

    const pdf = await download(`/library/${bookA().slug}/download.pdf`, buyer.cookie)
    expect(pdf.status).toBe(200)
    expect(pdf.headers.get('Content-Type')).toBe('application/pdf')
    expect(pdf.headers.get('Content-Disposition')).toContain(`attachment; filename="${bookA().slug}.pdf"`)
    expect(pdf.headers.get('Cache-Control')).toBe('private, no-store')
    const pdfBytes = new Uint8Array(await pdf.arrayBuffer())
    expect(pdfBytes.length).toBe(Number(pdf.headers.get('Content-Length')))
    const pages = await pdfPages(pdfBytes)
    expect(pages.length).toBeGreaterThan(5)
    for (const [index, page] of pages.entries()) {
      expect(page, `page ${index + 1}`).toContain(buyer.email)
      expect(page, `page ${index + 1}`).toContain(`Order #${buyer.orderNumber}`)
    }

    const epub = await download(`/library/${bookA().slug}/download.epub`, buyer.cookie)
    expect(epub.status).toBe(200)
    expect(epub.headers.get('Content-Type')).toBe('application/epub+zip')
    expect(epub.headers.get('Content-Disposition')).toContain(`filename="${bookA().slug}.epub"`)
    const epubBytes = Buffer.from(await epub.arrayBuffer())
    expect(epubBytes.length).toBe(Number(epub.headers.get('Content-Length')))
    expect(epubBytes.subarray(30, 58).toString('latin1')).toBe('mimetypeapplication/epub+zip')

    const after = await libraryLoader(
      routeArgs({ db: database.db, path: '/account/library', cookie: buyer.cookie }),
    )
    expect(after.books.find((book) => book.slug === bookA().slug)!.downloadCount).toBe(2)
  })

  test('anyone but the owner is refused: 403 for a book they do not own, 404 for what does not exist', async () => {
    const buyer = await createBuyer(database.db, [bookA().id])
    const other = await createReader(database.db)
    const guest = await servicesFor(database.db).auth.api.signInAnonymous({
      returnHeaders: true,
      headers: new Headers(),
    })
    const guestCookie = cookieHeader(guest.headers)
    const owned = `/library/${bookA().slug}/download.pdf`
    expect((await download(owned, other.cookie)).status).toBe(403)
    expect((await download(owned, guestCookie)).status).toBe(403)
    expect((await download(owned)).status).toBe(403)
    expect((await download(`/library/${bookB().slug}/download.epub`, buyer.cookie)).status).toBe(403)
    expect((await download('/library/no-such-book/download.pdf', buyer.cookie)).status).toBe(404)
    expect((await download(`/library/${bookA().slug}/download.docx`, buyer.cookie)).status).toBe(404)
    expect((await download(`/library/${bookA().slug}/sample.pdf`, buyer.cookie)).status).toBe(404)
    const refused = await download(owned, other.cookie)
    expect(refused.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
    expect(await refused.text()).toContain('Only the buyer of this eBook can download it.')
  })

  test('a HEAD request says whether and as what, and is neither stamped nor counted', async () => {
    const buyer = await createBuyer(database.db, [bookA().id])
    const other = await createReader(database.db)
    const head = (cookie: string) =>
      downloadLoader(
        routeArgs({
          db: database.db,
          path: `/library/${bookA().slug}/download.epub`,
          cookie,
          params: { slug: bookA().slug, file: 'download.epub' },
          init: { method: 'HEAD' },
        }),
      )
    const probe = await head(buyer.cookie)
    expect(probe.status).toBe(200)
    expect(probe.headers.get('Content-Type')).toBe('application/epub+zip')
    expect(probe.headers.get('Content-Disposition')).toContain(`filename="${bookA().slug}.epub"`)
    expect((await head(other.cookie)).status).toBe(403)
    const [item] = await database.db
      .select({ downloadCount: libraryItems.downloadCount })
      .from(libraryItems)
      .where(and(eq(libraryItems.userId, buyer.userId), eq(libraryItems.bookId, bookA().id)))
    expect(item!.downloadCount).toBe(0)
    expect(
      await database.db
        .select()
        .from(rateLimits)
        .where(eq(rateLimits.key, `downloads:${buyer.userId}:${bookA().id}`)),
    ).toEqual([])
  })

  test('a HEAD request at the daily limit gets the 429 a download would, and counts nothing', async () => {
    const buyer = await createBuyer(database.db, [bookA().id])
    await database.db.insert(rateLimits).values({
      key: `downloads:${buyer.userId}:${bookA().id}`,
      hits: 50,
      resetAt: new Date(Date.now() + 5 * 60 * 60 * 1000),
    })
    const probe = await downloadLoader(
      routeArgs({
        db: database.db,
        path: `/library/${bookA().slug}/download.pdf`,
        cookie: buyer.cookie,
        params: { slug: bookA().slug, file: 'download.pdf' },
        init: { method: 'HEAD' },
      }),
    )
    expect(probe.status).toBe(429)
    expect(Number(probe.headers.get('Retry-After'))).toBeGreaterThan(4 * 60 * 60)
    expect(await limitRowsOf(buyer.userId, bookA().id)).toEqual([{ hits: 50 }])
    expect((await download(`/library/${bookA().slug}/download.pdf`, buyer.cookie)).status).toBe(429)
  })

  test('path traversal in either parameter is refused: 404, no file read, nothing counted', async () => {
    const buyer = await createBuyer(database.db, [bookB().id])
    const touched: string[] = []
    const services = {
      ...servicesFor(database.db),
      storage: watched(servicesFor(database.db).storage, touched),
    }
    const attempts: [string, string][] = [
      ['..', 'download.pdf'],
      ['../../etc/passwd', 'download.pdf'],
      ['..%2F..%2Fetc', 'download.pdf'],
      ['..\\..\\etc', 'download.pdf'],
      ['..%5C..%5Cetc', 'download.pdf'],
      [`${bookB().slug}/../${bookA().slug}`, 'download.pdf'],
      [`${bookB().slug}\\..\\${bookA().slug}`, 'download.pdf'],
      [`${bookB().slug}`, '../../../etc/passwd'],
      [`${bookB().slug}`, 'download.pdf/../../x'],
      [`${bookB().slug}`, '..%2Fdownload.pdf'],
      [`${bookB().slug}`, '..\\x'],
      [`${bookB().slug}`, 'download.pdf\\..\\x'],
      [`${bookB().slug}`, '..%5Cdownload.pdf'],
      [`${bookB().slug}`, 'download.pdf\u0000.txt'],
      [`books/${bookB().slug}`, `${bookB().slug}.pdf`],
      [`${bookB().slug.toUpperCase()}`, 'download.pdf'],
    ]
    for (const [slug, file] of attempts) {
      const response = await downloadLoader(
        routeArgs({
          db: database.db,
          path: '/library/x/y',
          cookie: buyer.cookie,
          services,
          params: { slug, file },
        }),
      )
      expect(response.status, `${slug} ${file}`).toBe(404)
      expect(response.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
    }
    expect(touched, 'storage calls').toEqual([])
    expect(await downloadCountOf(buyer.userId, bookB().id)).toBe(0)
    expect(await limitRowsOf(buyer.userId, bookB().id)).toEqual([])
  })

  test('a stamped copy is made once and reused; a new edition is stamped afresh', async () => {
    const buyer = await createBuyer(database.db, [bookB().id])
    const storage = servicesFor(database.db).storage
    const first = await download(`/library/${bookB().slug}/download.pdf`, buyer.cookie)
    const firstBytes = new Uint8Array(await first.arrayBuffer())
    const second = await download(`/library/${bookB().slug}/download.pdf`, buyer.cookie)
    expect(new Uint8Array(await second.arrayBuffer())).toEqual(firstBytes)
    const prepare = () =>
      prepareDownload(
        database.db,
        storage,
        { userId: buyer.userId, email: buyer.email, slug: bookB().slug, format: 'pdf' },
        logger,
      )
    const fromCache = await prepare()
    expect(fromCache).toMatchObject({ ok: true, cached: true })
    if (fromCache.ok) await fromCache.stream.cancel()

    // A new edition: the manuscript gains a paragraph, start-up publishes it.
    const addition = 'This paragraph was added in the second edition of the book.'
    const summary = await publishBookFiles(database.db, storage, logger, async (slug) => {
      const text = await readManuscript(slug)
      return slug === bookB().slug ? `${text.trimEnd()}\n\n${addition}\n` : text
    })
    expect(summary.rendered).toBe(1)
    const restamped = await prepare()
    expect(restamped).toMatchObject({ ok: true, cached: false })
    if (restamped.ok) await restamped.stream.cancel()
    const third = await download(`/library/${bookB().slug}/download.pdf`, buyer.cookie)
    const thirdBytes = new Uint8Array(await third.arrayBuffer())
    expect(thirdBytes).not.toEqual(firstBytes)
    const text = (await pdfPages(thirdBytes)).join('\n').replace(/\s+/g, ' ')
    expect(text).toContain(addition)
    expect(text).toContain(buyer.email)
    // Put the first edition back for the other tests.
    await publishBookFiles(database.db, storage, logger)
  })

  test('more than 50 downloads of one book in a day: 429 with a clear message', async () => {
    const buyer = await createBuyer(database.db, [bookA().id])
    // 49 downloads already counted today (downloading 49 times would test the same thing, slower).
    await database.db.insert(rateLimits).values({
      key: `downloads:${buyer.userId}:${bookA().id}`,
      hits: 49,
      resetAt: new Date(Date.now() + 20 * 60 * 60 * 1000),
    })
    expect((await download(`/library/${bookA().slug}/download.pdf`, buyer.cookie)).status).toBe(200)
    const refused = await download(`/library/${bookA().slug}/download.epub`, buyer.cookie)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(19 * 60 * 60)
    expect(await refused.text()).toContain(
      'You have downloaded this eBook 50 times today, the daily limit. You can download it again in 20 hours.',
    )
    // The refused download is not counted.
    const [item] = await database.db
      .select({ downloadCount: libraryItems.downloadCount })
      .from(libraryItems)
      .where(and(eq(libraryItems.userId, buyer.userId), eq(libraryItems.bookId, bookA().id)))
    expect(item!.downloadCount).toBe(1)
  })

  test('a copy stamped in an older stamp format is not served: a new stamp format stamps afresh', async () => {
    const buyer = await createBuyer(database.db, [bookA().id])
    const storage = servicesFor(database.db).storage
    const file = (await getBookFile(database.db, bookA().slug, 'epub'))!
    const stamp = { email: buyer.email, orderNumber: buyer.orderNumber }
    const previousKey = stampedCopyKey(buyer.userId, stamp, file, stampFormatVersion - 1)
    expect(previousKey).not.toBe(stampedCopyKey(buyer.userId, stamp, file, stampFormatVersion))
    // A copy left by the previous stamp format, which a reader must no longer receive.
    const oldCopy = new TextEncoder().encode('a copy stamped the old way')
    await storage.put(previousKey, oldCopy)
    const prepared = await prepareDownload(
      database.db,
      storage,
      { userId: buyer.userId, email: buyer.email, slug: bookA().slug, format: 'epub' },
      logger,
    )
    expect(prepared).toMatchObject({ ok: true, cached: false })
    if (!prepared.ok) return
    const bytes = Buffer.from(await new Response(prepared.stream).arrayBuffer())
    expect(bytes.equals(oldCopy)).toBe(false)
    expect(bytes.subarray(30, 58).toString('latin1')).toBe('mimetypeapplication/epub+zip')
  })

  test('an instance whose file is not the edition the database lists stamps nothing: 503, logged, not counted', async () => {
    const book = (await getBookBySlug(database.db, catalogue[2]!.slug))!
    const buyer = await createBuyer(database.db, [book.id])
    // Another instance's storage (decision 010: each renders its own) holding an edition the database does not
    // list, as an instance still running the previous release does during a rolling deploy.
    const instanceFiles = testStorage()
    const manuscript = await readManuscript(book.slug)
    const addition = 'This paragraph is only in the edition this instance still has.'
    await publishEditions(instanceFiles, book, `${manuscript.trimEnd()}\n\n${addition}\n`)
    const { logger: recorder, lines } = recordingLogger()
    const services = { ...servicesFor(database.db), storage: instanceFiles, logger: recorder }
    const get = () =>
      downloadLoader(
        routeArgs({
          db: database.db,
          path: `/library/${book.slug}/download.pdf`,
          cookie: buyer.cookie,
          services,
          params: { slug: book.slug, file: 'download.pdf' },
        }),
      )

    const refused = await get()
    expect(refused.status).toBe(503)
    expect(refused.headers.get('Retry-After')).toBe('60')
    expect(await refused.text()).toContain(
      'A new edition of this eBook is being put in place. Please try again in a minute; this attempt was not counted.',
    )
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        slug: book.slug,
        msg: expect.stringContaining('not the edition the database lists'),
      }),
    )
    expect(await downloadCountOf(buyer.userId, book.id)).toBe(0)
    expect(await limitRowsOf(buyer.userId, book.id)).toEqual([])

    // Once the instance has the listed edition, that is what gets stamped: the other one was never cached.
    await publishEditions(instanceFiles, book, manuscript)
    const delivered = await get()
    expect(delivered.status).toBe(200)
    const text = (await pdfPages(new Uint8Array(await delivered.arrayBuffer()))).join('\n')
    expect(text).toContain(buyer.email)
    expect(text.replace(/\s+/g, ' ')).not.toContain(addition)
    expect(await downloadCountOf(buyer.userId, book.id)).toBe(1)
  })

  test('a download that fails is not counted towards the daily limit', async () => {
    const buyer = await createBuyer(database.db, [bookB().id])
    const storage = servicesFor(database.db).storage
    const full: FileStorage = {
      ...storage,
      put: () => Promise.reject(new Error('ENOSPC: no space left on device')),
    }
    const wanted = { userId: buyer.userId, email: buyer.email, slug: bookB().slug, format: 'epub' as const }
    await expect(prepareDownload(database.db, full, wanted, logger)).rejects.toThrow('ENOSPC')
    expect(await downloadCountOf(buyer.userId, bookB().id)).toBe(0)
    expect(await limitRowsOf(buyer.userId, bookB().id)).toEqual([])
    const delivered = await prepareDownload(database.db, storage, wanted, logger)
    expect(delivered).toMatchObject({ ok: true })
    if (delivered.ok) await delivered.stream.cancel()
    expect(await limitRowsOf(buyer.userId, bookB().id)).toEqual([{ hits: 1 }])
  })

  test('concurrent downloads with one left today: exactly one is delivered', async () => {
    const buyer = await createBuyer(database.db, [bookA().id])
    await database.db.insert(rateLimits).values({
      key: `downloads:${buyer.userId}:${bookA().id}`,
      hits: 49,
      resetAt: new Date(Date.now() + 20 * 60 * 60 * 1000),
    })
    const responses = await Promise.all(
      ['pdf', 'epub', 'pdf'].map((format) =>
        download(`/library/${bookA().slug}/download.${format}`, buyer.cookie),
      ),
    )
    expect(responses.map((response) => response.status).toSorted()).toEqual([200, 429, 429])
    await Promise.all(responses.map((response) => response.body?.cancel()))
    expect(await downloadCountOf(buyer.userId, bookA().id)).toBe(1)
  })
})
