import { createHash } from 'node:crypto'
import type { Db } from '#app/server/db/database.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { hitRateLimit, type RateLimitRule } from '#app/server/rate-limit.server.ts'
import type { FileStorage, StoredFileStream } from '#app/server/storage.server.ts'
import { stampEpub, stampPdf } from './editions/stamp.server.ts'
import {
  getBookFile,
  getOwnership,
  recordDownload,
  type BookFile,
  type PurchasedFormat,
} from './library.server.ts'

/** More than 50 downloads of one book by one account in a day looks like a copy being shared. */
export const dailyDownloadLimit: RateLimitRule = {
  name: 'downloads',
  limit: 50,
  windowMs: 24 * 60 * 60 * 1000,
}

export const contentTypes = {
  pdf: 'application/pdf',
  epub: 'application/epub+zip',
} as const satisfies Record<PurchasedFormat, string>

export type DownloadFile = StoredFileStream & { fileName: string; contentType: string }

export type DownloadResult =
  | ({ ok: true; cached: boolean } & DownloadFile)
  | { ok: false; status: 403 | 404; message: string }
  | { ok: false; status: 429; message: string; retryAfterSeconds: number }

/**
 * A buyer's copy of a book they own, stamped with their email and order number (social DRM). Stamped copies
 * are kept in storage under the buyer, the stamp and the file's version (its sha256), so a repeat download is
 * a file read and a new edition is stamped afresh. Every download counts towards the library's 'downloaded N
 * times' and the daily limit.
 */
export async function prepareDownload(
  db: Db,
  storage: FileStorage,
  request: { userId: string; email: string; slug: string; format: PurchasedFormat },
  logger: Logger,
): Promise<DownloadResult> {
  const allowed = await checkDownload(db, request)
  if (!allowed.ok) return allowed
  const { file, ownership } = allowed

  const limit = await hitRateLimit(db, dailyDownloadLimit, `${request.userId}:${file.bookId}`)
  if (!limit.allowed) {
    const hours = Math.max(1, Math.ceil(limit.retryAfterSeconds / 3600))
    return {
      ok: false,
      status: 429,
      message: `You have downloaded this eBook ${dailyDownloadLimit.limit} times today, the daily limit. You can download it again in ${hours} ${hours === 1 ? 'hour' : 'hours'}.`,
      retryAfterSeconds: limit.retryAfterSeconds,
    }
  }

  const stamp = { email: request.email, orderNumber: ownership.orderNumber }
  const key = stampedCopyKey(request.userId, stamp, file)
  let cached = true
  let opened = await storage.createReadStream(key)
  if (!opened) {
    cached = false
    const source = await storage.read(file.storageKey)
    if (!source) {
      logger.error(
        { storageKey: file.storageKey },
        'a book file listed in the database is missing from storage',
      )
      throw new Error(`missing book file ${file.storageKey}`)
    }
    const stamped = request.format === 'pdf' ? await stampPdf(source, stamp) : await stampEpub(source, stamp)
    await storage.put(key, stamped)
    opened = await storage.createReadStream(key)
    if (!opened) throw new Error(`the stamped copy ${key} vanished after it was written`)
  }
  await recordDownload(db, request.userId, file.bookId)
  return {
    ok: true,
    cached,
    ...opened,
    fileName: `${file.slug}.${request.format}`,
    contentType: contentTypes[request.format],
  }
}

/**
 * Whether the reader may download this file, without downloading it (nothing is stamped or counted): for
 * a HEAD request, which download managers send before the real one.
 */
export async function checkDownload(
  db: Db,
  request: { userId: string; slug: string; format: PurchasedFormat },
): Promise<
  | {
      ok: true
      file: BookFile & { bookId: string; slug: string }
      ownership: { orderNumber: number }
      fileName: string
      contentType: string
    }
  | { ok: false; status: 403 | 404; message: string }
> {
  const file = await getBookFile(db, request.slug, request.format)
  if (!file) return { ok: false, status: 404, message: 'There is no such eBook.' }
  const ownership = await getOwnership(db, request.userId, file.bookId)
  if (!ownership) return { ok: false, status: 403, message: 'Only the buyer of this eBook can download it.' }
  return {
    ok: true,
    file,
    ownership,
    fileName: `${file.slug}.${request.format}`,
    contentType: contentTypes[request.format],
  }
}

/** The free sample (the first chapter, PDF): anyone may have it, unstamped. */
export async function openSample(
  db: Db,
  storage: FileStorage,
  slug: string,
): Promise<(DownloadFile & { sha256: string }) | null> {
  const file = await getBookFile(db, slug, 'sample')
  if (!file) return null
  const opened = await storage.createReadStream(file.storageKey)
  if (!opened) return null
  return {
    ...opened,
    fileName: `${file.slug}-sample.pdf`,
    contentType: 'application/pdf',
    sha256: file.sha256,
  }
}

/**
 * `stamped/<who>/<slug>-<version>.<ext>`: `who` hashes the buyer with the stamp's contents (a changed email
 * makes a new copy) and keeps account ids, which may hold upper case, out of the key.
 */
function stampedCopyKey(
  userId: string,
  stamp: { email: string; orderNumber: number },
  file: BookFile & { slug: string },
): string {
  const who = createHash('sha256')
    .update(JSON.stringify([userId, stamp.email, stamp.orderNumber]))
    .digest('hex')
    .slice(0, 32)
  const extension = file.format === 'epub' ? 'epub' : 'pdf'
  return `stamped/${who}/${file.slug}-${file.sha256.slice(0, 16)}.${extension}`
}
