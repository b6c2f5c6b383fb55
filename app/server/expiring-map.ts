/**
 * A map whose entries expire `ttlMs` after they were stored, bounded in count and, with `sizeOf`, in bytes:
 * the memory under the store's in-process caches (the page cache, the render memo, the session cache).
 *
 * Why expired entries are dropped as others are stored, not only when their own key is read again: a key
 * that is never asked for again (a checkout page, a guest's one session, a search nobody repeats) would
 * otherwise stay until the count bound pushes it out, so a cache kept growing for minutes towards its bound
 * however short its TTL (the soak drill, docs/decisions/022). A store deletes the key before setting it, so
 * the map's order is storage order and the expired entries are always the oldest: dropping them is a walk
 * from the front that stops at the first live one.
 */
export type ExpiringMapOptions<Value> = {
  ttlMs: number
  maxEntries: number
  /** With `sizeOf`: the oldest entries go beyond this many bytes. */
  maxBytes?: number
  /** An entry's size in bytes (an estimate is enough: it is what the byte bound counts). */
  sizeOf?: (value: Value) => number
  now?: () => number
}

type Entry<Value> = { value: Value; storedAt: number; bytes: number }

export class ExpiringMap<Value> {
  readonly #entries = new Map<string, Entry<Value>>()
  readonly #options: ExpiringMapOptions<Value>
  readonly #now: () => number
  #bytes = 0

  constructor(options: ExpiringMapOptions<Value>) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  get size(): number {
    return this.#entries.size
  }

  /** What `sizeOf` counts of the entries held now (0 without it). */
  get bytes(): number {
    return this.#bytes
  }

  /** The value stored under `key` less than `ttlMs` ago. */
  get(key: string): Value | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (this.#now() - entry.storedAt >= this.#options.ttlMs) {
      this.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: Value): void {
    const { maxEntries, maxBytes = Infinity, sizeOf } = this.#options
    const bytes = sizeOf?.(value) ?? 0
    this.delete(key)
    const now = this.#now()
    this.#dropExpired(now)
    if (maxEntries <= 0 || bytes > maxBytes) return
    this.#entries.set(key, { value, storedAt: now, bytes })
    this.#bytes += bytes
    while (this.#entries.size > maxEntries || this.#bytes > maxBytes) this.delete(this.#oldestKey()!)
  }

  delete(key: string): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    this.#entries.delete(key)
    this.#bytes -= entry.bytes
  }

  /** Deletes every entry whose value matches. */
  deleteWhere(matches: (value: Value) => boolean): void {
    for (const [key, entry] of this.#entries) if (matches(entry.value)) this.delete(key)
  }

  clear(): void {
    this.#entries.clear()
    this.#bytes = 0
  }

  #dropExpired(now: number) {
    for (const [key, entry] of this.#entries) {
      if (now - entry.storedAt < this.#options.ttlMs) return
      this.delete(key)
    }
  }

  #oldestKey(): string | undefined {
    return this.#entries.keys().next().value
  }
}
