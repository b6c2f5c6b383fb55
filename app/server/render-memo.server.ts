import crypto from 'node:crypto'
import { LRUCache } from 'lru-cache'

/**
 * Rendered documents, remembered by everything their rendering reads (docs/decisions/021).
 *
 * Why it is correct: React Router renders a document from the URL, the status and the route data (loader
 * data, action data, errors) it has just loaded for this request, with the build's route modules; our
 * components are pure functions of those (no clock but the footer's year, no randomness, no other global).
 * So two requests whose URL, status and data are equal get the same HTML — but for the CSP nonce, which is
 * cut out when a page is stored and put back, fresh, each time it is served. The loaders still run on every
 * request (who is signed in, their cart, their books): only React's rendering of the same data is skipped.
 * Data of any other kind than JSON values and dates (a promise, a Map…) is not keyed on: such a page is
 * rendered each time. Entries live `ttlMs` at most (the footer's year), and the least recently used go beyond
 * `maxEntries` or `maxBytes` (counted as two bytes a character, what a string of any characters takes in V8).
 * One memo per process, in the services container (app/services.server.ts): a test makes its own.
 */
export type RenderMemoOptions = {
  maxEntries: number
  /** Default 32 MiB. */
  maxBytes?: number
  /** Default a minute: a remembered page is at most this old (its footer's year is the only clock it shows). */
  ttlMs?: number
  /** The clock, for tests. */
  now?: () => number
}

export type RenderInputs = {
  url: string
  status: number
  data: unknown
}

const NONCE_MARK = '\u0000nonce\u0000'

export class RenderMemo {
  readonly #pages: LRUCache<string, string>
  constructor(readonly options: RenderMemoOptions) {
    this.#pages = new LRUCache({
      ttl: options.ttlMs ?? 60_000,
      // A page nobody asks for again goes when its TTL ends, not when the bounds push it out.
      ttlAutopurge: true,
      max: Math.max(1, options.maxEntries),
      maxSize: options.maxBytes ?? 32 * 1024 * 1024,
      sizeCalculation: (html) => Math.max(1, html.length * 2),
      ...(options.now && { perf: { now: options.now }, ttlResolution: 0 }),
    })
  }

  /** The key for these inputs, or undefined when they cannot be keyed on (then render every time). */
  keyFor(inputs: RenderInputs): string | undefined {
    if (this.options.maxEntries <= 0) return undefined
    const serialized = stableJson(inputs)
    if (serialized === undefined) return undefined
    return crypto.createHash('sha256').update(serialized).digest('base64')
  }

  /** The document for `key`, carrying this response's nonce; undefined when it has not been rendered lately. */
  get(key: string, nonce: string): string | undefined {
    return this.#pages.get(key)?.replaceAll(NONCE_MARK, nonce)
  }

  /** Remembers a rendered document, unless its nonce appears anywhere but in nonce attributes. */
  set(key: string, html: string, nonce: string): void {
    const attribute = ` nonce="${nonce}"`
    const marked = html.replaceAll(attribute, ` nonce="${NONCE_MARK}"`)
    if (nonce.length === 0 || marked.includes(nonce) || html.includes(NONCE_MARK)) return
    this.#pages.set(key, marked)
  }
}

/**
 * JSON of plain data, with dates marked as such; undefined for anything else (a promise, a Map, a class
 * instance, a function), which might not render the same from what JSON would keep of it.
 */
export function stableJson(value: unknown): string | undefined {
  let unkeyable = false
  const json = JSON.stringify(value, function (this: Record<string, unknown>, name, item: unknown) {
    // `item` is after toJSON: a Date arrives as its ISO string; look at the original.
    const original = this[name]
    if (original instanceof Date) return { $date: item }
    if (item === undefined) return { $undefined: true }
    if (typeof item === 'number' && !Number.isFinite(item)) return { $number: String(item) }
    if (item === null || typeof item !== 'object') {
      if (typeof item === 'bigint' || typeof item === 'function' || typeof item === 'symbol') unkeyable = true
      return item
    }
    const prototype = Object.getPrototypeOf(item)
    if (!Array.isArray(item) && prototype !== Object.prototype && prototype !== null) unkeyable = true
    return item
  })
  return unkeyable ? undefined : json
}
