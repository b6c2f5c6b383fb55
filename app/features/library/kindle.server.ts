import { randomUUID } from 'node:crypto'
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { books, emailOutbox, kindleAddresses, kindleDeliveries } from '#app/server/db/schema/index.server.ts'
import type { Logger } from '#app/server/logger.server.ts'
import { emailStateOf, enqueueEmailReturningId, type EmailState } from '#app/server/outbox.server.ts'
import { hitRateLimit, type RateLimitRule } from '#app/server/rate-limit.server.ts'
import type { FileStorage } from '#app/server/storage.server.ts'
import { formatFileSize } from '#app/features/catalog/format.ts'
import { contentTypes, prepareDownload } from './downloads.server.ts'
import { kindleEmail } from './kindle-email.ts'

/**
 * Send to Kindle (issue 33): a reader saves their Kindle's address, and each book of their library can be
 * mailed there as their stamped EPUB (Amazon's service takes EPUB by mail). The mail goes through the outbox
 * with the file attached, so a mail server being down loses nothing and whichever instance delivers it has the
 * file; the reader sees it queued, sent or failed. A sent copy counts as a download (the same daily limit).
 */

/** Amazon's addresses for a Kindle: name@kindle.com, and the older name@free.kindle.com. */
const kindleAddressPattern = /^[a-z0-9][a-z0-9._+-]{0,63}@(free\.)?kindle\.com$/

export const kindleMessages = {
  missing: "Please enter your Kindle's email address.",
  notKindle:
    'Please enter the address Amazon gave your Kindle: it ends in @kindle.com (Amazon → Manage Your Content and Devices → Preferences → Personal Document Settings).',
  noAddress: "Add your Kindle's email address on your account page first: that is where we send the book.",
}

export const KindleAddressSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, kindleMessages.missing)
  .max(254, kindleMessages.notKindle)
  .regex(kindleAddressPattern, kindleMessages.notKindle)

/** A book goes to the reader's Kindle at most once an hour. */
export const KINDLE_RESEND_AFTER_MS = 60 * 60 * 1000

/** However many books a reader owns, no more than this many mails a day go to their Kindle. */
export const dailyKindleSends: RateLimitRule = {
  name: 'kindle-sends',
  limit: 30,
  windowMs: 24 * 60 * 60 * 1000,
}

export async function getKindleAddress(db: Db, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ address: kindleAddresses.address })
    .from(kindleAddresses)
    .where(eq(kindleAddresses.userId, userId))
  return row?.address ?? null
}

/** Saves (or replaces) the reader's Kindle address; `address` must have passed `KindleAddressSchema`. */
export async function saveKindleAddress(db: Db, userId: string, address: string): Promise<void> {
  const updatedAt = new Date()
  await db
    .insert(kindleAddresses)
    .values({ userId, address, updatedAt })
    .onConflictDoUpdate({ target: kindleAddresses.userId, set: { address, updatedAt } })
}

/** Forgets the reader's Kindle address; mail already queued to it still goes. True when there was one. */
export async function removeKindleAddress(db: Db, userId: string): Promise<boolean> {
  const removed = await db
    .delete(kindleAddresses)
    .where(eq(kindleAddresses.userId, userId))
    .returning({ userId: kindleAddresses.userId })
  return removed.length > 0
}

export type KindleRefusal = {
  ok: false
  status: 403 | 404 | 409 | 413 | 429 | 503
  message: string
  retryAfterSeconds?: number
}

/**
 * Queues the reader's stamped EPUB of `slug` for their Kindle. Refused, with a message for the reader: no
 * Kindle address saved, a book they do not own, the same book sent within the hour, the day's sends or
 * downloads used up, or a file larger than the store mails (`maxBytes`). The caller kicks the outbox.
 */
export async function sendToKindle(
  services: { db: Db; storage: FileStorage; logger: Logger },
  reader: { userId: string; email: string },
  request: { slug: string; maxBytes: number; now?: Date },
): Promise<{ ok: true; address: string; title: string } | KindleRefusal> {
  const { db, storage, logger } = services
  const now = request.now ?? new Date()
  const address = await getKindleAddress(db, reader.userId)
  if (!address) return { ok: false, status: 409, message: kindleMessages.noAddress }
  const [book] = await db
    .select({ id: books.id, title: books.title, author: books.author, slug: books.slug })
    .from(books)
    .where(eq(books.slug, request.slug))
  if (!book) return { ok: false, status: 404, message: 'There is no such eBook.' }

  const tooSoon = await sentWithinTheHour(db, reader.userId, book, now)
  if (tooSoon) return tooSoon
  const daily = await hitRateLimit(db, dailyKindleSends, reader.userId, now)
  if (!daily.allowed) {
    return {
      ok: false,
      status: 429,
      message: `You have sent ${dailyKindleSends.limit} eBooks to your Kindle today, the daily limit. Please try again tomorrow.`,
      retryAfterSeconds: daily.retryAfterSeconds,
    }
  }

  const copy = await prepareDownload(
    db,
    storage,
    {
      userId: reader.userId,
      email: reader.email,
      slug: book.slug,
      format: 'epub',
      maxBytes: request.maxBytes,
    },
    logger,
  )
  if (!copy.ok) {
    if (copy.status === 413) {
      return {
        ok: false,
        status: 413,
        message: `“${book.title}” is ${formatFileSize(copy.size)} as an EPUB, more than the ${formatFileSize(request.maxBytes)} we can send by mail. Download the EPUB and send it with Amazon's Send to Kindle app or page instead.`,
      }
    }
    if (copy.status === 416) throw new Error('a whole copy was asked for')
    return {
      ok: false,
      status: copy.status,
      message: copy.message,
      retryAfterSeconds: 'retryAfterSeconds' in copy ? copy.retryAfterSeconds : undefined,
    }
  }
  const content = new Uint8Array(await new Response(copy.stream).arrayBuffer())

  const queued = await db.transaction(async (tx) => {
    // One send of a book at a time: two clicks (or two instances) cannot both pass the hour's check.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`kindle:${reader.userId}:${book.id}`}))`)
    const raced = await sentWithinTheHour(tx, reader.userId, book, now)
    if (raced) return raced
    const id = randomUUID()
    const mail = kindleEmail({ title: book.title, author: book.author, email: reader.email })
    const emailId = await enqueueEmailReturningId(tx, {
      kind: 'kindle',
      subjectKey: id,
      to: address,
      ...mail,
      attachments: [{ fileName: `${book.slug}.epub`, contentType: contentTypes.epub, content }],
    })
    await tx
      .insert(kindleDeliveries)
      .values({ id, userId: reader.userId, bookId: book.id, emailId, address, createdAt: now })
    return null
  })
  if (queued) return queued
  logger.info({ slug: book.slug, bytes: content.byteLength }, 'eBook queued for a Kindle')
  return { ok: true, address, title: book.title }
}

async function sentWithinTheHour(
  db: Db | Transaction,
  userId: string,
  book: { id: string; title: string },
  now: Date,
): Promise<KindleRefusal | null> {
  const [last] = await db
    .select({ createdAt: kindleDeliveries.createdAt, failedAt: emailOutbox.failedAt })
    .from(kindleDeliveries)
    .leftJoin(emailOutbox, eq(emailOutbox.id, kindleDeliveries.emailId))
    .where(and(eq(kindleDeliveries.userId, userId), eq(kindleDeliveries.bookId, book.id)))
    .orderBy(desc(kindleDeliveries.createdAt))
    .limit(1)
  // A send that failed does not hold the next one back: the reader may try again (after fixing Amazon's list).
  if (!last || last.failedAt) return null
  const waitMs = last.createdAt.getTime() + KINDLE_RESEND_AFTER_MS - now.getTime()
  if (waitMs <= 0) return null
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000))
  return {
    ok: false,
    status: 429,
    message: `“${book.title}” went to your Kindle less than an hour ago. You can send it again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
    retryAfterSeconds: Math.ceil(waitMs / 1000),
  }
}

export type KindleDelivery = { address: string } & EmailState

/** The newest send of each of the reader's books to a Kindle, and where it stands, by book id. */
export async function listKindleDeliveries(db: Db, userId: string): Promise<Map<string, KindleDelivery>> {
  const rows = await db
    .selectDistinctOn([kindleDeliveries.bookId], {
      bookId: kindleDeliveries.bookId,
      address: kindleDeliveries.address,
      createdAt: kindleDeliveries.createdAt,
      sentAt: emailOutbox.sentAt,
      failedAt: emailOutbox.failedAt,
      lastError: emailOutbox.lastError,
      emailId: emailOutbox.id,
    })
    .from(kindleDeliveries)
    .leftJoin(emailOutbox, eq(emailOutbox.id, kindleDeliveries.emailId))
    .where(eq(kindleDeliveries.userId, userId))
    .orderBy(kindleDeliveries.bookId, desc(kindleDeliveries.createdAt))
  return new Map(
    rows.map((row) => [
      row.bookId,
      {
        address: row.address,
        ...(row.emailId
          ? emailStateOf(row)
          : ({ state: 'failed', failedAt: row.createdAt, error: 'the mail was withdrawn' } as const)),
      },
    ]),
  )
}

/** The reader's Kindle address and sends, for their data export. */
export async function exportKindleOf(db: Db, userId: string) {
  const deliveries = await db
    .select({
      book: books.title,
      address: kindleDeliveries.address,
      sentAt: emailOutbox.sentAt,
      at: kindleDeliveries.createdAt,
    })
    .from(kindleDeliveries)
    .innerJoin(books, eq(books.id, kindleDeliveries.bookId))
    .leftJoin(emailOutbox, eq(emailOutbox.id, kindleDeliveries.emailId))
    .where(eq(kindleDeliveries.userId, userId))
    .orderBy(kindleDeliveries.createdAt)
  return { address: await getKindleAddress(db, userId), deliveries }
}

/**
 * Forgets the reader's Kindle, inside the account deletion's transaction: their address, their sends, and
 * any mail still waiting to go (with their stamped copy attached).
 */
export async function deleteKindleOf(tx: Transaction, userId: string): Promise<void> {
  const waiting = tx
    .select({ id: kindleDeliveries.emailId })
    .from(kindleDeliveries)
    .where(eq(kindleDeliveries.userId, userId))
  await tx.delete(emailOutbox).where(and(inArray(emailOutbox.id, waiting), isNull(emailOutbox.sentAt)))
  await tx.delete(kindleDeliveries).where(eq(kindleDeliveries.userId, userId))
  await tx.delete(kindleAddresses).where(eq(kindleAddresses.userId, userId))
}
