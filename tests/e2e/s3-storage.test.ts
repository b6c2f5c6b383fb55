import fs from 'node:fs'
import path from 'node:path'
import { ListObjectsV2Command } from '@aws-sdk/client-s3'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { cookieFromForm } from '#harness/cookie-jar.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { startStoreWithAdmin } from '#harness/store-process.ts'
import { S3RVER_CREDENTIALS, startTestS3, type TestS3 } from '#harness/s3-server.ts'

/**
 * The store on an S3-compatible bucket (issue 32), as a real process against a real S3 server (s3rver on
 * 127.0.0.1): the book files it publishes at start-up, the samples and a buyer's stamped copy (ranges too) all
 * live in the bucket under STORAGE_URL's prefix, and nothing is written to DATA_DIR/files.
 */
let s3: TestS3
let started: Awaited<ReturnType<typeof startStoreWithAdmin>>
const buyerEmail = `s3-buyer-${Date.now()}@example.com`

beforeAll(async () => {
  s3 = await startTestS3('codebook')
  started = await startStoreWithAdmin(
    {
      STORAGE_URL: 's3://codebook/shop',
      S3_ENDPOINT: s3.endpoint,
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    },
    async (db) => {
      await seedCatalog(db)
      const [book] = await db.select({ id: books.id }).from(books).where(eq(books.slug, 'django-framework'))
      await createBuyer(db, [book!.id], { email: buyerEmail })
    },
  )
}, 120_000)
afterAll(async () => {
  await started?.store.stop()
  await s3?.stop()
})

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }))
  return (listed.Contents ?? []).map((object) => object.Key!)
}

test('the book files are published to the bucket, and samples are served from it, ranges too', async () => {
  const { store } = started
  expect(await keysUnder('shop/books/django-framework/')).toEqual(
    expect.arrayContaining([
      'shop/books/django-framework/django-framework.pdf',
      'shop/books/django-framework/django-framework.epub',
      'shop/books/django-framework/django-framework-sample.pdf',
    ]),
  )
  const whole = await fetch(`${store.url}/books/django-framework/sample.pdf`)
  expect(whole.status).toBe(200)
  const pdf = new Uint8Array(await whole.arrayBuffer())
  expect(new TextDecoder().decode(pdf.slice(0, 5))).toBe('%PDF-')
  const part = await fetch(`${store.url}/books/django-framework/sample.pdf`, {
    headers: { Range: 'bytes=0-99' },
  })
  expect(part.status).toBe(206)
  expect(part.headers.get('Content-Range')).toBe(`bytes 0-99/${pdf.length}`)
  expect(new Uint8Array(await part.arrayBuffer())).toEqual(pdf.slice(0, 100))
  expect(fs.existsSync(path.join(store.dataDir, 'files'))).toBe(false)
})

test('a buyer’s stamped copy is made once, kept in the bucket, and downloaded from it', async () => {
  const { store } = started
  const cookie = await cookieFromForm(
    store.url,
    '/login',
    new URLSearchParams({ email: buyerEmail, password: testPassword }),
  )
  const download = await fetch(`${store.url}/library/django-framework/download.pdf`, {
    headers: { Cookie: cookie },
  })
  expect(download.status).toBe(200)
  expect(download.headers.get('Content-Type')).toBe('application/pdf')
  const body = new Uint8Array(await download.arrayBuffer())
  expect(new TextDecoder().decode(body.slice(0, 5))).toBe('%PDF-')
  const stamped = await keysUnder('shop/stamped/')
  expect(stamped.length).toBeGreaterThan(0)
  expect(fs.existsSync(path.join(store.dataDir, 'files'))).toBe(false)
})

test('the object store stopped: files answer 503 with Retry-After, pages stay 200; it recovers by itself', async () => {
  const { store } = started
  await s3.pause()
  try {
    const sample = await fetch(`${store.url}/books/django-framework/sample.pdf`)
    expect(sample.status).toBe(503)
    expect(Number(sample.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect(await sample.text()).toMatch(/cannot reach our file store/)
    for (const page of ['/', '/AllBooks', '/books/django-framework']) {
      expect((await fetch(`${store.url}${page}`)).status, page).toBe(200)
    }
    expect((await fetch(`${store.url}/readyz`)).status).toBe(200)
  } finally {
    await s3.resume()
  }
  // Nothing to restart: the next request finds the store again.
  await expect
    .poll(async () => (await fetch(`${store.url}/books/django-framework/sample.pdf`)).status)
    .toBe(200)
})
