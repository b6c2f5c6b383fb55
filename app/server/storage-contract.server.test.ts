import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestS3, type TestS3 } from '#harness/s3-server.ts'
import { createS3Storage } from './s3-storage.server.ts'
import { createLocalStorage, StorageKeyError, type FileStorage } from './storage.server.ts'

/**
 * What both back ends promise, run on each (issue 32): the folder and a bucket on a real S3-compatible server.
 * The calls each back end has its own reasons to test (the folder's atomic rename, S3's outage) stay in
 * storage.server.test.ts and s3-storage.server.test.ts.
 */
let s3: TestS3
const folders: string[] = []
beforeAll(async () => {
  s3 = await startTestS3('codebook-contract')
})
afterAll(async () => {
  await s3?.stop()
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true })
})

let next = 1
const backEnds: [string, () => FileStorage][] = [
  [
    'folder',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-contract-'))
      folders.push(dir)
      return createLocalStorage(path.join(dir, 'files'))
    },
  ],
  ['s3', () => createS3Storage(s3.client, { bucket: s3.bucket, prefix: `contract-${next++}/` })],
]

const bytes = (text: string) => new TextEncoder().encode(text)
async function listed(storage: FileStorage, prefix: string) {
  const found: { key: string; size: number }[] = []
  for await (const file of storage.list(prefix)) {
    expect(file.modifiedAt).toBeInstanceOf(Date)
    expect(Math.abs(file.modifiedAt.getTime() - Date.now())).toBeLessThan(60_000)
    found.push({ key: file.key, size: file.size })
  }
  // In no promised order (S3 lists by byte order; s3rver and the folder need not).
  return found.sort((a, b) => (a.key < b.key ? -1 : 1))
}

describe.each(backEnds)('%s', (_name, make) => {
  test('list names every file under a prefix with its size; nothing else', async () => {
    const storage = make()
    expect(await listed(storage, '')).toEqual([])
    const keys = [
      'stamped/b/x.pdf',
      'stamped/a-b.epub',
      'stamped/a/y.epub',
      'stamped/a0.pdf',
      'covers/c.avif',
    ]
    for (const key of keys) await storage.put(key, bytes(key))
    expect(await listed(storage, 'stamped/')).toEqual(
      ['stamped/a-b.epub', 'stamped/a/y.epub', 'stamped/a0.pdf', 'stamped/b/x.pdf'].sort().map((key) => ({
        key,
        size: key.length,
      })),
    )
    expect((await listed(storage, '')).map((file) => file.key)).toEqual([...keys].sort())
    expect(await listed(storage, 'stamped/a/')).toEqual([{ key: 'stamped/a/y.epub', size: 16 }])
    expect(await listed(storage, 'nothing/')).toEqual([])
    await storage.delete('stamped/a/y.epub')
    expect((await listed(storage, 'stamped/')).map((file) => file.key)).not.toContain('stamped/a/y.epub')
  })

  test('a listing pages through more files than one answer holds', async () => {
    const storage = make()
    // S3 answers at most 1,000 keys a page: 1,005 files take two.
    const keys = Array.from({ length: 1005 }, (_, index) => `many/${String(index).padStart(4, '0')}.txt`)
    for (let start = 0; start < keys.length; start += 10)
      await Promise.all(keys.slice(start, start + 10).map((key) => storage.put(key, bytes('x'))))
    expect((await listed(storage, 'many/')).map((file) => file.key)).toEqual(keys)
  }, 60_000)

  test.each([['stamped'], ['/stamped/'], ['../'], ['Stamped/'], ['a//']])(
    'the prefix %j is refused',
    async (prefix) => {
      const storage = make()
      await expect(listed(storage, prefix)).rejects.toThrow(StorageKeyError)
    },
  )

  test('a file round-trips, an overwrite replaces it whole, and delete is idempotent', async () => {
    const storage = make()
    await storage.put('editions/1/2/book.pdf', bytes('first version'))
    await storage.put('editions/1/2/book.pdf', bytes('second'))
    expect(await storage.stat('editions/1/2/book.pdf')).toEqual({ size: 6 })
    expect(new TextDecoder().decode((await storage.read('editions/1/2/book.pdf'))!)).toBe('second')
    const ranged = await storage.createReadStream('editions/1/2/book.pdf', { start: 1, end: 3 })
    expect(ranged?.size).toBe(6)
    expect(new TextDecoder().decode(await new Response(ranged!.stream).arrayBuffer())).toBe('eco')
    await storage.delete('editions/1/2/book.pdf')
    await storage.delete('editions/1/2/book.pdf')
    expect(await storage.read('editions/1/2/book.pdf')).toBeNull()
  })
})
