import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'

/**
 * Where the store keeps files: the books' editions (`books/<slug>/…` for the seed's, `editions/<book id>/<n>/…`
 * for those published in the back office), uploaded covers (`covers/…`) and buyers' stamped copies
 * (`stamped/…`). The local folder is the default; an S3-compatible bucket implements the same calls
 * (s3-storage.server.ts), `list` being what backups and the sweep of old files walk.
 */
export type FileStorage = {
  /** Stores the bytes under the key, replacing any previous file atomically. */
  put(key: string, bytes: Uint8Array): Promise<void>
  /** The size of the file, or null when there is none. */
  stat(key: string): Promise<{ size: number } | null>
  read(key: string): Promise<Uint8Array | null>
  /**
   * A stream of the file (or of the inclusive byte range), opened before its size is read so that a concurrent
   * `put` cannot mix two versions; null when there is no such file.
   */
  createReadStream(key: string, range?: ByteRange): Promise<StoredFileStream | null>
  /** Removes the file; removing a missing file is not an error. */
  delete(key: string): Promise<void>
  /**
   * Every file whose key starts with the prefix (`''` for all, else segments ending in `/`), in no promised
   * order, with its size and last write: what a backup copies and the sweep of old files walks. Temporary files are not
   * listed.
   */
  list(prefix: string): AsyncIterable<StoredFileInfo>
  /**
   * Resolves when the store answers (an object store's bucket), throws when it cannot be reached: a failed
   * request is then answered 503 to try again (server/unavailable.ts). A folder has none.
   */
  ping?(): Promise<void>
  /**
   * A URL that lets whoever holds it GET the file (and its ranges) straight from the object store for
   * `expiresInSeconds`, saved under `fileName` as `contentType`. Only an object store has one; the store uses it
   * when DOWNLOAD_DELIVERY=redirect (decision 034).
   */
  signedUrl?(
    key: string,
    options: { expiresInSeconds: number; fileName: string; contentType: string },
  ): Promise<string>
}

export type StoredFileInfo = { key: string; size: number; modifiedAt: Date }

/** Inclusive byte offsets, as in an HTTP `Range: bytes=start-end` header. */
export type ByteRange = { start: number; end: number }

export type StoredFileStream = {
  stream: ReadableStream<Uint8Array>
  /** The size of the whole file (not of the range). */
  size: number
}

export class StorageKeyError extends Error {
  override name = 'StorageKeyError'
}

const segmentPattern = /^[a-z0-9][a-z0-9._-]*$/
const maxKeyLength = 512

/**
 * Throws StorageKeyError unless the key is lower-case segments joined by `/`. Temporary files start with a dot,
 * so no key can name one; `..` is refused anywhere, even inside a segment, to keep the rule easy to audit.
 */
export function assertValidStorageKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > maxKeyLength) {
    throw new StorageKeyError(
      `Invalid storage key ${JSON.stringify(key)}: expected 1–${maxKeyLength} characters`,
    )
  }
  if (key.includes('..'))
    throw new StorageKeyError(`Invalid storage key ${JSON.stringify(key)}: '..' is not allowed`)
  for (const segment of key.split('/')) {
    if (!segmentPattern.test(segment)) {
      throw new StorageKeyError(
        `Invalid storage key ${JSON.stringify(key)}: each '/'-separated part must match ${segmentPattern}`,
      )
    }
  }
}

/** Throws StorageKeyError unless the prefix is '' or whole key segments followed by `/`. */
export function assertValidStoragePrefix(prefix: string): void {
  if (prefix === '') return
  if (typeof prefix !== 'string' || !prefix.endsWith('/'))
    throw new StorageKeyError(`Invalid storage prefix ${JSON.stringify(prefix)}: expected '' or 'a/b/'`)
  assertValidStorageKey(prefix.slice(0, -1))
}

/** A FileStorage over a local folder (by default `DATA_DIR/files`), created on the first write. */
export function createLocalStorage(rootDir: string): FileStorage {
  const root = path.resolve(rootDir)

  function resolveKey(key: string): string {
    assertValidStorageKey(key)
    const resolved = path.resolve(root, ...key.split('/'))
    // Defence in depth: the key rules already keep paths inside the root.
    if (!resolved.startsWith(root + path.sep)) {
      throw new StorageKeyError(
        `Invalid storage key ${JSON.stringify(key)}: resolves outside the storage folder`,
      )
    }
    return resolved
  }

  return {
    async put(key, bytes) {
      const target = resolveKey(key)
      const dir = path.dirname(target)
      await fsp.mkdir(dir, { recursive: true })
      // Written beside the target and renamed over it: a reader sees the old file or the new one, never half.
      const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`)
      try {
        const handle = await fsp.open(temp, 'wx')
        try {
          await handle.writeFile(bytes)
          await handle.sync()
        } finally {
          await handle.close()
        }
        await fsp.rename(temp, target)
      } catch (error) {
        await fsp.rm(temp, { force: true })
        throw error
      }
    },

    async stat(key) {
      const target = resolveKey(key)
      try {
        const stats = await fsp.stat(target)
        return stats.isFile() ? { size: stats.size } : null
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },

    async read(key) {
      const target = resolveKey(key)
      try {
        const buffer = await fsp.readFile(target)
        return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },

    async createReadStream(key, range) {
      const target = resolveKey(key)
      let handle: fsp.FileHandle
      try {
        handle = await fsp.open(target, 'r')
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
      try {
        const stats = await handle.stat()
        if (!stats.isFile()) {
          await handle.close()
          return null
        }
        if (range && !(range.start >= 0 && range.start <= range.end && range.end < stats.size)) {
          throw new RangeError(
            `Byte range ${range.start}-${range.end} is outside a file of ${stats.size} bytes`,
          )
        }
        const nodeStream = fs.createReadStream('', {
          fd: handle,
          autoClose: true,
          ...(range ? { start: range.start, end: range.end } : {}),
        })
        return { stream: Readable.toWeb(nodeStream) as ReadableStream<Uint8Array>, size: stats.size }
      } catch (error) {
        await handle.close()
        throw error
      }
    },

    async delete(key) {
      const target = resolveKey(key)
      await fsp.rm(target, { force: true })
    },

    async *list(prefix) {
      assertValidStoragePrefix(prefix)
      yield* walk(prefix === '' ? root : path.join(root, ...prefix.slice(0, -1).split('/')), prefix)
    },
  }
}

/** The files under a folder, depth first; names that are not keys (temporary files) skipped. */
async function* walk(dir: string, keyPrefix: string): AsyncGenerator<StoredFileInfo> {
  let entries: fs.Dirent[]
  try {
    entries = await fsp.readdir(dir, { withFileTypes: true })
  } catch (error) {
    if (isMissing(error)) return
    throw error
  }
  for (const entry of entries) {
    if (!segmentPattern.test(entry.name) || entry.name.includes('..')) continue
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      yield* walk(full, `${keyPrefix}${entry.name}/`)
    } else if (entry.isFile()) {
      try {
        const stats = await fsp.stat(full)
        yield { key: `${keyPrefix}${entry.name}`, size: stats.size, modifiedAt: stats.mtime }
      } catch (error) {
        // Deleted between the listing and the stat: not there any more.
        if (!isMissing(error)) throw error
      }
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR'
}
