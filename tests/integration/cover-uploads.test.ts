import { eq } from 'drizzle-orm'
import sharp from 'sharp'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { action as coverAction } from '#app/routes/admin/book-cover.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { createWorkQueue, type WorkQueue } from '#app/server/work-queue.server.ts'
import type { StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
  bookIds = (await listBooks(database.db)).map((book) => book.id)
})

/** The store's services with the storage's writes and the image queue's jobs written down in `log`. */
function watchedServices(log: string[], imageWork: WorkQueue = servicesFor(database.db).imageWork) {
  const services = servicesFor(database.db)
  const storage: FileStorage = {
    ...services.storage,
    put: (key, bytes) => (log.push(`put ${key}`), services.storage.put(key, bytes)),
  }
  let jobs = 0
  const watchedWork: WorkQueue = {
    run: (job) => {
      const name = `job ${++jobs}`
      return imageWork.run(async () => {
        log.push(`start ${name}`)
        try {
          return await job()
        } finally {
          log.push(`end ${name}`)
        }
      })
    },
    get running() {
      return imageWork.running
    },
    get waiting() {
      return imageWork.waiting
    },
  }
  return { ...services, storage, imageWork: watchedWork } satisfies StoreServices
}

async function upload(bookId: string, bytes: Uint8Array<ArrayBuffer>, services: StoreServices) {
  const form = new FormData()
  form.set('cover', new File([bytes], 'cover.png', { type: 'image/png' }))
  const response = (await coverAction(
    routeArgs({
      db: database.db,
      path: `/admin/books/${bookId}/cover`,
      cookie: admin.cookie,
      services,
      params: { bookId },
      init: { method: 'POST', body: form, headers: { Accept: 'application/json' } },
    }),
  )) as Response
  return {
    status: response.status,
    retryAfter: response.headers.get('Retry-After'),
    body: (await response.json()) as { ok: boolean; message: string },
  }
}

/** A real image (a gradient, so encoders have work to do). */
async function gradient(width: number, height: number) {
  const pixels = Buffer.alloc(width * height * 3)
  for (let index = 0; index < pixels.length; index++) pixels[index] = (index * 7) % 256
  return new Uint8Array(
    await sharp(pixels, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer(),
  )
}

async function coverOf(bookId: string) {
  const [row] = await database.db
    .select({ cover: books.cover, version: books.version })
    .from(books)
    .where(eq(books.id, bookId))
  return row!
}

describe('cover uploads that would cost the store dearly', () => {
  test('a 7000×7000 PNG (a few hundred KB, 49 megapixels) is refused with a message before any decoding; nothing written', async () => {
    const bytes = new Uint8Array(
      await sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#3366aa' } })
        .png({ compressionLevel: 9 })
        .toBuffer(),
    )
    expect(bytes.byteLength).toBeLessThan(1024 * 1024)
    const bookId = bookIds[0]!
    const before = await coverOf(bookId)
    const log: string[] = []
    const refused = await upload(bookId, bytes, watchedServices(log))
    expect(refused).toMatchObject({
      status: 422,
      body: { ok: false, message: expect.stringMatching(/more than 40 megapixels/) },
    })
    // Neither resized (no job in the image queue) nor stored, and the book is as it was.
    expect(log).toEqual([])
    expect(await coverOf(bookId)).toEqual(before)
  })

  test('two uploads at once are resized one after the other, never both at the same time', async () => {
    const log: string[] = []
    const services = watchedServices(log)
    const [first, second] = await Promise.all([
      upload(bookIds[1]!, await gradient(600, 900), services),
      upload(bookIds[2]!, await gradient(900, 600), services),
    ])
    expect([first.status, second.status]).toEqual([200, 200])
    const jobs = log.filter((line) => !line.startsWith('put '))
    expect(jobs).toHaveLength(4)
    // Each job ends before the next one starts.
    expect(jobs.map((line) => line.split(' ')[0])).toEqual(['start', 'end', 'start', 'end'])
    expect(jobs[0]!.slice('start '.length)).toBe(jobs[1]!.slice('end '.length))
    expect((await coverOf(bookIds[1]!)).cover).toMatchObject({ width: 600, height: 900 })
    expect((await coverOf(bookIds[2]!)).cover).toMatchObject({ width: 900, height: 600 })
  }, 60_000)

  test('with the queue full, an upload is told to try again shortly (503, Retry-After); nothing written', async () => {
    const queue = createWorkQueue({ concurrency: 1, maxWaiting: 0 })
    let release!: () => void
    const occupied = queue.run(() => new Promise<void>((resolve) => (release = resolve)))
    const log: string[] = []
    const bookId = bookIds[3]!
    const before = await coverOf(bookId)
    const busy = await upload(bookId, await gradient(300, 450), watchedServices(log, queue))
    expect(busy).toMatchObject({
      status: 503,
      body: { ok: false, message: expect.stringMatching(/try again in a few seconds/) },
    })
    expect(Number(busy.retryAfter)).toBeGreaterThan(0)
    expect(log).toEqual([])
    expect(await coverOf(bookId)).toEqual(before)
    release()
    await occupied
    expect((await upload(bookId, await gradient(300, 450), watchedServices(log, queue))).status).toBe(200)
  }, 60_000)
})
