import { and, asc, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { annotations, books, readingPositions } from '#app/server/db/schema/index.server.ts'
import { jsonText } from '#app/server/json.server.ts'
import { cfiSchema, EDITION_MAX, QUOTE_MAX } from './positions.server.ts'

export const NOTE_MAX = 5000
/** Enough for any reader's own use; past it a script is filling the table. */
export const ANNOTATIONS_PER_BOOK_MAX = 2000
const HIGHLIGHT_QUOTE_MAX = 2000

export const NewAnnotationSchema = z
  .strictObject({
    kind: z.enum(['bookmark', 'highlight'], { error: 'The kind must be bookmark or highlight.' }),
    edition: z
      .number({ error: 'The edition must be a number.' })
      .int()
      .min(1, 'The edition must be 1 or more.')
      .max(EDITION_MAX, 'There is no such edition.'),
    cfi: cfiSchema,
    quote: jsonText(HIGHLIGHT_QUOTE_MAX, 'The quote').default(''),
    note: jsonText(NOTE_MAX, 'The note').default(''),
  })
  .refine((value) => value.kind === 'bookmark' || value.quote.length > 0, {
    path: ['quote'],
    message: 'A highlight needs the text it marks.',
  })
  .refine((value) => value.kind === 'highlight' || value.quote.length <= QUOTE_MAX, {
    path: ['quote'],
    message: `A bookmark's quote must be at most ${QUOTE_MAX} characters.`,
  })
/**
 * A change to an annotation: its note, or its place — the reader moves an annotation into a new edition once
 * it has found its quote there (`edition` and `cfi` together).
 */
export const AnnotationChangeSchema = z
  .strictObject({
    note: jsonText(NOTE_MAX, 'The note').optional(),
    edition: z
      .number({ error: 'The edition must be a number.' })
      .int()
      .min(1, 'The edition must be 1 or more.')
      .max(EDITION_MAX, 'There is no such edition.')
      .optional(),
    cfi: cfiSchema.optional(),
  })
  .refine((value) => (value.edition === undefined) === (value.cfi === undefined), {
    path: ['cfi'],
    message: 'A new place needs both the edition and the location.',
  })
  .refine((value) => value.note !== undefined || value.cfi !== undefined, {
    path: ['note'],
    message: 'Send a note, or a new edition and location.',
  })
export type AnnotationChange = z.infer<typeof AnnotationChangeSchema>

export type Annotation = {
  id: string
  kind: 'bookmark' | 'highlight'
  edition: number
  cfi: string
  quote: string
  note: string
  createdAt: string
}

type Reader = { userId: string; bookId: string }

const columns = {
  id: annotations.id,
  kind: annotations.kind,
  edition: annotations.edition,
  cfi: annotations.cfi,
  quote: annotations.quote,
  note: annotations.note,
  createdAt: annotations.createdAt,
}
const toAnnotation = (row: { createdAt: Date } & Omit<Annotation, 'createdAt'>): Annotation => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
})

/** A reader's bookmarks and highlights in a book, in the order they made them. */
export async function listAnnotations(db: Db, reader: Reader): Promise<Annotation[]> {
  const rows = await db
    .select(columns)
    .from(annotations)
    .where(and(eq(annotations.userId, reader.userId), eq(annotations.bookId, reader.bookId)))
    .orderBy(asc(annotations.createdAt), asc(annotations.id))
  return rows.map(toAnnotation)
}

export async function addAnnotation(
  db: Db,
  reader: Reader,
  input: z.infer<typeof NewAnnotationSchema>,
): Promise<{ ok: true; annotation: Annotation } | { ok: false; status: 409; message: string }> {
  return db.transaction(async (tx) => {
    // One addition per reader and book at a time (a lock held to the transaction's end): two devices adding
    // the last one allowed at once see each other's, so the cap holds.
    const key = `annotations:${reader.userId}:${reader.bookId}`
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`)
    const existing = await tx.$count(
      annotations,
      and(eq(annotations.userId, reader.userId), eq(annotations.bookId, reader.bookId)),
    )
    if (existing >= ANNOTATIONS_PER_BOOK_MAX)
      return {
        ok: false as const,
        status: 409 as const,
        message: `A book holds at most ${ANNOTATIONS_PER_BOOK_MAX} bookmarks and highlights.`,
      }
    const [row] = await tx
      .insert(annotations)
      .values({ ...reader, ...input })
      .returning(columns)
    return { ok: true as const, annotation: toAnnotation(row!) }
  })
}

/** Changes the note or the place of one of the reader's own annotations; null when it is not theirs (or gone). */
export async function updateAnnotation(
  db: Db,
  reader: Reader,
  id: string,
  change: AnnotationChange,
): Promise<Annotation | null> {
  if (!z.uuid().safeParse(id).success) return null
  const [row] = await db
    .update(annotations)
    .set(change)
    .where(
      and(
        eq(annotations.id, id),
        eq(annotations.userId, reader.userId),
        eq(annotations.bookId, reader.bookId),
      ),
    )
    .returning(columns)
  return row ? toAnnotation(row) : null
}

/** Deletes one of the reader's own annotations; false when it is not theirs (or gone already). */
export async function deleteAnnotation(db: Db, reader: Reader, id: string): Promise<boolean> {
  if (!z.uuid().safeParse(id).success) return false
  const deleted = await db
    .delete(annotations)
    .where(
      and(
        eq(annotations.id, id),
        eq(annotations.userId, reader.userId),
        eq(annotations.bookId, reader.bookId),
      ),
    )
    .returning({ id: annotations.id })
  return deleted.length > 0
}

/**
 * The reader's bookmarks and highlights as Markdown: a heading per book, each highlight as a quote with its
 * note below, bookmarks listed by their words. What a reader pastes into their own notes.
 */
export function annotationsMarkdown(book: { title: string; author: string }, list: Annotation[]): string {
  const quote = (text: string) =>
    text
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n')
  const lines = [`# ${book.title}`, '', `*${book.author}* — notes from CodeBook`, '']
  const highlights = list.filter((item) => item.kind === 'highlight')
  const bookmarks = list.filter((item) => item.kind === 'bookmark')
  if (highlights.length) {
    lines.push('## Highlights', '')
    for (const item of highlights) {
      lines.push(quote(item.quote), '')
      if (item.note) lines.push(item.note, '')
      lines.push(`<sub>Edition ${item.edition} · ${item.cfi}</sub>`, '')
    }
  }
  if (bookmarks.length) {
    lines.push('## Bookmarks', '')
    for (const item of bookmarks)
      lines.push(
        `- ${item.quote ? `“${item.quote}”` : item.cfi} (edition ${item.edition})${item.note ? ` — ${item.note}` : ''}`,
      )
    lines.push('')
  }
  if (!list.length) lines.push('No bookmarks or highlights yet.', '')
  return lines.join('\n')
}

/**
 * A deleted account's reading: where they were in each book, and their bookmarks, highlights and notes (inside
 * the deletion's transaction).
 */
export async function deleteReadingOf(tx: Transaction, userId: string): Promise<void> {
  await tx.delete(annotations).where(eq(annotations.userId, userId))
  await tx.delete(readingPositions).where(eq(readingPositions.userId, userId))
}

/** A reader's positions and annotations in every book, for their data export. */
export async function exportReadingOf(db: Db, userId: string) {
  const [positions, notes] = await Promise.all([
    db
      .select({
        book: books.slug,
        edition: readingPositions.edition,
        cfi: readingPositions.cfi,
        fraction: readingPositions.fraction,
        quote: readingPositions.quote,
        readAt: readingPositions.readAt,
      })
      .from(readingPositions)
      .innerJoin(books, eq(books.id, readingPositions.bookId))
      .where(eq(readingPositions.userId, userId)),
    db
      .select({ book: books.slug, ...columns })
      .from(annotations)
      .innerJoin(books, eq(books.id, annotations.bookId))
      .where(eq(annotations.userId, userId))
      .orderBy(asc(annotations.createdAt)),
  ])
  return { positions, annotations: notes }
}
