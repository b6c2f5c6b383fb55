import net from 'node:net'
import { and, eq, gt, lte, sql } from 'drizzle-orm'
import type { Db } from './db/database.server.ts'
import { rateLimits } from './db/schema/index.server.ts'

/** A limit: at most `limit` hits per `windowMs` for each subject (an IP, an account + IP, …). */
export type RateLimitRule = { name: string; limit: number; windowMs: number }

export type RateLimitState = {
  /** False once the subject has used up its hits for this window. */
  allowed: boolean
  hits: number
  /** Seconds until the window ends (and the subject may try again). */
  retryAfterSeconds: number
}

/**
 * Counts one hit for `subject` and says whether it is still within the rule. Fixed windows, counted in
 * the database with one atomic upsert, so several app instances share the counts and concurrent hits are
 * never lost. Chosen over rate-limiter-flexible, whose PostgreSQL store needs a `pg` pool or an ORM it
 * knows and cannot use the embedded PGlite (docs/decisions/007).
 */
export async function hitRateLimit(
  db: Db,
  rule: RateLimitRule,
  subject: string,
  now = new Date(),
): Promise<RateLimitState> {
  const resetAt = new Date(now.getTime() + rule.windowMs)
  const expired = sql`${rateLimits.resetAt} <= ${now.toISOString()}::timestamptz`
  const [row] = await db
    .insert(rateLimits)
    .values({ key: keyOf(rule, subject), hits: 1, resetAt })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        hits: sql`case when ${expired} then 1 else ${rateLimits.hits} + 1 end`,
        resetAt: sql`case when ${expired} then excluded.reset_at else ${rateLimits.resetAt} end`,
      },
    })
    .returning({ hits: rateLimits.hits, resetAt: rateLimits.resetAt })
  return stateOf(row!.hits, row!.resetAt, now, row!.hits <= rule.limit)
}

/** Whether `subject` may still try, without counting a hit (e.g. before checking a password). */
export async function peekRateLimit(
  db: Db,
  rule: RateLimitRule,
  subject: string,
  now = new Date(),
): Promise<RateLimitState> {
  const [row] = await db
    .select({ hits: rateLimits.hits, resetAt: rateLimits.resetAt })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, keyOf(rule, subject)), gt(rateLimits.resetAt, now)))
    .limit(1)
  if (!row) return { allowed: true, hits: 0, retryAfterSeconds: 0 }
  return stateOf(row.hits, row.resetAt, now, row.hits < rule.limit)
}

/**
 * Adds `amount` to a subject's running total in the rule's window (the rule's limit is not applied) and returns
 * the total after: the same atomic upsert as hitRateLimit, for a quantity that is not one per request, such as
 * the bytes of a file handed to a reader today. A negative amount gives back (never below 0).
 */
export async function addToWindowTotal(
  db: Db,
  rule: Pick<RateLimitRule, 'name' | 'windowMs'>,
  subject: string,
  amount: number,
  now = new Date(),
): Promise<number> {
  const resetAt = new Date(now.getTime() + rule.windowMs)
  const expired = sql`${rateLimits.resetAt} <= ${now.toISOString()}::timestamptz`
  const [row] = await db
    .insert(rateLimits)
    .values({ key: keyOf(rule, subject), hits: Math.max(0, amount), resetAt })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        hits: sql`case when ${expired} then excluded.hits else greatest(${rateLimits.hits} + ${amount}, 0) end`,
        resetAt: sql`case when ${expired} then excluded.reset_at else ${rateLimits.resetAt} end`,
      },
    })
    .returning({ hits: rateLimits.hits })
  return row!.hits
}

/**
 * A limit that slows down instead of refusing: past `limit` hits in a window, each further hit waits twice as
 * long as the one before, from `firstDelayMs` up to `maxDelayMs`. For what must never lock its owner out.
 */
export type SlowDownRule = RateLimitRule & { firstDelayMs: number; maxDelayMs: number }

/** How long the `hits`-th hit of a window waits under `rule` (0 up to its limit). */
export function slowDownMs(rule: SlowDownRule, hits: number): number {
  const over = hits - rule.limit
  if (over <= 0) return 0
  return Math.min(rule.maxDelayMs, rule.firstDelayMs * 2 ** Math.min(over - 1, 30))
}

/** Forgets a subject's hits (a successful login clears its failed ones). */
export async function clearRateLimit(db: Db, rule: RateLimitRule, subject: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, keyOf(rule, subject)))
}

/** Deletes the counters whose window has ended. Returns how many went. */
export async function deleteExpiredRateLimits(db: Db, now = new Date()): Promise<number> {
  const deleted = await db
    .delete(rateLimits)
    .where(lte(rateLimits.resetAt, now))
    .returning({ key: rateLimits.key })
  return deleted.length
}

/**
 * What a per-IP limit counts for a client address: an IPv4 address as it is; an IPv6 address by its /64
 * network, since one subscriber is usually given a whole /64 and counting single addresses would hand an
 * attacker 2^64 fresh ones. IPv4-mapped IPv6 (::ffff:192.0.2.1, how a dual-stack socket reports IPv4) is
 * the IPv4 address.
 */
export function ipSubject(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase()
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  if (mapped) return mapped[1]!
  if (!net.isIPv6(address)) return ip
  const [head = '', tail] = address.split('::')
  const groupsOf = (part: string) =>
    part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : []
  const left = groupsOf(head)
  const right = tail === undefined ? [] : groupsOf(tail)
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`
}

/** 'Too many attempts. Try again in 3 minutes.' */
export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60))
  return `Too many attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`
}

function keyOf(rule: Pick<RateLimitRule, 'name'>, subject: string) {
  return `${rule.name}:${subject}`
}

function stateOf(hits: number, resetAt: Date, now: Date, allowed: boolean): RateLimitState {
  return {
    allowed,
    hits,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
  }
}
