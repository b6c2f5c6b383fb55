import { and, desc, eq, lt, sql } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { auditLog } from '#app/server/db/schema/index.server.ts'

/** Who made a change: an admin's session, or the command line (`npm run admin`). */
export type Actor = { id: string | null; email: string }

export const commandLineActor: Actor = { id: null, email: 'cli' }

export type AuditEntry = {
  actor: Actor
  /** '<entity>.<verb>': 'book.create', 'book.update', 'order.refund', 'user.grant-admin', … */
  action: string
  entityType: string
  entityId: string
  before?: unknown
  after?: unknown
}

/**
 * Writes what an admin changed. Call it with the transaction that makes the change, so that a change and its
 * record exist together or not at all. `before`/`after` are stored as JSON (dates as ISO strings).
 */
export async function recordAudit(db: Db | Transaction, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    actorId: entry.actor.id,
    actorEmail: entry.actor.email,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    before: toJson(entry.before),
    after: toJson(entry.after),
  })
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value))
}

export const AUDIT_PAGE_SIZE = 50

export type AuditRow = typeof auditLog.$inferSelect

/**
 * One page of the log, newest first, by keyset (`before` is the last row's id of the previous page), so that
 * a page costs the same at the millionth entry as at the first. Filters by entity when given.
 */
export async function listAuditLog(
  db: Db,
  options: { beforeId?: number; entity?: { type: string; id: string }; limit?: number } = {},
): Promise<{ rows: AuditRow[]; nextBeforeId: number | null }> {
  const limit = options.limit ?? AUDIT_PAGE_SIZE
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        options.beforeId === undefined ? undefined : lt(auditLog.id, options.beforeId),
        options.entity
          ? and(eq(auditLog.entityType, options.entity.type), eq(auditLog.entityId, options.entity.id))
          : undefined,
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(limit + 1)
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  return { rows: page, nextBeforeId: more ? page[page.length - 1]!.id : null }
}

export async function countAuditLog(db: Db): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(auditLog)
  return row?.count ?? 0
}
