import { afterAll, beforeAll, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { loader as downloadLoader } from '#app/routes/library-download.ts'
import { InvalidEnvError, parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createS3Client, createS3Storage } from '#app/server/s3-storage.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { S3RVER_CREDENTIALS, startTestS3, type TestS3 } from '#harness/s3-server.ts'

// DOWNLOAD_DELIVERY=redirect (decision 034): once a download is allowed and counted, the store answers a 302
// to the copy in the bucket, signed for DOWNLOAD_URL_SECONDS, and the object store sends the bytes (ranges too).
// A refused download gets no URL. Against a real S3-compatible server (s3rver).
let s3: TestS3
let database: TestDatabase
let services: StoreServices
let book: Awaited<ReturnType<typeof listBooks>>[number]
beforeAll(async () => {
  s3 = await startTestS3('codebook-redirect')
})
afterAll(async () => {
  await s3?.stop()
})
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  book = (await listBooks(database.db))[0]!
  const env = parseEnv({
    STORAGE_URL: 's3://codebook-redirect/shop',
    S3_ENDPOINT: s3.endpoint,
    DOWNLOAD_DELIVERY: 'redirect',
    DOWNLOAD_URL_SECONDS: '30',
  })
  const client = createS3Client({ endpoint: s3.endpoint, credentials: S3RVER_CREDENTIALS })
  services = createStoreServices({
    db: database.db,
    env,
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
    storage: createS3Storage(client, { bucket: s3.bucket, prefix: 'shop/' }),
  })
  await publishBookFiles(database.db, services.storage, createLogger('silent'))
})

function download(cookie: string, headers: Record<string, string> = {}) {
  return downloadLoader(
    routeArgs({
      db: database.db,
      services,
      path: `/library/${book.slug}/download.pdf`,
      cookie,
      params: { slug: book.slug, file: 'download.pdf' },
      init: { headers },
    }),
  )
}

test('an allowed download is a 302 to a signed URL of the bucket, which serves the stamped copy and its ranges', async () => {
  const buyer = await createBuyer(database.db, [book.id])
  const answer = await download(buyer.cookie)
  expect(answer.status).toBe(302)
  expect(answer.headers.get('Cache-Control')).toBe('private, no-store')
  const location = new URL(answer.headers.get('Location')!)
  expect(location.origin).toBe(s3.endpoint)
  expect(location.pathname).toMatch(/^\/codebook-redirect\/shop\/stamped\//)
  expect(location.searchParams.get('X-Amz-Expires')).toBe('30')
  expect(location.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/)

  const copy = await fetch(location)
  expect(copy.status).toBe(200)
  expect(copy.headers.get('Content-Type')).toBe('application/pdf')
  expect(copy.headers.get('Content-Disposition')).toContain(`filename="${book.slug}.pdf"`)
  const bytes = new Uint8Array(await copy.arrayBuffer())
  expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-')
  // The buyer's stamped copy, not the book file: the same bytes as the bucket holds under the stamped key.
  const stored = await services.storage.read(
    decodeURIComponent(location.pathname).replace(/^\/codebook-redirect\/shop\//, ''),
  )
  expect(bytes).toEqual(stored)

  // A part: counted by the store as the streamed path counts it, then served by the bucket.
  const part = await download(buyer.cookie, { Range: 'bytes=0-99' })
  expect(part.status).toBe(302)
  const ranged = await fetch(part.headers.get('Location')!, { headers: { Range: 'bytes=0-99' } })
  expect(ranged.status).toBe(206)
  expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(bytes.slice(0, 100))

  // A URL outlives its lifetime: refused by the object store. (s3rver does not check SigV4 signatures
  // themselves, so a forged one cannot be tested here; S3, R2 and MinIO do.)
  const key = decodeURIComponent(location.pathname).replace(/^\/codebook-redirect\/shop\//, '')
  const shortLived = await services.storage.signedUrl!(key, {
    expiresInSeconds: 1,
    fileName: 'x.pdf',
    contentType: 'application/pdf',
  })
  await new Promise((resolve) => setTimeout(resolve, 2_100))
  expect((await fetch(shortLived)).status).toBe(403)
})

test('a refused download gets no URL: someone who does not own the book, and the 51st copy of the day', async () => {
  const [, other] = await listBooks(database.db)
  const stranger = await createBuyer(database.db, [other!.id])
  const refused = await download(stranger.cookie)
  expect(refused.status).toBe(403)
  expect(refused.headers.get('Location')).toBeNull()

  const buyer = await createBuyer(database.db, [book.id])
  for (let count = 0; count < 50; count++) expect((await download(buyer.cookie)).status).toBe(302)
  const tooMany = await download(buyer.cookie)
  expect(tooMany.status).toBe(429)
  expect(tooMany.headers.get('Location')).toBeNull()
})

test('redirect needs an object store, and the URL’s lifetime is bounded', () => {
  expect(() => parseEnv({ DOWNLOAD_DELIVERY: 'redirect' })).toThrow(InvalidEnvError)
  expect(() => parseEnv({ DOWNLOAD_DELIVERY: 'redirect' })).toThrow(
    /DOWNLOAD_DELIVERY: redirect needs STORAGE_URL/,
  )
  for (const seconds of ['5', '7200', 'soon', '1.5'])
    expect(() =>
      parseEnv({ STORAGE_URL: 's3://b1/x', DOWNLOAD_DELIVERY: 'redirect', DOWNLOAD_URL_SECONDS: seconds }),
    ).toThrow(/DOWNLOAD_URL_SECONDS/)
  expect(() => parseEnv({ DOWNLOAD_DELIVERY: 'fast' })).toThrow(/expected 'stream' or 'redirect'/)
})
