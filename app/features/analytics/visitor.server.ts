import crypto from 'node:crypto'
import { inArray } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { analyticsSalts } from '#app/server/db/schema/index.server.ts'

/** The UTC day of a moment, 'YYYY-MM-DD'. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10)
}

/**
 * Each UTC day's random key, shared by every instance through the database: the first to need it makes it.
 * `cache` keeps today's in memory; older keys are forgotten here and deleted from the database by the
 * retention sweep (retention.server.ts), after which nobody can recompute that day's visitor ids.
 */
export async function saltsFor(db: Db, days: string[], cache: Map<string, string>, today: string) {
  for (const day of cache.keys()) if (day < today) cache.delete(day)
  const missing = days.filter((day) => !cache.has(day))
  const salts = new Map(days.flatMap((day) => (cache.has(day) ? [[day, cache.get(day)!] as const] : [])))
  if (missing.length === 0) return salts
  await db
    .insert(analyticsSalts)
    .values(missing.map((day) => ({ day, salt: crypto.randomBytes(32).toString('base64url') })))
    .onConflictDoNothing()
  const rows = await db
    .select({ day: analyticsSalts.day, salt: analyticsSalts.salt })
    .from(analyticsSalts)
    .where(inArray(analyticsSalts.day, missing))
  for (const row of rows) {
    salts.set(row.day, row.salt)
    if (row.day >= today) cache.set(row.day, row.salt)
  }
  return salts
}

/**
 * A visitor's id for one day: HMAC-SHA256 keyed with that day's salt over address, user agent and site,
 * cut to 22 characters (128 bits). The same person gets another id tomorrow, and once the salt is deleted
 * nobody (not us either) can tell which address made yesterday's id.
 */
export function visitorId(salt: string, client: { ip: string; userAgent: string }, site: string): string {
  return crypto
    .createHmac('sha256', salt)
    .update(`${client.ip}\n${client.userAgent}\n${site}`)
    .digest('base64url')
    .slice(0, 22)
}
