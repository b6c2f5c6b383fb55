import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { ReadableStream as NodeReadableStream } from 'node:stream/web'
import type { FileStorage } from '#app/server/storage.server.ts'

/**
 * The store's files in a backup (issue 32): every file of the configured FileStorage — the folder DATA_DIR/files
 * or the bucket of STORAGE_URL — but the buyers' stamped copies (a cache, stamped again on the next download),
 * copied into the backup's `files/` folder under its key, with each file's size and SHA-256 in the manifest.
 * Restored through the configured FileStorage, whichever it is: a folder's backup restores into a bucket and
 * the other way round.
 */
export const FILES_FOLDER = 'files'

export type BackedUpFile = { bytes: number; sha256: string }

/** Not in a backup: a cache. */
const NOT_BACKED_UP = ['stamped/']
/** Files copied at once: an object store answers each request in a few milliseconds, a folder at once. */
const CONCURRENCY = 4

export const isBackedUp = (key: string) => !NOT_BACKED_UP.some((prefix) => key.startsWith(prefix))

/** Where a key's copy lives in a backup folder. */
function fileInBackup(backupDir: string, key: string): string {
  return path.join(backupDir, FILES_FOLDER, ...key.split('/'))
}

/**
 * Copies the files named by `keys` from the storage into the backup, streamed and hashed on the way; a file gone
 * since it was listed (deleted meanwhile) is left out. Returns what it copied.
 */
export async function copyFilesOut(
  storage: FileStorage,
  backupDir: string,
  keys: Iterable<string>,
): Promise<Map<string, BackedUpFile>> {
  const copied = new Map<string, BackedUpFile>()
  await eachAtMost(CONCURRENCY, [...keys], async (key) => {
    const opened = await storage.createReadStream(key)
    if (!opened) return
    const target = fileInBackup(backupDir, key)
    await fsp.mkdir(path.dirname(target), { recursive: true })
    const hash = createHash('sha256')
    let bytes = 0
    await pipeline(
      Readable.fromWeb(opened.stream as NodeReadableStream<Uint8Array>),
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk)
          bytes += chunk.length
          done(null, chunk)
        },
      }),
      fs.createWriteStream(target, { flags: 'wx' }),
    )
    copied.set(key, { bytes, sha256: hash.digest('hex') })
  })
  return copied
}

/** Every key in the storage a backup copies (all but the stamped copies). */
export async function listBackedUpKeys(storage: FileStorage): Promise<string[]> {
  const keys: string[] = []
  for await (const file of storage.list('')) if (isBackedUp(file.key)) keys.push(file.key)
  return keys
}

/**
 * Reads every file the manifest lists from the backup and checks its size and SHA-256, before anything of the
 * store is touched. Throws naming the first files that differ or are missing.
 */
export async function verifyBackedUpFiles(
  backupDir: string,
  files: Record<string, BackedUpFile>,
): Promise<void> {
  const problems: string[] = []
  await eachAtMost(CONCURRENCY, Object.entries(files), async ([key, expected]) => {
    const problem = checkFile(await readIfThere(fileInBackup(backupDir, key)), expected)
    if (problem) problems.push(`${key}: ${problem}`)
  })
  if (problems.length > 0)
    throw new Error(
      `the backup's files are damaged, nothing was restored: ${problems.length} of ${Object.keys(files).length} do not match the manifest (${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''})`,
    )
}

/**
 * Puts the backup's files into the storage, each checked again as it is read, then lists the storage to see each
 * one there with its size. Puts only: a file the storage has and the backup has not stays (the sweep of old files
 * removes it once no row names it).
 */
export async function putFilesBack(
  storage: FileStorage,
  backupDir: string,
  files: Record<string, BackedUpFile>,
): Promise<void> {
  await eachAtMost(CONCURRENCY, Object.entries(files), async ([key, expected]) => {
    const bytes = await readIfThere(fileInBackup(backupDir, key))
    const problem = checkFile(bytes, expected)
    if (problem || !bytes)
      throw new Error(`the backup's file ${key} changed while it was restored: ${problem}`)
    await storage.put(key, bytes)
  })
  const stored = new Map<string, number>()
  for await (const file of storage.list('')) stored.set(file.key, file.size)
  const absent = Object.entries(files).filter(([key, { bytes }]) => stored.get(key) !== bytes)
  if (absent.length > 0)
    throw new Error(
      `${absent.length} files were put but are not in the storage with their size: ${absent
        .slice(0, 5)
        .map(([key]) => key)
        .join(', ')}`,
    )
}

/** A backup's files of a format-1 backup (extracted from its data-folder archive), read from a folder. */
export async function hashFolderFiles(
  source: FileStorage,
  keys: string[],
): Promise<Record<string, BackedUpFile>> {
  const files: Record<string, BackedUpFile> = {}
  for (const key of keys) {
    const bytes = await source.read(key)
    if (bytes) files[key] = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
  }
  return files
}

function checkFile(bytes: Uint8Array | null, expected: BackedUpFile): string | null {
  if (!bytes) return 'missing from the backup'
  if (bytes.length !== expected.bytes) return `${bytes.length} bytes, the manifest says ${expected.bytes}`
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  return sha256 === expected.sha256 ? null : 'its SHA-256 differs from the manifest'
}

async function readIfThere(file: string): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await fsp.readFile(file))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/** Runs `work` on every item, at most `limit` at a time; the first failure rejects (the others finish first). */
async function eachAtMost<T>(limit: number, items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const errors: unknown[] = []
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length && errors.length === 0) {
        const item = items[next++]!
        await work(item).catch((error: unknown) => void errors.push(error))
      }
    }),
  )
  if (errors.length > 0) throw errors[0]
}
