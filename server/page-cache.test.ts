import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import type { Request as ExpressRequest } from 'express'
import { expect, test } from 'vitest'
import { PageCache, writeCachedPage } from './page-cache.ts'

/** What the cache reads of an Express request. */
const get = (url: string, cookie?: string) =>
  ({
    method: 'GET',
    path: new URL(url, 'http://store').pathname,
    originalUrl: url,
    headers: { cookie },
  }) as unknown as ExpressRequest

const html = (text: string) =>
  new Response(`<p>${text}</p>`, { headers: { 'Content-Type': 'text/html; charset=utf-8' } })

function cache(options: Partial<ConstructorParameters<typeof PageCache>[0]> = {}) {
  return new PageCache({
    ttlMs: 60_000,
    maxEntries: 100,
    maxBytes: 1024 * 1024,
    // As app/visitor-key.server.ts: the theme's cookie only, or no key.
    visitorKey: async (request) => {
      const cookie = request.headers.get('Cookie')
      return !cookie ? 'system' : /^cb_theme=\w+$/.test(cookie) ? cookie : undefined
    },
    policy: (scriptHashes) => `script-src 'self' ${scriptHashes.join(' ')}`,
    ...options,
  })
}

test('the key is the visitor’s key and the URL; no key for a visitor the key does not capture, nor for other than a page GET', async () => {
  const pages = cache()
  expect(await pages.keyFor(get('/books?page=2'))).toBe('system\n/books?page=2')
  expect(await pages.keyFor(get('/', 'cb_theme=dark'))).toBe('cb_theme=dark\n/')
  expect(await pages.keyFor(get('/', 'better-auth.session_token=abc'))).toBeUndefined()
  expect(await pages.keyFor(get('/books.data'))).toBeUndefined()
  expect(await pages.keyFor({ ...get('/'), method: 'POST' } as ExpressRequest)).toBeUndefined()
})

test('the visitor’s key reads the headers it names besides Cookie, and only those', async () => {
  const pages = cache({
    visitorKey: async (request) =>
      `${request.headers.get('Accept-Language') ?? '-'}|${request.headers.get('User-Agent') ?? '-'}`,
    visitorHeaders: ['Accept-Language'],
  })
  const withHeaders = (headers: Record<string, string>) =>
    ({ ...get('/'), headers: { ...headers } }) as unknown as ExpressRequest
  expect(await pages.keyFor(withHeaders({ 'accept-language': 'de-DE', 'user-agent': 'x' }))).toBe(
    'de-DE|-\n/',
  )
  expect(await pages.keyFor(withHeaders({}))).toBe('-|-\n/')
})

test('only a page that is the same for everyone is stored, without its nonce', () => {
  const pages = cache()
  const stored = pages.store(
    'k',
    html('hello <script nonce="n0nce">1</script>'),
    '<p>hello <script nonce="n0nce">1</script></p>',
    'n0nce',
    [],
  )
  expect(stored?.identity.body.toString()).toBe('<p>hello <script>1</script></p>')
  expect(pages.get('k')).toBe(stored)
  const personal = html('yours')
  personal.headers.set('Set-Cookie', 'cb_cart=1')
  expect(pages.store('p', personal, '<p>yours</p>', 'n0nce', [])).toBeUndefined()
  expect(pages.get('p')).toBeUndefined()
})

test('bounded in bytes (as sent and gzipped): a page past the bound is sent but not kept', () => {
  const pages = cache({ maxBytes: 2_000 })
  const big = `<p>${crypto.randomUUID().repeat(100)}</p>`
  expect(pages.store('big', html(big), big, 'n0nce', [])).toBeDefined()
  expect(pages.get('big')).toBeUndefined()
  const small = '<p>small</p>'
  pages.store('small', html(small), small, 'n0nce', [])
  expect(pages.get('small')?.identity.body.toString()).toBe(small)
})

test('a page is served for its TTL, then rendered again', async () => {
  const pages = cache({ ttlMs: 50 })
  pages.store('k', html('x'), '<p>x</p>', 'n0nce', [])
  expect(pages.get('k')).toBeDefined()
  await new Promise((resolve) => setTimeout(resolve, 80))
  expect(pages.get('k')).toBeUndefined()
})

test('a cached page allows the scripts the render reported, never one found in its HTML (issue 28)', () => {
  const own = "'sha256-reported-by-the-render'"
  const page = '<p><script nonce="n0nce">own()</script><script>injected()</script></p>'
  const stored = cache().store('k', html(page), page, 'n0nce', [own])
  expect(stored?.scriptHashes).toEqual([own])
})

test('a stored page’s answers: the host’s headers under the route’s, the policy by hashes, Vary and the length for each encoding', () => {
  const pages = cache({
    defaultHeaders: { 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'strict-origin-when-cross-origin' },
  })
  const body = '<p>shared</p>'
  const rendered = html(body)
  rendered.headers.set('Referrer-Policy', 'no-referrer')
  rendered.headers.append('Vary', 'Accept-Language')
  rendered.headers.set('Content-Security-Policy', "script-src 'nonce-n0nce'")
  const page = pages.store('k', rendered, body, 'n0nce', ["'sha256-abc'"])!
  const asMap = (headers: string[]) =>
    Object.fromEntries(
      headers.flatMap((value, index) => (index % 2 ? [] : [[value.toLowerCase(), headers[index + 1]]])),
    )
  const identity = asMap(page.identity.headers)
  expect(identity).toEqual({
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-type': 'text/html; charset=utf-8',
    vary: 'Accept-Language, Accept-Encoding',
    'content-security-policy': "script-src 'self' 'sha256-abc'",
    'x-page-cache': 'hit',
    'content-length': String(Buffer.byteLength(body)),
  })
  expect(asMap(page.gzip.headers)).toEqual({
    ...identity,
    'content-encoding': 'gzip',
    'content-length': String(page.gzip.body.byteLength),
  })
  expect(zlib.gunzipSync(page.gzip.body).toString()).toBe(body)
})

test('a hit is sent as stored; the request that rendered the page gets the same answer marked a miss', async () => {
  const page = cache().store('k', html('x'), '<p>x</p>', 'n0nce', [])!
  const server = http.createServer((req, res) => {
    // As the full chain leaves it: headers already set by the middlewares are replaced, not doubled.
    res.setHeader('Content-Security-Policy', "script-src 'nonce-n0nce'")
    writeCachedPage(res, page, 'identity', req.url === '/miss' ? 'miss' : 'hit')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  try {
    const [hit, miss] = await Promise.all([fetch(`${base}/hit`), fetch(`${base}/miss`)])
    expect(hit.headers.get('x-page-cache')).toBe('hit')
    expect(miss.headers.get('x-page-cache')).toBe('miss')
    const others = (response: Response) =>
      [...response.headers].filter(([name]) => !['x-page-cache', 'date'].includes(name))
    expect(others(miss)).toEqual(others(hit))
    expect(hit.headers.get('content-security-policy')).toBe("script-src 'self' ")
    expect(await hit.text()).toBe('<p>x</p>')
  } finally {
    server.close()
  }
})
