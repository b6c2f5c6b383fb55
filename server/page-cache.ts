import type { ServerResponse } from 'node:http'
import zlib from 'node:zlib'
import type { Request as ExpressRequest } from 'express'
import { LRUCache } from 'lru-cache'

/**
 * Whole-page cache: a page is rendered once per TTL for everyone who would see exactly the same HTML.
 *
 * Why it is correct: a page differs between visitors only through what they send. What our pages read of
 * a visitor besides a session is the theme, the cart and the locale of its dates (the root loader, through
 * app/visitor-key.server.ts); everything else comes from the URL and the catalogue. So the key is URL +
 * `visitorKey` (theme + the locale resolved from Accept-Language + the set of books in the cart): two visitors
 * with the same key are shown identical HTML, and each sees their own cart and dates.
 * A request with any other cookie (a session's) gets no key: it is never served from nor stored in the cache;
 * nor is a response that sets a cookie or is marked private/no-store. What changes for everyone (the
 * catalogue) shows within the TTL.
 *
 * CSP: a nonce must not be reused across responses, so a cached page carries none. Its inline scripts are
 * allowed by their SHA-256 hashes instead: those the render reported writing with the response's nonce
 * (app/entry.server.tsx), never every `<script>` found in the HTML, which would allow one injected through
 * data as well (issue 28). Exactly the store's own scripts run.
 *
 * Everything a hit sends is worked out once, when the page is stored (issue 35): the whole header list for
 * each encoding (the host's security headers, the route's own, the policy, Vary, the length) and the bytes.
 * A hit is then one `writeHead` and one `end`, answered before the middlewares that only a render needs
 * (server/cache-hits.ts).
 */
export type CachedPage = {
  status: number
  /** For a visitor who takes gzip, and for one who asks for no encoding. */
  gzip: CachedAnswer
  identity: CachedAnswer
  scriptHashes: string[]
}

export type CachedAnswer = {
  /** Every header of a hit, flat (name, value, name, value, …) as `writeHead` takes them. */
  headers: string[]
  body: Buffer
}

export type Encoding = 'gzip' | 'identity'

const CACHE_OUTCOME = 'X-Page-Cache'

export class PageCache {
  readonly #pages: LRUCache<string, CachedPage>
  constructor(
    readonly options: {
      ttlMs: number
      maxEntries: number
      /** The pages' bytes (as sent and gzipped) the cache may hold: the least recently used go beyond it. */
      maxBytes: number
      /**
       * What the visitor's cookies (and `visitorHeaders`) change on a page, as a string; undefined: render it
       * for them alone.
       */
      visitorKey: (request: Pick<Request, 'headers'>) => Promise<string | undefined>
      /** The request headers besides Cookie that `visitorKey` reads (Accept-Language: the dates' locale). */
      visitorHeaders?: readonly string[]
      /** The host's headers on every page (its security headers); a route's header of the same name wins. */
      defaultHeaders?: Readonly<Record<string, string>>
      /** The Content-Security-Policy of a cached page: its own inline scripts allowed by their hashes. */
      policy: (scriptHashes: string[]) => string
    },
  ) {
    this.#pages = new LRUCache({
      ttl: options.ttlMs,
      // A page nobody asks for again goes when its TTL ends, not when the bounds push it out.
      ttlAutopurge: true,
      max: options.maxEntries,
      maxSize: options.maxBytes,
      sizeCalculation: (page) => Math.max(1, page.identity.body.byteLength + page.gzip.body.byteLength),
    })
  }

  /** The cache key for a request, or undefined when it must be rendered for this visitor alone. */
  async keyFor(req: ExpressRequest): Promise<string | undefined> {
    if (req.method !== 'GET') return undefined
    if (req.path.endsWith('.data') || req.path.startsWith('/__manifest')) return undefined
    const headers = new Headers()
    if (req.headers.cookie) headers.set('Cookie', req.headers.cookie)
    for (const name of this.options.visitorHeaders ?? []) {
      const value = req.headers[name.toLowerCase()]
      if (typeof value === 'string') headers.set(name, value)
    }
    const visitor = await this.options.visitorKey({ headers })
    return visitor === undefined ? undefined : `${visitor}\n${req.originalUrl}`
  }

  get(key: string): CachedPage | undefined {
    return this.#pages.get(key)
  }

  /**
   * Stores a rendered page if it is the same for everyone; returns what to send either way (if stored).
   * `scriptHashes`: the CSP sources of the inline scripts the render wrote with `nonce`, the only ones allowed.
   */
  store(
    key: string,
    response: Response,
    html: string,
    nonce: string,
    scriptHashes: string[],
  ): CachedPage | undefined {
    if (!isShareable(response)) return undefined
    const withoutNonce = html.replaceAll(` nonce="${nonce}"`, '')
    if (withoutNonce.includes(nonce)) return undefined
    const body = Buffer.from(withoutNonce)
    const page: CachedPage = {
      status: response.status,
      ...this.#answers(response.headers, scriptHashes, body),
      scriptHashes,
    }
    this.#pages.set(key, page)
    return page
  }

  /**
   * The headers as a rendered page sent them before issue 35, in the same order of precedence: the host's
   * defaults, replaced by the route's own of the same name, then the policy by hashes; Vary adds the
   * encoding, which differs between the two answers.
   */
  #answers(routeHeaders: Headers, scriptHashes: string[], body: Buffer): Record<Encoding, CachedAnswer> {
    const headers = new Map<string, [string, string]>()
    const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value])
    for (const [name, value] of Object.entries(this.options.defaultHeaders ?? {})) set(name, value)
    for (const [name, value] of routeHeaders)
      if (!/^(content-length|content-encoding)$/i.test(name)) set(name, value)
    set('Content-Security-Policy', this.options.policy(scriptHashes))
    set('Vary', withVary(headers.get('vary')?.[1], 'Accept-Encoding'))
    set(CACHE_OUTCOME, 'hit')
    const common = [...headers.values()].flat()
    const gzipped = zlib.gzipSync(body, { level: 9 })
    return {
      gzip: {
        headers: [...common, 'Content-Encoding', 'gzip', 'Content-Length', String(gzipped.byteLength)],
        body: gzipped,
      },
      identity: { headers: [...common, 'Content-Length', String(body.byteLength)], body },
    }
  }

  clear() {
    this.#pages.clear()
  }
}

/**
 * Sends a stored page: a hit exactly as stored, or, for the request that rendered it, the same answer marked
 * a miss. `res` may be wrapped by the compression middleware (the slow path): it sees the headers as
 * `writeHead` sets them, and compresses an identity answer for a visitor who takes only brotli, as before.
 */
export function writeCachedPage(
  res: ServerResponse,
  page: CachedPage,
  encoding: Encoding,
  outcome: 'hit' | 'miss',
) {
  const { headers, body } = page[encoding]
  res.writeHead(
    page.status,
    outcome === 'hit'
      ? headers
      : headers.map((value, index) =>
          index % 2 === 1 && headers[index - 1] === CACHE_OUTCOME ? outcome : value,
        ),
  )
  res.end(body)
}

/** A Vary value with `field` added unless it is there (as Express's `res.vary` does). */
function withVary(vary: string | undefined, field: string): string {
  if (!vary) return field
  if (vary.trim() === '*') return vary
  const fields = vary.split(',').map((name) => name.trim().toLowerCase())
  return fields.includes(field.toLowerCase()) ? vary : `${vary}, ${field}`
}

function isShareable(response: Response): boolean {
  if (response.status !== 200) return false
  if (!response.headers.get('content-type')?.startsWith('text/html')) return false
  if (response.headers.has('set-cookie')) return false
  return !/no-store|private/i.test(response.headers.get('cache-control') ?? '')
}
