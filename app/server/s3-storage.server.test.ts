import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestS3, type TestS3 } from '#harness/s3-server.ts'
import { createS3Storage } from './s3-storage.server.ts'
import { parseStorageUrl } from './storage-url.ts'
import { StorageKeyError } from './storage.server.ts'

/** The S3 back end against a real S3-compatible server (s3rver on 127.0.0.1): the folder's contract, call for call. */
let s3: TestS3
beforeAll(async () => {
  s3 = await startTestS3()
})
afterAll(async () => {
  await s3?.stop()
})

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (data: Uint8Array | null) => (data ? new TextDecoder().decode(data) : null)
const readAll = async (stream: ReadableStream<Uint8Array>) =>
  new TextDecoder().decode(await new Response(stream).arrayBuffer())
let nextPrefix = 1
const storage = () => createS3Storage(s3.client, { bucket: s3.bucket, prefix: `test-${nextPrefix++}/` })

describe('STORAGE_URL', () => {
  test.each([
    ['s3://books', { bucket: 'books', prefix: '' }],
    ['s3://books/', { bucket: 'books', prefix: '' }],
    ['s3://my-store.files/codebook/prod', { bucket: 'my-store.files', prefix: 'codebook/prod/' }],
  ])('%s names a bucket and a prefix', (url, location) => {
    expect(parseStorageUrl(url)).toEqual(location)
  })
  test.each([['books'], ['s3://'], ['s3://Books'], ['https://books'], ['s3://b'], ['s3://books/../x']])(
    '%s is refused with a message naming the variable',
    (url) => {
      expect(() => parseStorageUrl(url)).toThrow(/STORAGE_URL/)
    },
  )
})

test.each([['../x'], ['/etc/passwd'], ['a//b'], ['Books/x.pdf'], ['.hidden'], ['']])(
  'the key %j is refused by every call before the store is asked',
  async (key) => {
    const files = storage()
    await expect(files.put(key, bytes('evil'))).rejects.toThrow(StorageKeyError)
    await expect(files.read(key)).rejects.toThrow(StorageKeyError)
    await expect(files.stat(key)).rejects.toThrow(StorageKeyError)
    await expect(files.createReadStream(key)).rejects.toThrow(StorageKeyError)
    await expect(files.delete(key)).rejects.toThrow(StorageKeyError)
  },
)

test('a file round-trips through put, stat, read and a stream (whole and ranged), and delete removes it', async () => {
  const files = storage()
  const key = 'books/django-framework/django-framework.pdf'
  expect(await files.stat(key)).toBeNull()
  expect(await files.read(key)).toBeNull()
  expect(await files.createReadStream(key)).toBeNull()

  await files.put(key, bytes('%PDF-1.7 hello'))
  expect(await files.stat(key)).toEqual({ size: 14 })
  expect(text(await files.read(key))).toBe('%PDF-1.7 hello')
  const opened = await files.createReadStream(key)
  expect(opened?.size).toBe(14)
  expect(await readAll(opened!.stream)).toBe('%PDF-1.7 hello')
  const ranged = await files.createReadStream(key, { start: 9, end: 13 })
  expect(ranged?.size).toBe(14)
  expect(await readAll(ranged!.stream)).toBe('hello')
  await expect(files.createReadStream(key, { start: 10, end: 14 })).rejects.toThrow(RangeError)
  await expect(files.createReadStream(key, { start: 20, end: 30 })).rejects.toThrow(RangeError)

  await files.delete(key)
  expect(await files.stat(key)).toBeNull()
  await files.delete(key)
})

test('an empty file is a file', async () => {
  const files = storage()
  await files.put('covers/empty.txt', new Uint8Array())
  expect(await files.stat('covers/empty.txt')).toEqual({ size: 0 })
  expect(await files.read('covers/empty.txt')).toEqual(new Uint8Array())
})

test('keys live under the prefix: two stores on one bucket do not see each other', async () => {
  const [a, b] = [storage(), storage()]
  await a.put('books/x/x.pdf', bytes('a'))
  expect(await b.stat('books/x/x.pdf')).toBeNull()
  expect(text(await a.read('books/x/x.pdf'))).toBe('a')
})

/**
 * S3, R2 and MinIO make an upload visible only once complete, so an overwrite is atomic there; the test double
 * keeps that contract too (s3rver alone rewrites its file in place: harness/s3-server.ts). What must hold is
 * that the bytes a read returns are one version, whole — never a mix or a truncation.
 */
test('an overwrite never serves a mixed or a truncated file', async () => {
  const files = storage()
  const key = 'books/big/big.epub'
  const size = 1024 * 1024
  const versionA = new Uint8Array(size).fill(0x61)
  const versionB = new Uint8Array(size).fill(0x62)
  await files.put(key, versionA)
  const seen = new Set<string>()
  let writing = true
  let failed = 0
  const readWhole = async () => {
    const opened = await files.createReadStream(key)
    return new Uint8Array(await new Response(opened!.stream).arrayBuffer())
  }
  const readers = (async () => {
    while (writing) {
      for (const read of [() => files.read(key).then((data) => data!), readWhole]) {
        const content = await read().catch(() => null)
        if (!content) {
          failed++
          continue
        }
        expect(content.length).toBe(size)
        const first = content[0]!
        expect(content.every((byte) => byte === first)).toBe(true)
        seen.add(String.fromCharCode(first))
      }
    }
  })()
  for (let i = 0; i < 10; i++) await files.put(key, i % 2 === 0 ? versionB : versionA)
  writing = false
  await readers
  expect(seen.size, `${failed} reads met a write in flight`).toBeGreaterThan(0)
  // Once the writes are done, every read answers, with the last version.
  expect(text(await files.read(key))?.slice(0, 1)).toBe('a')
  expect((await readWhole())[0]).toBe(0x61)
})

test('a call that could not reach the store keeps ping failing for a moment, though the store answers again', async () => {
  const files = storage()
  await files.put('books/a/a.pdf', bytes('%PDF-1.7 a'))
  // A missing file is an answer, not an outage.
  expect(await files.read('books/a/missing.pdf')).toBeNull()
  await expect(files.ping!()).resolves.toBeUndefined()
  await s3.pause()
  try {
    await expect(files.read('books/a/a.pdf')).rejects.toThrow()
  } finally {
    await s3.resume()
  }
  // The host's probe asks right after the failure: still down, although a connection would now succeed.
  await expect(files.ping!()).rejects.toThrow()
  await new Promise((resolve) => setTimeout(resolve, 1_100))
  await expect(files.ping!()).resolves.toBeUndefined()
  expect(text(await files.read('books/a/a.pdf'))).toBe('%PDF-1.7 a')
})

test('a store that does not answer is an error, not a hang', async () => {
  const { createS3Client } = await import('./s3-storage.server.ts')
  // Nothing listens on port 9 of 127.0.0.1 here: the connection is refused at once.
  const client = createS3Client({
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  })
  const files = createS3Storage(client, { bucket: 'nowhere', prefix: '' })
  const started = Date.now()
  await expect(files.read('books/a/a.pdf')).rejects.toThrow()
  expect(Date.now() - started).toBeLessThan(10_000)
  client.destroy()
})
