import crypto from 'node:crypto'
import zlib from 'node:zlib'
import type { Request as ExpressRequest } from 'express'
import { ExpiringMap } from '#app/server/expiring-map.ts'

/**
 * Whole-page cache: a page is rendered once per TTL for everyone who would see exactly the same HTML.
 *
 * Why it is correct: a page differs between visitors only through what they send. What our pages read of
 * a visitor is the theme and the cart (the root loader); everything else comes from the URL and the
 * catalogue. So the key is URL + theme + the set of books in the cart — two visitors with the same key are
 * shown identical HTML, and each sees their own cart. A request with any other cookie (a session's too)
 * is never served from nor stored in the cache; nor is a response that sets a cookie or is marked
 * private/no-store. What changes for everyone (the catalogue) shows within the TTL. A feature that makes
 * pages depend on another per-visitor input must add it to the key (`visitorKey`) or leave it out of
 * VISITOR_COOKIES, which bypasses the cache.
 *
 * CSP: a nonce must not be reused across responses, so a cached page carries none. Its inline scripts are
 * allowed by their SHA-256 hashes instead, computed once when the page is stored: exactly these scripts run.
 */
export type CachedPage = {
  status: number
  headers: Array<[string, string]>
  body: Buffer
  gzipped: Buffer
  scriptHashes: string[]
}

/** The cookies whose whole effect on a page is captured by `visitorKey`. */
const VISITOR_COOKIES = new Set(['cb_theme', 'cb_cart', '__Host-cb_cart'])

export class PageCache {
  readonly #pages: ExpiringMap<CachedPage>
  constructor(
    readonly options: {
      ttlMs: number
      maxEntries: number
      /** The pages' bytes (as sent and gzipped) the cache may hold: the oldest go beyond it. */
      maxBytes: number
      /** What the visitor's cookies change on a page (theme, cart contents), as a string. */
      visitorKey: (cookieHeader: string | null) => Promise<string>
    },
  ) {
    this.#pages = new ExpiringMap({
      ttlMs: options.ttlMs,
      maxEntries: options.maxEntries,
      maxBytes: options.maxBytes,
      sizeOf: (page) => page.body.byteLength + page.gzipped.byteLength,
    })
  }

  /** The cache key for a request, or undefined when it must be rendered for this visitor alone. */
  async keyFor(req: ExpressRequest): Promise<string | undefined> {
    if (req.method !== 'GET') return undefined
    if (req.path.endsWith('.data') || req.path.startsWith('/__manifest')) return undefined
    const cookieHeader = req.headers.cookie ?? null
    if (cookieHeader) {
      for (const pair of cookieHeader.split(';')) {
        const name = pair.slice(0, Math.max(0, pair.indexOf('='))).trim()
        if (!VISITOR_COOKIES.has(name)) return undefined
      }
    }
    return `${await this.options.visitorKey(cookieHeader)}\n${req.originalUrl}`
  }

  get(key: string): CachedPage | undefined {
    return this.#pages.get(key)
  }

  /** Stores a rendered page if it is the same for everyone; returns what to send either way (if stored). */
  store(key: string, response: Response, html: string, nonce: string): CachedPage | undefined {
    if (!isShareable(response)) return undefined
    const withoutNonce = html.replaceAll(` nonce="${nonce}"`, '')
    if (withoutNonce.includes(nonce)) return undefined
    const body = Buffer.from(withoutNonce)
    const page: CachedPage = {
      status: response.status,
      headers: [...response.headers].filter(([name]) => !/^(content-length|content-encoding)$/i.test(name)),
      body,
      gzipped: zlib.gzipSync(body, { level: 9 }),
      scriptHashes: inlineScriptHashes(withoutNonce),
    }
    this.#pages.set(key, page)
    return page
  }

  clear() {
    this.#pages.clear()
  }
}

function isShareable(response: Response): boolean {
  if (response.status !== 200) return false
  if (!response.headers.get('content-type')?.startsWith('text/html')) return false
  if (response.headers.has('set-cookie')) return false
  return !/no-store|private/i.test(response.headers.get('cache-control') ?? '')
}

/** 'sha256-…' sources for every inline <script> of a page, as CSP Level 2 hashes them. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>()
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(match[1] ?? '')) continue
    hashes.add(
      `'sha256-${crypto
        .createHash('sha256')
        .update(match[2] ?? '')
        .digest('base64')}'`,
    )
  }
  return [...hashes]
}
