/**
 * Who a session cookie belongs to, remembered for a few seconds so that a signed-in reader's pages do not read
 * the session and its user from the database on every request (docs/decisions/021).
 *
 * Why it stays correct:
 * - The key is the whole signed cookie value, as sent: only a value Better Auth has just verified (signature
 *   and database row) was ever stored, so a forged or altered cookie never matches.
 * - An entry lives at most `ttlMs` after it was read from the database, and never past the session's own
 *   expiry. Another instance's revocation (or a change made by a script) is therefore seen within `ttlMs`.
 * - This instance's own revocations are seen at once: every write to a session or a user made in this process
 *   (Better Auth's database hooks, the store's own deletes, a role change) calls `forgetSessionsOf`, which
 *   drops the user's entries from every cache on that database and moves their generation, so a lookup that
 *   was reading the database meanwhile does not store its stale answer.
 */
import { LRUCache } from 'lru-cache'
import type { Db } from './db/database.server.ts'

export type SessionCacheOptions = {
  /** How long an answer is kept after it was read from the database; 0 turns the cache off. */
  ttlMs: number
  /** Beyond this many entries (default 10,000), the least recently used go. */
  maxEntries?: number
  /** Beyond this many bytes of keys and values (default 16 MiB), the least recently used go. */
  maxBytes?: number
  /** The clock, for tests. */
  now?: () => number
}

/** Every session cache of this process, by the database its sessions live in. */
const cachesByDb = new WeakMap<Db, Set<SessionCache<unknown>>>()

/** The session cache of one store instance (services) on `db`; forgotten with `forgetSessionsOf(db, …)`. */
export function createSessionCache<Value>(db: Db, options: SessionCacheOptions): SessionCache<Value> {
  const cache = new SessionCache<Value>(options)
  let caches = cachesByDb.get(db)
  if (!caches) cachesByDb.set(db, (caches = new Set()))
  caches.add(cache as SessionCache<unknown>)
  return cache
}

/**
 * Call once a write to this user or their sessions has committed (a revocation, a deletion, a role or email
 * change): the next request with any of their sessions reads the database again, on every cache of `db` in
 * this process. Other processes see the write within their TTL.
 */
export function forgetSessionsOf(db: Db, userId: string): void {
  for (const cache of cachesByDb.get(db) ?? []) cache.forgetUser(userId)
}

type Entry<Value> = { value: Value; userId: string }

export class SessionCache<Value> {
  readonly #entries: LRUCache<string, Entry<Value>>
  readonly #ttlMs: number
  readonly #now: () => number
  #generation = 0

  constructor(options: SessionCacheOptions) {
    this.#ttlMs = options.ttlMs
    this.#now = options.now ?? Date.now
    this.#entries = new LRUCache({
      max: options.maxEntries ?? 10_000,
      maxSize: options.maxBytes ?? 16 * 1024 * 1024,
      // Two bytes a character of the key and of the value as JSON: an estimate, what the bound needs.
      sizeCalculation: (entry, key) => 2 * (key.length + (JSON.stringify(entry.value)?.length ?? 0)),
      // Each entry gets its own TTL (`set`); this turns the library's TTL tracking on.
      ttl: Math.max(1, options.ttlMs),
      // An entry nobody asks for again (a guest's one visit) goes when its TTL ends.
      ttlAutopurge: true,
      ...(options.now && { perf: { now: options.now }, ttlResolution: 0 }),
    })
  }

  get ttlMs(): number {
    return this.#ttlMs
  }

  /** Pass to `set`: an answer read while a revocation happened is not kept. */
  get generation(): number {
    return this.#generation
  }

  get(cookieValue: string): Value | undefined {
    return this.#entries.get(cookieValue)?.value
  }

  /** Keeps an answer for `ttlMs`, never past the session's own expiry. */
  set(
    cookieValue: string,
    { value, userId, expiresAt }: { value: Value; userId: string; expiresAt: Date },
    generation: number,
  ): void {
    const ttl = Math.min(this.#ttlMs, expiresAt.getTime() - this.#now())
    if (ttl < 1 || generation !== this.#generation) return
    this.#entries.set(cookieValue, { value, userId }, { ttl })
  }

  /** Every session of this user is read from the database again (after a revocation or a change of the user). */
  forgetUser(userId: string): void {
    this.#generation++
    const theirs = [...this.#entries.entries()].filter(([, entry]) => entry.userId === userId)
    for (const [key] of theirs) this.#entries.delete(key)
  }

  clear(): void {
    this.#generation++
    this.#entries.clear()
  }
}
