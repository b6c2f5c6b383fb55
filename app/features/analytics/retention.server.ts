import { inArray, lt } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { analyticsEvents, analyticsSalts, analyticsVisitorDays } from '#app/server/db/schema/index.server.ts'
import { utcDay } from './visitor.server.ts'

const DAY_MS = 86_400_000
/** Deleted this many at a time, so a first sweep over a large backlog holds no lock for long. */
const DELETE_CHUNK = 50_000

/**
 * The analytics sweep (server/app.ts, at start and hourly):
 * - raw events older than `retentionDays` (whole UTC days) are deleted. Their roll-up into the daily
 *   aggregates was done when they were written (aggregate.server.ts, in the same transaction), so the
 *   dashboard's numbers for those days do not change;
 * - salts of days before today are deleted: yesterday's visitor ids can no longer be recomputed;
 * - the visitor ids counted per day are kept only for today and yesterday (a batch from just before
 *   midnight may still arrive); the per-day counts stay.
 */
export async function applyAnalyticsRetention(
  db: Db,
  options: { retentionDays: number; now?: Date },
): Promise<{ deletedEvents: number }> {
  const now = options.now ?? new Date()
  const today = utcDay(now)
  const cutoff = new Date(Date.parse(today) - options.retentionDays * DAY_MS)
  let deletedEvents = 0
  for (;;) {
    const oldest = db
      .select({ id: analyticsEvents.id })
      .from(analyticsEvents)
      .where(lt(analyticsEvents.occurredAt, cutoff))
      .limit(DELETE_CHUNK)
    const deleted = await db
      .delete(analyticsEvents)
      .where(inArray(analyticsEvents.id, oldest))
      .returning({ id: analyticsEvents.id })
    const count = deleted.length
    deletedEvents += count
    if (count < DELETE_CHUNK) break
  }
  await db.delete(analyticsSalts).where(lt(analyticsSalts.day, today))
  await db
    .delete(analyticsVisitorDays)
    .where(lt(analyticsVisitorDays.day, utcDay(new Date(Date.parse(today) - DAY_MS))))
  return { deletedEvents }
}
