import { createHash } from 'node:crypto'
import type { Db } from '#app/server/db/database.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import {
  hitRateLimit,
  peekRateLimit,
  type RateLimitRule,
  type RateLimitState,
} from '#app/server/rate-limit.server.ts'
import type { FileStorage, StoredFileStream } from '#app/server/storage.server.ts'
import { renderListedEdition } from './editions.server.ts'
import { stampEpub, stampFormatVersion, stampPdf } from './editions/stamp.server.ts'
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

type NotAllowed = { ok: false; status: 403 | 404; message: string }
type NotNow = { ok: false; status: 429 | 503; message: string; retryAfterSeconds: number }
type TooMany = NotNow & { status: 429 }
type Refusal = NotAllowed | NotNow

export type DownloadResult = ({ ok: true; cached: boolean } & DownloadFile) | Refusal

/**
 * A buyer's copy of a book they own, stamped with their email and order number (social DRM). Stamped copies
 * are kept in storage under the buyer, the stamp, the stamp's format and the file's version (its sha256), so
 * a repeat download is a file read and a new edition is stamped afresh. Every download delivered counts
 * towards the library's 'downloaded N times' and the daily limit.
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

  // Peeked first so that a refused request does no work, and counted only once a copy is ready: a download
  // that fails (500, or 503 below) does not use up one of the reader's 50.
  const subject = limitSubject(request.userId, file.bookId)
  const before = await peekRateLimit(db, dailyDownloadLimit, subject)
  if (!before.allowed) return tooManyDownloads(before.retryAfterSeconds)

  const copy = await openStampedCopy(
    db,
    storage,
    { userId: request.userId, stamp: { email: request.email, orderNumber: ownership.orderNumber }, file },
    logger,
  )
  if (!copy.ok) return copy
  let counted: RateLimitState
  try {
    counted = await hitRateLimit(db, dailyDownloadLimit, subject)
    if (counted.allowed) await recordDownload(db, request.userId, file.bookId)
  } catch (error) {
    await copy.stream.cancel()
    throw error
  }
  if (!counted.allowed) {
    // Concurrent downloads of the book used up the day's last ones between the peek and now.
    await copy.stream.cancel()
    return tooManyDownloads(counted.retryAfterSeconds)
  }
  return {
    ...copy,
    fileName: `${file.slug}.${request.format}`,
    contentType: contentTypes[request.format],
  }
}

/**
 * The cached stamped copy, or a new one stamped from the book file in storage. The file is checked against
 * the edition the database lists before it is stamped: with local storage each instance has its own files and
 * all share one database (decision 010), so during a rolling deploy an instance can still hold the previous
 * edition while the database already lists the next; stamping it would cache the old edition under the new
 * edition's key, for good.
 */
async function openStampedCopy(
  db: Db,
  storage: FileStorage,
  {
    userId,
    stamp,
    file,
  }: { userId: string; stamp: Stamp; file: BookFile & { bookId: string; slug: string } },
  logger: Logger,
): Promise<({ ok: true; cached: boolean } & StoredFileStream) | Refusal> {
  const key = stampedCopyKey(userId, stamp, file)
  const cached = await storage.createReadStream(key)
  if (cached) return { ok: true, cached: true, ...cached }

  const source = await readBookFile(db, storage, file)
  if (!source) {
    logger.error(
      { storageKey: file.storageKey },
      'a book file listed in the database is missing from storage',
    )
    throw new Error(`missing book file ${file.storageKey}`)
  }
  const sha256 = createHash('sha256').update(source).digest('hex')
  if (sha256 !== file.sha256) {
    // Re-rendering here would not help: this instance's manuscript is what made the file it has (and
    // publishing it would write its edition back over the database's).
    logger.error(
      { slug: file.slug, storageKey: file.storageKey, listedSha256: file.sha256, storedSha256: sha256 },
      'the book file in storage is not the edition the database lists: not stamped (an instance on another edition during a deploy?)',
    )
    return {
      ok: false,
      status: 503,
      message:
        'A new edition of this eBook is being put in place. Please try again in a minute; this attempt was not counted.',
      retryAfterSeconds: 60,
    }
  }
  const stamped = file.format === 'epub' ? await stampEpub(source, stamp) : await stampPdf(source, stamp)
  await storage.put(key, stamped)
  const opened = await storage.createReadStream(key)
  if (!opened) throw new Error(`the stamped copy ${key} vanished after it was written`)
  return { ok: true, cached: false, ...opened }
}

/**
 * What a HEAD request is answered: whether the reader may download the file now, and as what, without
 * stamping or counting anything (download managers send one before the real request).
 */
export async function probeDownload(
  db: Db,
  request: { userId: string; slug: string; format: PurchasedFormat },
): Promise<{ ok: true; fileName: string; contentType: string } | NotAllowed | TooMany> {
  const allowed = await checkDownload(db, request)
  if (!allowed.ok) return allowed
  const limit = await peekRateLimit(db, dailyDownloadLimit, limitSubject(request.userId, allowed.file.bookId))
  if (!limit.allowed) return tooManyDownloads(limit.retryAfterSeconds)
  return { ok: true, fileName: allowed.fileName, contentType: allowed.contentType }
}

/** Whether the book and file exist and the reader owns them. */
async function checkDownload(
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
  | NotAllowed
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

/**
 * The free sample (the first chapter, PDF): anyone may have it, unstamped. Its `sha256` (the response's ETag,
 * cached publicly) is of the bytes this instance serves, not the database's listing: an instance holding
 * another edition (decision 010) must not label its sample with the listed edition's tag. Samples are small
 * enough to read whole.
 */
export async function openSample(
  db: Db,
  storage: FileStorage,
  slug: string,
): Promise<(DownloadFile & { sha256: string }) | null> {
  const file = await getBookFile(db, slug, 'sample')
  // Drafts and archived books are out of the store: their sample too (owners keep the whole book).
  if (!file || file.status !== 'published') return null
  const bytes = await readBookFile(db, storage, file)
  if (!bytes) return null
  return {
    stream: new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes)
        controller.close()
      },
    }),
    size: bytes.length,
    fileName: `${file.slug}-sample.pdf`,
    contentType: 'application/pdf',
    sha256: createHash('sha256').update(bytes).digest('hex'),
  }
}

/**
 * A book file from storage. An edition published in the back office on another instance is not in this
 * instance's local storage yet (decision 013): it is rendered here from its manuscript in the database, once.
 */
async function readBookFile(
  db: Db,
  storage: FileStorage,
  file: { bookId: string; storageKey: string },
): Promise<Uint8Array | null> {
  const bytes = await storage.read(file.storageKey)
  if (bytes) return bytes
  if (!(await renderListedEdition(db, storage, file.bookId))) return null
  return storage.read(file.storageKey)
}

function limitSubject(userId: string, bookId: string): string {
  return `${userId}:${bookId}`
}

function tooManyDownloads(retryAfterSeconds: number): TooMany {
  const hours = Math.max(1, Math.ceil(retryAfterSeconds / 3600))
  return {
    ok: false,
    status: 429,
    message: `You have downloaded this eBook ${dailyDownloadLimit.limit} times today, the daily limit. You can download it again in ${hours} ${hours === 1 ? 'hour' : 'hours'}.`,
    retryAfterSeconds,
  }
}

type Stamp = { email: string; orderNumber: number }

/**
 * `stamped/<who>/<slug>-<edition>-s<stamp format>.<ext>`: `who` hashes the buyer with the stamp's contents (a
 * changed email makes a new copy) and keeps account ids, which may hold upper case, out of the key; the
 * edition is the book file's sha256 and the stamp format `stampFormatVersion`, so a new edition or a new
 * stamp makes a new copy.
 */
export function stampedCopyKey(
  userId: string,
  stamp: Stamp,
  file: { slug: string; format: BookFile['format']; sha256: string },
  formatVersion = stampFormatVersion,
): string {
  const who = createHash('sha256')
    .update(JSON.stringify([userId, stamp.email, stamp.orderNumber]))
    .digest('hex')
    .slice(0, 32)
  const extension = file.format === 'epub' ? 'epub' : 'pdf'
  return `stamped/${who}/${file.slug}-${file.sha256.slice(0, 16)}-s${formatVersion}.${extension}`
}
