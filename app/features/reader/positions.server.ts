import { and, eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#app/server/db/database.server.ts'
import { readingPositions } from '#app/server/db/schema/index.server.ts'
import { jsonText } from '#app/server/json.server.ts'

/** An EPUB CFI as foliate-js writes one: `epubcfi(/6/4!/4/2,/1:0,/1:12)`, within reason. */
export const cfiSchema = z
  .string({ error: 'The location must be text.' })
  .max(500, 'The location must be at most 500 characters.')
  .regex(/^epubcfi\([!-~]+\)$/, 'The location must be an EPUB CFI: epubcfi(…).')

export const QUOTE_MAX = 200
/** The largest edition number a request may name: the column is a PostgreSQL integer. */
export const EDITION_MAX = 2_147_483_647

/** What the reader sends as it reads: where it is, in which edition, and when it was there. */
export const PositionSchema = z.strictObject({
  edition: z
    .number({ error: 'The edition must be a number.' })
    .int()
    .min(1, 'The edition must be 1 or more.'),
  cfi: cfiSchema,
  fraction: z
    .number({ error: 'The fraction must be a number.' })
    .min(0, 'The fraction must be between 0 and 1.')
    .max(1, 'The fraction must be between 0 and 1.'),
  quote: jsonText(QUOTE_MAX, 'The quote').default(''),
  at: z.iso.datetime({ offset: true, error: 'The time must be an ISO date and time.' }),
})
export type PositionInput = z.infer<typeof PositionSchema>

export type ReadingPosition = {
  edition: number
  cfi: string
  fraction: number
  quote: string
  updatedAt: string
}

/**
 * Saves where a reader is in a book, unless a newer place is stored already: two devices reading at once (or
 * one coming back online with an old place) settle on the place read last, by the devices' own clocks. A
 * time further than a minute in the future is taken as now, so a wrong clock cannot pin the position.
 */
export async function savePosition(
  db: Db,
  reader: { userId: string; bookId: string },
  input: PositionInput,
  now = new Date(),
): Promise<{ saved: boolean }> {
  const at = new Date(input.at)
  const readAt = at.getTime() > now.getTime() + 60_000 ? now : at
  const saved = await db
    .insert(readingPositions)
    .values({
      ...reader,
      edition: input.edition,
      cfi: input.cfi,
      fraction: input.fraction,
      quote: input.quote,
      readAt,
    })
    .onConflictDoUpdate({
      target: [readingPositions.userId, readingPositions.bookId],
      set: {
        edition: sql`excluded.edition`,
        cfi: sql`excluded.cfi`,
        fraction: sql`excluded.fraction`,
        quote: sql`excluded.quote`,
        readAt: sql`excluded.read_at`,
        updatedAt: now,
      },
      setWhere: sql`excluded.read_at > ${readingPositions.readAt}`,
    })
    .returning({ userId: readingPositions.userId })
  return { saved: saved.length > 0 }
}

/** Where the reader last was in the book, or null. */
export async function getPosition(
  db: Db,
  reader: { userId: string; bookId: string },
): Promise<ReadingPosition | null> {
  const [row] = await db
    .select()
    .from(readingPositions)
    .where(and(eq(readingPositions.userId, reader.userId), eq(readingPositions.bookId, reader.bookId)))
  if (!row) return null
  return {
    edition: row.edition,
    cfi: row.cfi,
    fraction: row.fraction,
    quote: row.quote,
    updatedAt: row.readAt.toISOString(),
  }
}
