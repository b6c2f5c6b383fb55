import { and, asc, desc, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { books, errata, libraryItems, user } from '#app/server/db/schema/index.server.ts'
import { jsonText } from '#app/server/json.server.ts'
import { hitRateLimit, ipSubject, type RateLimitRule } from '#app/server/rate-limit.server.ts'

/** A reader who owns the book: a careful reader of a long book may find dozens in a day. */
export const ERRATA_PER_READER: RateLimitRule = { name: 'errata-reader', limit: 30, windowMs: 24 * 3600_000 }
/** Anyone else, reporting from the sample: a few an hour from one address. */
export const ERRATA_PER_ADDRESS: RateLimitRule = { name: 'errata-address', limit: 5, windowMs: 3600_000 }

export const ErratumSchema = z.strictObject({
  quote: jsonText(1000, 'The quote').min(1, 'Please copy the words that are wrong.'),
  location: jsonText(500, 'The location').default(''),
  description: jsonText(2000, 'What is wrong').min(1, 'Please say what is wrong.'),
  suggestion: jsonText(2000, 'The suggested fix').default(''),
  credit: jsonText(80, 'The name to credit').default(''),
})
export type ErratumInput = z.infer<typeof ErratumSchema>
export const erratumFields = ['quote', 'location', 'description', 'suggestion', 'credit'] as const

export type ErratumStatus = 'open' | 'confirmed' | 'rejected' | 'fixed'

export type ReportOutcome =
  | { ok: true; id: string }
  | { ok: false; status: 403; message: string }
  | { ok: false; status: 429; message: string; retryAfterSeconds: number }

/**
 * Records a reader's erratum against the edition they read. Owners of the book may report anything; anyone
 * else only from the free sample (`owner` false), and fewer a day, counted by address. Rate-limited before it
 * is stored.
 */
export async function reportErratum(
  db: Db,
  report: {
    book: { id: string; edition: number; status: string }
    reporterId: string | null
    owner: boolean
    clientIp: string
    input: ErratumInput
  },
): Promise<ReportOutcome> {
  const { book, owner, input } = report
  if (!owner && book.status !== 'published')
    return { ok: false, status: 403, message: 'Only readers who own this eBook can report errata in it.' }
  const limit =
    owner && report.reporterId
      ? await hitRateLimit(db, ERRATA_PER_READER, `${report.reporterId}:${book.id}`)
      : await hitRateLimit(db, ERRATA_PER_ADDRESS, ipSubject(report.clientIp))
  if (!limit.allowed)
    return {
      ok: false,
      status: 429,
      message: 'You have reported many errata just now. Please try again later.',
      retryAfterSeconds: limit.retryAfterSeconds,
    }
  const [row] = await db
    .insert(errata)
    .values({ bookId: book.id, edition: book.edition, reporterId: report.reporterId, ...input })
    .returning({ id: errata.id })
  return { ok: true, id: row!.id }
}

/** What the book page shows of an erratum (the back office adds its reason, book and reporter). */
const publicColumns = {
  id: errata.id,
  edition: errata.edition,
  status: errata.status,
  fixedInEdition: errata.fixedInEdition,
  quote: errata.quote,
  location: errata.location,
  description: errata.description,
  suggestion: errata.suggestion,
  credit: errata.credit,
  reportedAt: errata.createdAt,
}

export type PublicErratum = {
  id: string
  edition: number
  status: Exclude<ErratumStatus, 'rejected'>
  fixedInEdition: number | null
  quote: string
  location: string
  description: string
  suggestion: string
  credit: string
  reportedAt: Date
}

/**
 * A book's errata for its page, newest edition first: confirmed and fixed ones, and open ones reported by an
 * owner of the book (rejected ones stay in the back office; their reason is mailed to the reporter). At most `limit`, so a book with thousands does not make a page of them.
 */
export async function listBookErrata(db: Db, bookId: string, limit = 200): Promise<PublicErratum[]> {
  const rows = await db
    .select(publicColumns)
    .from(errata)
    .where(
      and(
        eq(errata.bookId, bookId),
        sql`${errata.status} <> 'rejected'`,
        // An open erratum is shown at once only when its reporter owns the book; anyone else's (from the
        // sample) waits for the back office, so the page cannot be filled with anonymous text.
        sql`(${errata.status} <> 'open' or exists (select 1 from ${libraryItems} where ${libraryItems.userId} = ${errata.reporterId} and ${libraryItems.bookId} = ${errata.bookId}))`,
      ),
    )
    .orderBy(desc(errata.edition), asc(errata.createdAt))
    .limit(limit)
  return rows as PublicErratum[]
}

export type AdminErratum = Omit<PublicErratum, 'status'> & {
  status: ErratumStatus
  reason: string
  bookId: string
  bookTitle: string
  bookSlug: string
  reporterEmail: string | null
}

/** The back office's list: errata in one status (open first by default), oldest first, with their books. */
export async function listErrataForTriage(
  db: Db,
  { status = 'open', bookId, limit = 200 }: { status?: ErratumStatus; bookId?: string; limit?: number } = {},
): Promise<AdminErratum[]> {
  const rows = await db
    .select({
      ...publicColumns,
      reason: errata.reason,
      bookId: errata.bookId,
      bookTitle: books.title,
      bookSlug: books.slug,
      reporterEmail: user.email,
    })
    .from(errata)
    .innerJoin(books, eq(books.id, errata.bookId))
    .leftJoin(user, eq(user.id, errata.reporterId))
    .where(and(eq(errata.status, status), bookId ? eq(errata.bookId, bookId) : undefined))
    .orderBy(asc(errata.createdAt))
    .limit(limit)
  return rows
}

/** How many errata wait for the back office (its front page). */
export function countOpenErrata(db: Db): Promise<number> {
  return db.$count(errata, eq(errata.status, 'open'))
}

export type ErratumFormOutcome =
  | { ok: true }
  | {
      ok: false
      status: 400 | 403 | 429
      retryAfterSeconds?: number
      erratumErrors?: Partial<Record<(typeof erratumFields)[number], string>>
      erratumValues: Partial<Record<(typeof erratumFields)[number], string>>
      erratumMessage?: string
    }

/**
 * The book page's erratum form (no JavaScript needed), posted by a signed-in owner: the same report as the
 * reader's, with each field's problem to show next to it and what was typed kept.
 */
export async function reportErratumFromForm(
  db: Db,
  report: {
    book: { id: string; edition: number; status: string }
    reporterId: string
    owner: boolean
    clientIp: string
    form: FormData
  },
): Promise<ErratumFormOutcome> {
  const values = Object.fromEntries(
    erratumFields.map((field) => [field, String(report.form.get(field) ?? '')]),
  ) as Record<(typeof erratumFields)[number], string>
  if (!report.owner)
    return {
      ok: false,
      status: 403,
      erratumValues: values,
      erratumMessage: 'Only readers who own this eBook can report errata here.',
    }
  const parsed = ErratumSchema.safeParse(values)
  if (!parsed.success) {
    const errors: Partial<Record<(typeof erratumFields)[number], string>> = {}
    for (const issue of parsed.error.issues) {
      const field = issue.path[0] as (typeof erratumFields)[number]
      errors[field] ??= issue.message
    }
    return { ok: false, status: 400, erratumErrors: errors, erratumValues: values }
  }
  const outcome = await reportErratum(db, { ...report, input: parsed.data })
  if (outcome.ok) return { ok: true }
  return {
    ok: false,
    status: outcome.status,
    erratumValues: values,
    erratumMessage: outcome.message,
    ...(outcome.status === 429 ? { retryAfterSeconds: outcome.retryAfterSeconds } : {}),
  }
}

/**
 * A deleted account's errata stay (they are about the book) but no longer point at them: the reporter is
 * forgotten and the name they were credited by goes (inside the deletion's transaction).
 */
export async function forgetErrataReporter(tx: Transaction, userId: string): Promise<void> {
  await tx.update(errata).set({ reporterId: null, credit: '' }).where(eq(errata.reporterId, userId))
}

/** The errata a reader reported, for their data export. */
export function exportErrataOf(db: Db, userId: string) {
  return db
    .select({
      book: books.slug,
      edition: errata.edition,
      quote: errata.quote,
      location: errata.location,
      description: errata.description,
      suggestion: errata.suggestion,
      credit: errata.credit,
      status: errata.status,
      reportedAt: errata.createdAt,
    })
    .from(errata)
    .innerJoin(books, eq(books.id, errata.bookId))
    .where(eq(errata.reporterId, userId))
    .orderBy(asc(errata.createdAt))
}
