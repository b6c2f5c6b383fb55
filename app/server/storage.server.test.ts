import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { createLocalStorage, StorageKeyError } from './storage.server.ts'

const dirs: string[] = []
function tempStorage() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-storage-'))
  dirs.push(dir)
  const root = path.join(dir, 'files')
  return { dir, root, storage: createLocalStorage(root) }
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (data: Uint8Array | null) => (data ? new TextDecoder().decode(data) : null)

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new TextDecoder().decode(await new Response(stream).arrayBuffer())
}

test.each([
  ['../x'],
  ['a/../../x'],
  ['books/..'],
  ['/etc/passwd'],
  ['%2e%2e/x'],
  ['a\\b'],
  ['..\\x'],
  ['a//b'],
  ['a/'],
  ['/'],
  [''],
  ['a\0b'],
  ['Books/x.pdf'],
  ['books/X.pdf'],
  ['./x'],
  ['.hidden'],
  ['books/ x'],
  ['C:/x'],
])('the key %j is refused by every call, and nothing outside the folder is touched', async (key) => {
  const { dir, root, storage } = tempStorage()
  fs.writeFileSync(path.join(dir, 'x'), 'outside')
  await expect(storage.put(key, bytes('evil'))).rejects.toThrow(StorageKeyError)
  await expect(storage.read(key)).rejects.toThrow(StorageKeyError)
  await expect(storage.stat(key)).rejects.toThrow(StorageKeyError)
  await expect(storage.createReadStream(key)).rejects.toThrow(StorageKeyError)
  await expect(storage.delete(key)).rejects.toThrow(StorageKeyError)
  expect(fs.readFileSync(path.join(dir, 'x'), 'utf8')).toBe('outside')
  expect(fs.existsSync(root)).toBe(false)
})

test('a file round-trips through put, stat, read and a stream, and delete removes it', async () => {
  const { root, storage } = tempStorage()
  const key = 'books/django-framework/django-framework.pdf'
  expect(await storage.stat(key)).toBeNull()
  expect(await storage.read(key)).toBeNull()
  expect(await storage.createReadStream(key)).toBeNull()

  await storage.put(key, bytes('%PDF-1.7 hello'))
  expect(fs.readFileSync(path.join(root, 'books', 'django-framework', 'django-framework.pdf'), 'utf8')).toBe(
    '%PDF-1.7 hello',
  )
  expect(await storage.stat(key)).toEqual({ size: 14 })
  expect(text(await storage.read(key))).toBe('%PDF-1.7 hello')
  const opened = await storage.createReadStream(key)
  expect(opened?.size).toBe(14)
  expect(await readAll(opened!.stream)).toBe('%PDF-1.7 hello')
  const ranged = await storage.createReadStream(key, { start: 9, end: 13 })
  expect(ranged?.size).toBe(14)
  expect(await readAll(ranged!.stream)).toBe('hello')
  await expect(storage.createReadStream(key, { start: 10, end: 14 })).rejects.toThrow(RangeError)

  await storage.delete(key)
  expect(await storage.stat(key)).toBeNull()
  await storage.delete(key)
})

test('a folder is not a file', async () => {
  const { storage } = tempStorage()
  await storage.put('books/a/a.pdf', bytes('x'))
  expect(await storage.stat('books/a')).toBeNull()
  expect(await storage.read('books/a')).toBeNull()
  expect(await storage.createReadStream('books/a')).toBeNull()
})

test('an overwrite is atomic: readers see the old or the new file whole, and no temporary file is left', async () => {
  const { root, storage } = tempStorage()
  const key = 'books/big/big.epub'
  const size = 4 * 1024 * 1024
  const versionA = new Uint8Array(size).fill(0x61)
  const versionB = new Uint8Array(size).fill(0x62)
  await storage.put(key, versionA)

  const seen = new Set<string>()
  let writing = true
  const readers = (async () => {
    while (writing) {
      const [data, opened] = await Promise.all([storage.read(key), storage.createReadStream(key)])
      for (const content of [data!, new Uint8Array(await new Response(opened!.stream).arrayBuffer())]) {
        expect(content.length).toBe(size)
        const first = content[0]!
        expect(content.every((byte) => byte === first)).toBe(true)
        seen.add(String.fromCharCode(first))
      }
    }
  })()
  for (let i = 0; i < 20; i++) await storage.put(key, i % 2 === 0 ? versionB : versionA)
  writing = false
  await readers

  expect(seen.size).toBeGreaterThan(0)
  expect(text(await storage.read(key))?.slice(0, 1)).toBe('a')
  expect(fs.readdirSync(path.join(root, 'books', 'big'))).toEqual(['big.epub'])
})

test('a failed write leaves the previous file and no temporary file behind', async () => {
  const { root, storage } = tempStorage()
  await storage.put('books/a/a.pdf', bytes('old'))
  // A folder where the file should go makes the rename fail after the temporary file was written.
  fs.mkdirSync(path.join(root, 'books', 'a', 'b.pdf'))
  await expect(storage.put('books/a/b.pdf', bytes('new'))).rejects.toMatchObject({ code: 'EISDIR' })
  expect(fs.readdirSync(path.join(root, 'books', 'a')).sort()).toEqual(['a.pdf', 'b.pdf'])
  expect(text(await storage.read('books/a/a.pdf'))).toBe('old')
})
