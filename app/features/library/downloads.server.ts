import { createHash } from 'node:crypto'
import type { Db } from '#app/server/db/database.server.ts'
import { byteRangeIn, rangeStillWanted, type RangeRequest } from '#app/server/file-response.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import {
  addToWindowTotal,
  hitRateLimit,
  peekRateLimit,
  type RateLimitRule,
} from '#app/server/rate-limit.server.ts'
import type { ByteRange, FileStorage, StoredFileStream } from '#app/server/storage.server.ts'
import { renderListedEdition } from './editions.server.ts'
import { stampEpub, stampPdf } from './editions/stamp.server.ts'
import { stampedCopyKey, type Stamp } from './stamped-copies.server.ts'
import {
  getBookFile,
  getOwnership,
  recordDownload,
  type BookFile,
  type PurchasedFormat,
} from './library.server.ts'

export { stampedCopyKey } from './stamped-copies.server.ts'

/** More than 50 downloads of one book by one account in a day looks like a copy being shared. */
export const dailyDownloadLimit: RateLimitRule = {
  name: 'downloads',
  limit: 50,
  windowMs: 24 * 60 * 60 * 1000,
}

/**
 * The bytes of each file handed to each reader in parts (206) within the daily limit's window: a file's worth of
 * parts is one download (decision 010).
 */
const partsDelivered = { name: 'download-parts', windowMs: dailyDownloadLimit.windowMs }

export const contentTypes = {
  pdf: 'application/pdf',
  epub: 'application/epub+zip',
} as const satisfies Record<PurchasedFormat, string>

export type DownloadFile = StoredFileStream & { fileName: string; contentType: string }

type NotAllowed = { ok: false; status: 403 | 404; message: string }
type NotNow = { ok: false; status: 429 | 503; message: string; retryAfterSeconds: number }
type TooMany = NotNow & { status: 429 }
/** The copy is larger than the caller can take (`maxBytes`: a mail's attachment). */
type TooLarge = { ok: false; status: 413; message: string; size: number }
type Refusal = NotAllowed | NotNow | TooLarge
/** The range asked for starts past the end of the copy, `size` bytes long. */
type NotInFile = { ok: false; status: 416; size: number }

export type DownloadResult =
  | ({
      ok: true
      /** Where the stamped copy is kept: what a redirect to the object store names (DOWNLOAD_DELIVERY). */
      key: string
      cached: boolean
      /** Whether this response counted as a download (every whole copy; a part only as decision 010 says). */
      counted: boolean
      /** Names the copy's bytes: a new edition, stamp or stamp format has another. */
      etag: string
      /** The part of the copy that `stream` holds (206), or null for the whole copy. */
      range: ByteRange | null
    } & DownloadFile)
  | Refusal
  | NotInFile

/**
 * A buyer's copy of a book they own, stamped with their email and order number (social DRM), whole or the one
 * part a Range asked for. Stamped copies are kept in storage under the buyer, the stamp, the stamp's format and
 * the file's version (its sha256), so a repeat download is a file read and a new edition is stamped afresh.
 * Every whole copy delivered counts towards the library's 'downloaded N times' and the daily limit; parts count
 * one download per file's worth of parts in the day (decision 010).
 */
export async function prepareDownload(
  db: Db,
  storage: FileStorage,
  request: {
    userId: string
    email: string
    slug: string
    format: PurchasedFormat
    range?: RangeRequest | null
    /**
     * False for the online reader (issue 29): its copy is the same stamped file, but opening a book to read
     * it is not a download — neither counted in the library nor against the daily limit.
     */
    count?: boolean
    /** A copy larger than this is refused (413) before it is counted: Send to Kindle's mail limit. */
    maxBytes?: number
  },
  logger: Logger,
): Promise<DownloadResult> {
  const allowed = await checkDownload(db, request)
  if (!allowed.ok) return allowed
  const { file, ownership } = allowed
  const stamp = { email: request.email, orderNumber: ownership.orderNumber }
  const key = stampedCopyKey(request.userId, stamp, file)
  const etag = etagOf(key)
  const range = request.range && rangeStillWanted(request.range, etag) ? request.range : null

  // Peeked first so that a refused request does no work, and counted only once a copy is ready: a download
  // that fails (500, or 503 below) does not use up one of the reader's 50. A part is not refused here: it may
  // belong to a copy counted already (the day's last, fetched in parts by a download manager).
  const subject = limitSubject(request.userId, file.bookId)
  const count = request.count ?? true
  if (!range && count) {
    const before = await peekRateLimit(db, dailyDownloadLimit, subject)
    if (!before.allowed) return tooManyDownloads(before.retryAfterSeconds)
  }

  const copy = await openStampedCopy(db, storage, { key, stamp, file }, logger)
  if (!copy.ok) return copy
  if (request.maxBytes !== undefined && copy.size > request.maxBytes) {
    await copy.stream.cancel()
    return { ok: false, status: 413, message: 'This eBook is too large to send.', size: copy.size }
  }
  let { stream } = copy
  let part: ByteRange | null = null
  if (range) {
    await copy.stream.cancel()
    part = byteRangeIn(range, copy.size)
    if (!part) return { ok: false, status: 416, size: copy.size }
    const opened = await storage.createReadStream(key, part)
    if (!opened) throw new Error(`the stamped copy ${key} vanished while it was being served`)
    stream = opened.stream
  }
  let counted: Awaited<ReturnType<typeof countDelivery>> = { allowed: true, counted: false }
  try {
    if (count) {
      counted = await countDelivery(db, {
        userId: request.userId,
        bookId: file.bookId,
        format: request.format,
        size: copy.size,
        part,
      })
    }
  } catch (error) {
    await stream.cancel()
    throw error
  }
  if (!counted.allowed) {
    // Concurrent downloads of the book used up the day's last ones between the peek and now, or the part
    // would have started a 51st copy.
    await stream.cancel()
    return tooManyDownloads(counted.retryAfterSeconds)
  }
  return {
    ok: true,
    key,
    cached: copy.cached,
    counted: counted.counted,
    etag,
    range: part,
    stream,
    size: copy.size,
    fileName: `${file.slug}.${request.format}`,
    contentType: contentTypes[request.format],
  }
}

/**
 * Counts what a response hands over. A whole copy is a download. Parts of a file handed to the reader are added
 * up over the daily limit's window, and a part is a download when it takes that sum past a multiple of the
 * file's size: the first part of each file's worth, so ten parts of one copy count once, and taking a file in
 * parts costs as much of the limit as taking it whole. A download counts in the library and against the daily
 * limit; a part refused for the limit gives its bytes back, so that it cannot pay for parts asked for later.
 */
async function countDelivery(
  db: Db,
  {
    userId,
    bookId,
    format,
    size,
    part,
  }: { userId: string; bookId: string; format: PurchasedFormat; size: number; part: ByteRange | null },
): Promise<{ allowed: true; counted: boolean } | { allowed: false; retryAfterSeconds: number }> {
  const subject = limitSubject(userId, bookId)
  let giveBack = async () => {}
  if (part) {
    const partSubject = `${subject}:${format}`
    const bytes = part.end - part.start + 1
    const total = await addToWindowTotal(db, partsDelivered, partSubject, bytes)
    const copiesWorth = (sum: number) => Math.ceil(sum / size)
    if (copiesWorth(total) === copiesWorth(total - bytes)) return { allowed: true, counted: false }
    giveBack = async () => void (await addToWindowTotal(db, partsDelivered, partSubject, -bytes))
    // Not peeked before the work (it might have been within a counted copy): peeked now, so that a refused
    // part leaves the day's count as it was, as a refused whole copy does.
    const peeked = await peekRateLimit(db, dailyDownloadLimit, subject)
    if (!peeked.allowed) {
      await giveBack()
      return { allowed: false, retryAfterSeconds: peeked.retryAfterSeconds }
    }
  }
  const hit = await hitRateLimit(db, dailyDownloadLimit, subject)
  if (!hit.allowed) {
    await giveBack()
    return { allowed: false, retryAfterSeconds: hit.retryAfterSeconds }
  }
  await recordDownload(db, userId, bookId)
  return { allowed: true, counted: true }
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
  { key, stamp, file }: { key: string; stamp: Stamp; file: BookFile & { bookId: string; slug: string } },
  logger: Logger,
): Promise<({ ok: true; cached: boolean } & StoredFileStream) | Refusal> {
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
 * stamping or counting anything (download managers send one before the real request). Once the reader's copy
 * exists, its size and ETag too, which a download manager needs to fetch it in parts.
 */
export async function probeDownload(
  db: Db,
  storage: FileStorage,
  request: { userId: string; email: string; slug: string; format: PurchasedFormat },
): Promise<
  | { ok: true; fileName: string; contentType: string; copy: { size: number; etag: string } | null }
  | NotAllowed
  | TooMany
> {
  const allowed = await checkDownload(db, request)
  if (!allowed.ok) return allowed
  const limit = await peekRateLimit(db, dailyDownloadLimit, limitSubject(request.userId, allowed.file.bookId))
  if (!limit.allowed) return tooManyDownloads(limit.retryAfterSeconds)
  const stamp = { email: request.email, orderNumber: allowed.ownership.orderNumber }
  const key = stampedCopyKey(request.userId, stamp, allowed.file)
  const stored = await storage.stat(key)
  return {
    ok: true,
    fileName: allowed.fileName,
    contentType: allowed.contentType,
    copy: stored ? { size: stored.size, etag: etagOf(key) } : null,
  }
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
): Promise<{
  bytes: Uint8Array
  size: number
  fileName: string
  contentType: string
  sha256: string
} | null> {
  const file = await getBookFile(db, slug, 'sample')
  // Drafts and archived books are out of the store: their sample too (owners keep the whole book).
  if (!file || file.status !== 'published') return null
  const bytes = await readBookFile(db, storage, file)
  if (!bytes) return null
  return {
    bytes,
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

/** A strong ETag for a stamped copy: its key names its bytes (buyer and stamp, edition, stamp format). */
function etagOf(key: string): string {
  return `"${createHash('sha256').update(key).digest('hex').slice(0, 32)}"`
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
