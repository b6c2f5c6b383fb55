import crypto from 'node:crypto'
import { Writable } from 'node:stream'
import { eq, sql } from 'drizzle-orm'
import pino from 'pino'
import { describe, expect } from 'vitest'
import { stampedCopyKey } from '#app/features/library/downloads.server.ts'
import { loadStampedCopiesInUse } from '#app/features/library/files-in-use.server.ts'
import { createFileSweep, type FileSweepLimits } from '#app/features/files/sweep-files.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { advisoryLocks } from '#app/server/db/advisory-lock.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { authors, bookFiles, books, libraryItems, storeSettings } from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { storeSweeps } from '#app/startup.server.ts'
import { test } from '#tests/fixtures.ts'
import { listStorage, storageBackEndsForFile } from '#tests/storage-back-ends.ts'
import { createBuyer } from '#harness/factories/buyers.ts'

/**
 * The sweep of old files (issue 32, decision 034) on both back ends and both databases: what goes, what stays
 * (every file a row names, every file written in the last hour), its bounds, and one instance at a time.
 */
const backEnds = storageBackEndsForFile('codebook-sweep')
const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR
const bytes = (text: string) => new TextEncoder().encode(text)
const sha256 = (data: Uint8Array) => crypto.createHash('sha256').update(data).digest('hex')
const hex16 = () => crypto.randomBytes(8).toString('hex')

/** A sweep whose clock reads `ahead` later than now, so the files just written are that old; its log kept. */
function sweepOf(db: Db, storage: FileStorage, ahead: number, limits: Partial<FileSweepLimits> = {}) {
  const lines: { key?: string; reason?: string; msg: string }[] = []
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number])
        done()
      },
    }),
  )
  const sweep = createFileSweep({ db, storage, logger, limits, now: () => new Date(Date.now() + ahead) })
  return { sweep, lines }
}

/** A seed book on a published edition `number`: its files listed in book_files and put in the storage. */
async function publishedEdition(db: Db, storage: FileStorage, bookId: string, number: number) {
  const folder = `editions/${bookId}/${number}`
  const files = { pdf: 'book.pdf', epub: 'book.epub', sample: 'sample.pdf' } as const
  for (const [format, name] of Object.entries(files) as [keyof typeof files, string][]) {
    const content = bytes(`${bookId} edition ${number} ${format}`)
    await storage.put(`${folder}/${name}`, content)
    const row = {
      bookId,
      format,
      storageKey: `${folder}/${name}`,
      sizeBytes: content.length,
      sha256: sha256(content),
      sourceHash: 'test',
      edition: number,
    }
    await db
      .insert(bookFiles)
      .values(row)
      .onConflictDoUpdate({ target: [bookFiles.bookId, bookFiles.format], set: row })
  }
  await storage.put(`${folder}/edition.sha256`, bytes('fingerprint'))
  return folder
}

async function seedBook(db: Db, offset: number) {
  const [book] = await db
    .select({ id: books.id, slug: books.slug, authorId: books.authorId })
    .from(books)
    .orderBy(books.slug)
    .offset(offset)
    .limit(1)
  return book!
}

describe.each(['folder', 's3'] as const)('files in %s', (backEnd) => {
  test('old editions, replaced uploads, deleted books and stamped copies nobody is served are swept; every file a row names is kept', async ({
    database,
  }) => {
    const { db } = database
    const { storage } = backEnds.make(backEnd)
    const book = await seedBook(db, 0)
    const other = await seedBook(db, 1)
    // The book is on its edition 3; editions 1 and 2 and its seed files are no row's any more.
    const live = await publishedEdition(db, storage, book.id, 3)
    const keep = [`${live}/book.pdf`, `${live}/book.epub`, `${live}/sample.pdf`, `${live}/edition.sha256`]
    const swept = [
      `editions/${book.id}/2/book.pdf`,
      `editions/${book.id}/2/edition.sha256`,
      `books/${book.slug}/${book.slug}.pdf`,
      `books/${book.slug}/edition.sha256`,
      // A deleted book's edition.
      `editions/${crypto.randomUUID()}/1/book.epub`,
    ]
    // Uploads: the cover, the author's photo and the logo the rows name, and one replaced of each.
    const cover = `covers/${other.id}-${hex16()}`
    await db
      .update(books)
      .set({ cover: { keyPrefix: cover, widths: [200, 400], formats: ['jpeg'], width: 400, height: 600 } })
      .where(eq(books.id, other.id))
    keep.push(`${cover}-200.jpeg`, `${cover}-400.jpeg`)
    swept.push(`covers/${other.id}-${hex16()}-200.jpeg`)
    const photo = `authors/${other.authorId}-${hex16()}`
    await db
      .update(authors)
      .set({ photo: { keyPrefix: photo, widths: [128], formats: ['webp'], width: 128, height: 128 } })
      .where(eq(authors.id, other.authorId))
    keep.push(`${photo}-128.webp`)
    swept.push(`authors/${other.authorId}-${hex16()}-128.webp`)
    const logo = hex16()
    const logoValue = { logo: { webp: `${logo}.webp`, png: `${logo}.png`, width: 80, height: 80 } }
    await db
      .insert(storeSettings)
      .values({ key: 'store', value: logoValue })
      .onConflictDoUpdate({ target: storeSettings.key, set: { value: logoValue } })
    keep.push(`logos/${logo}.webp`, `logos/${logo}.png`)
    swept.push(`logos/${hex16()}.png`)
    // Stamped copies: the owner's of the live edition stays; theirs of an earlier edition, and a refunded
    // buyer's, go.
    const owner = await createBuyer(db, [book.id])
    const refunded = await createBuyer(db, [book.id])
    const [pdf] = await db
      .select()
      .from(bookFiles)
      .where(eq(bookFiles.storageKey, `${live}/book.pdf`))
    const stampedOf = (buyer: typeof owner, sha: string) =>
      stampedCopyKey(
        buyer.userId,
        { email: buyer.email, orderNumber: buyer.orderNumber },
        {
          slug: book.slug,
          format: 'pdf',
          sha256: sha,
        },
      )
    keep.push(stampedOf(owner, pdf!.sha256))
    swept.push(stampedOf(owner, sha256(bytes('edition 2'))), stampedOf(refunded, pdf!.sha256))
    expect(await refundOrder(db, refunded.orderId)).toBe('refunded')
    // A folder the sweep does not know is not its to judge.
    keep.push('drafts/notes.txt')
    for (const key of [...keep, ...swept]) if (!(await storage.stat(key))) await storage.put(key, bytes(key))

    const { sweep, lines } = sweepOf(db, storage, 2 * HOUR)
    const run = await sweep.run()
    expect(run).toMatchObject({ ran: true, stoppedBy: 'end' })
    expect(run.deleted.map((file) => file.key).sort()).toEqual([...swept].sort())
    expect([...(await listStorage(storage)).keys()].sort()).toEqual([...keep].sort())
    expect(Object.fromEntries(run.deleted.map((file) => [file.key, file.reason]))).toMatchObject({
      [`editions/${book.id}/2/book.pdf`]: 'named-by-no-row',
      [stampedOf(refunded, pdf!.sha256)]: 'stamped-not-served',
    })
    // Each deletion is logged with its key and reason.
    const logged = lines.filter((line) => line.msg === 'swept an old file')
    expect(logged.map((line) => line.key).sort()).toEqual([...swept].sort())
    expect(logged.every((line) => line.reason)).toBe(true)
    // A second run finds nothing more.
    expect((await sweep.run()).deleted).toEqual([])
  })

  test("a buyer's stamped copy unused for 30 days is swept (stamped again when asked); one downloaded lately stays", async ({
    database,
  }) => {
    const { db } = database
    const { storage } = backEnds.make(backEnd)
    const book = await seedBook(db, 2)
    await publishedEdition(db, storage, book.id, 2)
    const [pdf] = await db
      .select()
      .from(bookFiles)
      .where(eq(bookFiles.storageKey, `editions/${book.id}/2/book.pdf`))
    const idle = await createBuyer(db, [book.id])
    const reading = await createBuyer(db, [book.id])
    const keyOf = (buyer: typeof idle) =>
      stampedCopyKey(
        buyer.userId,
        { email: buyer.email, orderNumber: buyer.orderNumber },
        { ...book, ...pdf! },
      )
    await storage.put(keyOf(idle), bytes('stamped for the idle reader'))
    await storage.put(keyOf(reading), bytes('stamped for the reader'))
    // The reader downloaded the book 29 days after the copies were made; the sweep runs on day 31.
    await db
      .update(libraryItems)
      .set({ lastDownloadedAt: new Date(Date.now() + 29 * DAY) })
      .where(eq(libraryItems.userId, reading.userId))

    expect((await sweepOf(db, storage, 29 * DAY).sweep.run()).deleted).toEqual([])
    const run = await sweepOf(db, storage, 31 * DAY).sweep.run()
    expect(run.deleted).toEqual([{ key: keyOf(idle), reason: 'stamped-idle', size: 27 }])
    expect(await storage.stat(keyOf(reading))).not.toBeNull()
  })

  test('the owners are read a page at a time, every page counted', async ({ database }) => {
    const { db } = database
    const { storage } = backEnds.make(backEnd)
    const book = await seedBook(db, 5)
    await publishedEdition(db, storage, book.id, 2)
    const [epub] = await db
      .select()
      .from(bookFiles)
      .where(eq(bookFiles.storageKey, `editions/${book.id}/2/book.epub`))
    const buyers = [
      await createBuyer(db, [book.id]),
      await createBuyer(db, [book.id]),
      await createBuyer(db, [book.id]),
    ]
    const keys = buyers.map((buyer) =>
      stampedCopyKey(
        buyer.userId,
        { email: buyer.email, orderNumber: buyer.orderNumber },
        { ...book, ...epub! },
      ),
    )
    for (const pageSize of [1, 2, 5_000]) {
      const use = await loadStampedCopiesInUse(db, { pageSize })
      expect(
        keys.map((key) => use(key).served),
        `pages of ${pageSize}`,
      ).toEqual([true, true, true])
      expect(use(keys[0]!.replace('-s1.', '-s0.')).served).toBe(false)
    }
  })

  test('a file written in the last hour is kept, whoever it belongs to', async ({ database }) => {
    const { db } = database
    const { storage } = backEnds.make(backEnd)
    const orphans = [
      `editions/${crypto.randomUUID()}/4/book.pdf`,
      `stamped/${hex16()}${hex16()}/x-${hex16()}-s1.pdf`,
    ]
    for (const key of orphans) await storage.put(key, bytes(key))
    expect((await sweepOf(db, storage, 0).sweep.run()).deleted).toEqual([])
    expect((await sweepOf(db, storage, HOUR - 60_000).sweep.run()).deleted).toEqual([])
    expect(
      (await sweepOf(db, storage, HOUR + 60_000).sweep.run()).deleted.map((file) => file.key).sort(),
    ).toEqual([...orphans].sort())
  })

  test('a run deletes at most its bound and stops at its time budget; the next runs go on until all are swept', async ({
    database,
  }) => {
    const { db } = database
    const { storage } = backEnds.make(backEnd)
    const book = await seedBook(db, 3)
    const live = await publishedEdition(db, storage, book.id, 5)
    const orphans = Array.from({ length: 25 }, (_, index) => `editions/${book.id}/${index + 6}/book.pdf`)
    for (const key of orphans) await storage.put(key, bytes(key))

    const outOfTime = await sweepOf(db, storage, 2 * HOUR, { timeBudgetMs: 0 }).sweep.run()
    expect(outOfTime).toMatchObject({ ran: true, deleted: [], stoppedBy: 'time' })

    const { sweep, lines } = sweepOf(db, storage, 2 * HOUR, { maxDeletions: 10 })
    const runs = [await sweep.run(), await sweep.run(), await sweep.run()]
    expect(runs.map((run) => [run.deleted.length, run.stoppedBy])).toEqual([
      [10, 'deletions'],
      [10, 'deletions'],
      [5, 'end'],
    ])
    expect(lines.some((line) => line.msg.includes('stopped at its bound'))).toBe(true)
    expect(new Set(runs.flatMap((run) => run.deleted.map((file) => file.key)))).toEqual(new Set(orphans))
    expect([...(await listStorage(storage)).keys()].sort()).toEqual(
      ['book.epub', 'book.pdf', 'edition.sha256', 'sample.pdf'].map((name) => `${live}/${name}`),
    )
  })

  test('a file a row comes to name while the sweep lists is kept', async ({ database }) => {
    const { db } = database
    const { storage: inner } = backEnds.make(backEnd)
    const book = await seedBook(db, 4)
    // An edition number of its own on each back end: the row written on the other is still there.
    const edition = 100 + Math.floor(Math.random() * 10_000)
    const old = `editions/${book.id}/${edition}/book.epub`
    await inner.put(old, bytes('an edition listed again'))
    // The row is written once the listing is over: after the sweep judged the file and before it deletes.
    const storage: FileStorage = {
      ...inner,
      list: async function* (prefix) {
        yield* inner.list(prefix)
        await db
          .insert(bookFiles)
          .values({
            bookId: book.id,
            format: 'epub',
            storageKey: old,
            sizeBytes: 23,
            sha256: sha256(bytes('an edition listed again')),
            sourceHash: 'test',
            edition,
          })
          .onConflictDoUpdate({
            target: [bookFiles.bookId, bookFiles.format],
            set: { storageKey: old, edition },
          })
      },
    }
    const run = await sweepOf(db, storage, 2 * HOUR).sweep.run()
    expect(run.deleted).toEqual([])
    expect(await inner.stat(old)).not.toBeNull()
  })
})

test('one instance sweeps at a time; the others skip the run', async ({ database }) => {
  const { db } = database
  const { storage } = backEnds.make('folder')
  const orphan = `editions/${crypto.randomUUID()}/1/book.pdf`
  await storage.put(orphan, bytes('old'))
  const { sweep } = sweepOf(db, storage, 2 * HOUR)
  if (database.kind === 'pglite') {
    // The embedded database is this process's alone: no other instance can be sweeping.
    expect((await sweep.run()).deleted.map((file) => file.key)).toEqual([orphan])
    return
  }
  // Another instance's sweep holds the lock (or a backup copying files holds it shared, as server/backup.ts does).
  let release!: () => void
  let held!: () => void
  const holding = new Promise<void>((resolve) => (held = resolve))
  const holder = db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock_shared(hashtextextended(${advisoryLocks.fileSweep}, 0))`,
    )
    held()
    await new Promise<void>((resolve) => (release = resolve))
  })
  await holding
  expect(await sweep.run()).toEqual({ ran: false, examined: 0, deleted: [], stoppedBy: null })
  expect(await storage.stat(orphan)).not.toBeNull()
  release()
  await holder
  expect((await sweep.run()).deleted.map((file) => file.key)).toEqual([orphan])
})

test('the store sweeps old files hourly with its other housekeeping', async ({ database }) => {
  const { storage } = backEnds.make('folder')
  const sweeps = storeSweeps({
    db: database.db,
    env: { ANALYTICS_RETENTION_DAYS: 400, publicUrl: new URL('http://localhost:3000') },
    storage,
    logger: createLogger('silent'),
  })
  const files = sweeps.find((sweep) => sweep.what === 'old files')
  await storage.put(`editions/${crypto.randomUUID()}/1/book.pdf`, bytes('written just now'))
  expect(await files?.run()).toBe(0)
})
