import { and, eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { loader as sampleLoader } from '#app/routes/book-sample.ts'
import { loader as downloadLoader } from '#app/routes/library-download.ts'
import { libraryItems, rateLimits } from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { addToWindowTotal } from '#app/server/rate-limit.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'

let database: TestDatabase
let book: Awaited<ReturnType<typeof listBooks>>[number]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  book = (await listBooks(database.db))[0]!
  await publishBookFiles(database.db, servicesFor(database.db).storage, createLogger('silent'))
})

type Buyer = Awaited<ReturnType<typeof createBuyer>>

/** GET (or HEAD) of the buyer's copy, with these request headers. */
async function download(
  buyer: Buyer,
  headers: Record<string, string> = {},
  { format = 'pdf', method = 'GET' }: { format?: 'pdf' | 'epub'; method?: string } = {},
) {
  const response = await downloadLoader(
    routeArgs({
      db: database.db,
      path: `/library/${book.slug}/download.${format}`,
      cookie: buyer.cookie,
      params: { slug: book.slug, file: `download.${format}` },
      init: { method, headers },
    }),
  )
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) }
}

async function sample(headers: Record<string, string> = {}, method = 'GET') {
  const response = await sampleLoader(
    routeArgs({
      db: database.db,
      path: `/books/${book.slug}/sample.pdf`,
      params: { slug: book.slug },
      init: { method, headers },
    }),
  )
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) }
}

async function downloadCountOf(buyer: Buyer) {
  const [item] = await database.db
    .select({ downloadCount: libraryItems.downloadCount })
    .from(libraryItems)
    .where(and(eq(libraryItems.userId, buyer.userId), eq(libraryItems.bookId, book.id)))
  return item!.downloadCount
}

async function limitHitsOf(buyer: Buyer) {
  const [row] = await database.db
    .select({ hits: rateLimits.hits })
    .from(rateLimits)
    .where(eq(rateLimits.key, `downloads:${buyer.userId}:${book.id}`))
  return row?.hits ?? 0
}

/** Today's downloads of the book by the buyer set to `hits`, as if they had happened. */
async function setLimitHits(buyer: Buyer, hits: number) {
  await database.db
    .insert(rateLimits)
    .values({
      key: `downloads:${buyer.userId}:${book.id}`,
      hits,
      resetAt: new Date(Date.now() + 20 * 60 * 60 * 1000),
    })
    .onConflictDoUpdate({ target: rateLimits.key, set: { hits } })
}

describe('a stamped copy in parts (Range)', () => {
  test('single ranges are answered 206 with exactly those bytes of the whole download', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const whole = await download(buyer)
    expect(whole.response.status).toBe(200)
    expect(whole.response.headers.get('Accept-Ranges')).toBe('bytes')
    const etag = whole.response.headers.get('ETag')
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/)
    const size = whole.bytes.length
    expect(size).toBeGreaterThan(1000)

    const cases: [string, number, number][] = [
      ['bytes=0-99', 0, 99],
      ['bytes=-100', size - 100, size - 1],
      ['bytes=100-', 100, size - 1],
      ['bytes=500-499999999', 500, size - 1],
      [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1],
      ['BYTES=10-19', 10, 19],
      [`bytes=-${size + 10}`, 0, size - 1],
    ]
    for (const [range, start, end] of cases) {
      const part = await download(buyer, { Range: range })
      expect(part.response.status, range).toBe(206)
      expect(part.response.headers.get('Content-Range'), range).toBe(`bytes ${start}-${end}/${size}`)
      expect(part.response.headers.get('Content-Length'), range).toBe(String(end - start + 1))
      expect(part.response.headers.get('Accept-Ranges')).toBe('bytes')
      expect(part.response.headers.get('ETag')).toBe(etag)
      expect(part.response.headers.get('Content-Type')).toBe('application/pdf')
      expect(part.bytes, range).toEqual(whole.bytes.subarray(start, end + 1))
    }
  })

  test('a range past the end is 416 with the size; several ranges or a malformed one get the whole file', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const whole = await download(buyer, {}, { format: 'epub' })
    const size = whole.bytes.length
    for (const range of ['bytes=999999999-', `bytes=${size}-`, 'bytes=-0']) {
      const refused = await download(buyer, { Range: range }, { format: 'epub' })
      expect(refused.response.status, range).toBe(416)
      expect(refused.response.headers.get('Content-Range'), range).toBe(`bytes */${size}`)
    }
    for (const range of [
      'bytes=0-99,200-299',
      'bytes=0-99, 200-',
      'bytes=abc',
      'bytes=99-0',
      'items=0-1',
      'bytes=',
    ]) {
      const full = await download(buyer, { Range: range }, { format: 'epub' })
      expect(full.response.status, range).toBe(200)
      expect(full.response.headers.get('Content-Range'), range).toBeNull()
      expect(full.bytes, range).toEqual(whole.bytes)
    }
  })

  test('If-Range: the part when it names this copy’s ETag, the whole file when the copy changed or it is a date', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const whole = await download(buyer)
    const etag = whole.response.headers.get('ETag')!
    const same = await download(buyer, { Range: 'bytes=0-9', 'If-Range': etag })
    expect(same.response.status).toBe(206)
    expect(same.bytes).toEqual(whole.bytes.subarray(0, 10))
    for (const ifRange of ['"0123456789abcdef0123456789abcdef"', `W/${etag}`, new Date().toUTCString()]) {
      const changed = await download(buyer, { Range: 'bytes=0-9', 'If-Range': ifRange })
      expect(changed.response.status, ifRange).toBe(200)
      expect(changed.bytes, ifRange).toEqual(whole.bytes)
    }
  })

  test('ten range requests of one file count as one download, in the library and against the daily limit', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    for (let index = 0; index < 10; index++) {
      const part = await download(buyer, { Range: `bytes=${index * 100}-${index * 100 + 99}` })
      expect(part.response.status).toBe(206)
    }
    expect(await downloadCountOf(buyer)).toBe(1)
    expect(await limitHitsOf(buyer)).toBe(1)
    // The same parts fetched again still fit in one copy's worth of bytes.
    for (let index = 0; index < 5; index++) await download(buyer, { Range: 'bytes=0-99' })
    expect(await downloadCountOf(buyer)).toBe(1)
    // Each whole download is a copy; the other format is another file.
    await download(buyer)
    await download(buyer, { Range: 'bytes=0-99' }, { format: 'epub' })
    expect(await downloadCountOf(buyer)).toBe(3)
    expect(await limitHitsOf(buyer)).toBe(3)
  })

  test('a download manager fetching the day’s last copy in parallel parts gets every part; the next copy is refused', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const size = (await download(buyer)).bytes.length
    await setLimitHits(buyer, 49)
    const quarter = Math.ceil(size / 4)
    const parts = await Promise.all(
      [0, 1, 2, 3].map((index) =>
        download(buyer, {
          Range: `bytes=${index * quarter}-${Math.min(size, (index + 1) * quarter) - 1}`,
        }),
      ),
    )
    expect(parts.map((part) => part.response.status)).toEqual([206, 206, 206, 206])
    expect(parts.reduce((total, part) => total + part.bytes.length, 0)).toBe(size)
    expect(await limitHitsOf(buyer)).toBe(50)
    expect(await downloadCountOf(buyer)).toBe(2)

    // A part beyond that copy's worth of bytes would be a 51st: refused, and it earns no part for later.
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await download(buyer, { Range: 'bytes=0-99' })
      expect(refused.response.status).toBe(429)
    }
    expect((await download(buyer)).response.status).toBe(429)
    expect(await limitHitsOf(buyer)).toBe(50)
    expect(await downloadCountOf(buyer)).toBe(2)
  })

  test('HEAD says ranges are accepted and counts nothing; a Range on a HEAD is ignored', async () => {
    const buyer = await createBuyer(database.db, [book.id])
    const probe = await download(buyer, { Range: 'bytes=0-99' }, { method: 'HEAD' })
    expect(probe.response.status).toBe(200)
    expect(probe.response.headers.get('Accept-Ranges')).toBe('bytes')
    expect(probe.response.headers.get('Content-Range')).toBeNull()
    expect(await downloadCountOf(buyer)).toBe(0)
    expect(await limitHitsOf(buyer)).toBe(0)
    // Once the copy exists, a HEAD gives its length and ETag, as a download manager plans its parts with them.
    const whole = await download(buyer)
    const again = await download(buyer, {}, { method: 'HEAD' })
    expect(again.response.headers.get('Content-Length')).toBe(String(whole.bytes.length))
    expect(again.response.headers.get('ETag')).toBe(whole.response.headers.get('ETag'))
    expect(await downloadCountOf(buyer)).toBe(1)
  })
})

describe('the free sample in parts (Range)', () => {
  test('206 for a single range, 416 past the end, the whole file for several ranges, If-Range by its ETag', async () => {
    const whole = await sample()
    expect(whole.response.status).toBe(200)
    expect(whole.response.headers.get('Accept-Ranges')).toBe('bytes')
    const size = whole.bytes.length
    const etag = whole.response.headers.get('ETag')!

    const first = await sample({ Range: 'bytes=0-99' })
    expect(first.response.status).toBe(206)
    expect(first.response.headers.get('Content-Range')).toBe(`bytes 0-99/${size}`)
    expect(first.bytes).toEqual(whole.bytes.subarray(0, 100))
    const last = await sample({ Range: 'bytes=-100', 'If-Range': etag })
    expect(last.response.status).toBe(206)
    expect(last.bytes).toEqual(whole.bytes.subarray(size - 100))
    const rest = await sample({ Range: 'bytes=100-' })
    expect(rest.bytes).toEqual(whole.bytes.subarray(100))

    const past = await sample({ Range: 'bytes=999999999-' })
    expect(past.response.status).toBe(416)
    expect(past.response.headers.get('Content-Range')).toBe(`bytes */${size}`)
    const several = await sample({ Range: 'bytes=0-99,200-299' })
    expect(several.response.status).toBe(200)
    expect(several.bytes).toEqual(whole.bytes)
    const otherEdition = await sample({ Range: 'bytes=0-99', 'If-Range': '"another"' })
    expect(otherEdition.response.status).toBe(200)
    expect(otherEdition.bytes).toEqual(whole.bytes)

    const head = await sample({ Range: 'bytes=0-99' }, 'HEAD')
    expect(head.response.headers.get('Accept-Ranges')).toBe('bytes')
  })
})

describe("a day's running total of bytes", () => {
  test('passes 2³¹ (50 copies of a 50 MB book in parts) without a 500: the total is a bigint', async () => {
    const rule = { name: 'bytes-test', windowMs: 60_000 }
    const subject = crypto.randomUUID()
    const fiftyMegabytes = 50 * 1024 * 1024
    let total = 0
    for (let copy = 0; copy < 50; copy++)
      total = await addToWindowTotal(database.db, rule, subject, fiftyMegabytes)
    expect(total).toBe(50 * fiftyMegabytes)
    expect(total).toBeGreaterThan(2 ** 31)
    expect(await addToWindowTotal(database.db, rule, subject, -fiftyMegabytes)).toBe(49 * fiftyMegabytes)
  })
})
