import crypto from 'node:crypto'
import zlib from 'node:zlib'
import type { Request as ExpressRequest } from 'express'

/**
 * Whole-page cache for visitors who carry no state: the same HTML for everyone, rendered once per TTL
 * instead of per request.
 *
 * Why it is correct: a page may differ between visitors only through what they send. We cache only GET
 * documents requested with no cookie except the theme (which is part of the key), and only responses that
 * set no cookie and are not marked private/no-store. Anyone with a cart, a session or any other cookie is
 * rendered afresh and never stored — so no visitor can see another's cart. What changes for everyone
 * (the catalogue) shows up within the TTL.
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
  storedAt: number
}

const ALLOWED_COOKIES = new Set(['cb_theme'])

export class PageCache {
  readonly #pages = new Map<string, CachedPage>()
  constructor(readonly options: { ttlMs: number; maxEntries: number }) {}

  /** The cache key for a request, or undefined when the request may carry per-visitor state. */
  keyFor(req: ExpressRequest): string | undefined {
    if (req.method !== 'GET') return undefined
    if (req.path.endsWith('.data') || req.path.startsWith('/__manifest')) return undefined
    const cookieHeader = req.headers.cookie
    let theme = ''
    if (cookieHeader) {
      for (const pair of cookieHeader.split(';')) {
        const [name = '', value = ''] = pair.trim().split('=')
        if (!ALLOWED_COOKIES.has(name)) return undefined
        theme = value
      }
    }
    return `${theme}\n${req.originalUrl}`
  }

  get(key: string, now = Date.now()): CachedPage | undefined {
    const page = this.#pages.get(key)
    if (!page) return undefined
    if (now - page.storedAt > this.options.ttlMs) {
      this.#pages.delete(key)
      return undefined
    }
    return page
  }

  /** Stores a rendered page if it is the same for everyone; returns what to send either way (if stored). */
  store(
    key: string,
    response: Response,
    html: string,
    nonce: string,
    now = Date.now(),
  ): CachedPage | undefined {
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
      storedAt: now,
    }
    this.#pages.delete(key)
    this.#pages.set(key, page)
    // Oldest first in a Map: drop beyond the bound.
    while (this.#pages.size > this.options.maxEntries) this.#pages.delete(this.#pages.keys().next().value!)
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
