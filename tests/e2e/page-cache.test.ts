import http from 'node:http'
import zlib from 'node:zlib'
import { expect, inject, test } from 'vitest'

const baseURL = inject('baseURL')

async function get(path: string, cookie?: string) {
  const response = await fetch(`${baseURL}${path}`, { headers: cookie ? { Cookie: cookie } : {} })
  return { response, html: await response.text() }
}

test('stateless visitors share one cached page, allowed by script hashes instead of a reused nonce', async () => {
  await get('/AllBooks')
  const { response, html } = await get('/AllBooks')
  expect(response.headers.get('x-page-cache')).toBe('hit')
  const csp = response.headers.get('content-security-policy') ?? ''
  expect(csp).not.toContain('nonce-')
  expect(csp).toMatch(/script-src 'self'( 'sha256-[A-Za-z0-9+/=]{44}')+/)
  expect(html).not.toMatch(/ nonce="/)
  // The policy names exactly the inline scripts the page runs: those the render wrote (server/page-cache.ts).
  // JSON-LD is a data block, which browsers do not run and CSP does not govern.
  const crypto = await import('node:crypto')
  const ran = new Set<string>()
  for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (attributes?.includes('src=') || attributes?.includes('application/ld+json')) continue
    ran.add(`'sha256-${crypto.createHash('sha256').update(body!).digest('base64')}'`)
  }
  expect(ran.size).toBeGreaterThanOrEqual(3)
  expect(new Set(csp.match(/'sha256-[^']+'/g))).toEqual(ran)
})

/** The answer as sent: every header as it came, the body undecoded. */
function rawGet(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(`${baseURL}${path}`, { headers }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () =>
            resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
          )
          res.on('error', reject)
        })
        .on('error', reject)
    },
  )
}

test.each([
  ['gzip', { 'Accept-Encoding': 'gzip, deflate, br' }],
  ['no encoding', {}],
])(
  'a hit (%s) sends the very headers and bytes the request that stored the page got, but X-Page-Cache (issue 35)',
  async (_encoding, acceptEncoding) => {
    // A URL of its own, so that the first request renders and stores it.
    const path = `/AllBooks?headers-test=${crypto.randomUUID()}`
    const headers = { Accept: 'text/html', 'Accept-Language': 'de-DE,de;q=0.9', ...acceptEncoding }
    const miss = await rawGet(path, headers)
    const hit = await rawGet(path, headers)
    expect(miss.headers['x-page-cache']).toBe('miss')
    expect(hit.headers['x-page-cache']).toBe('hit')
    const apartFromTheOutcome = ({ headers }: { headers: http.IncomingHttpHeaders }) => {
      const { date: _date, 'x-page-cache': _outcome, ...rest } = headers
      return rest
    }
    expect(apartFromTheOutcome(hit)).toEqual(apartFromTheOutcome(miss))
    expect(hit.body.equals(miss.body)).toBe(true)
    expect(hit.status).toBe(200)
    expect(hit.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
      'x-frame-options': 'DENY',
      'cross-origin-opener-policy': 'same-origin',
      'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
      vary: 'Accept-Language, Accept-Encoding',
      'content-length': String(hit.body.byteLength),
    })
    expect(hit.headers['content-security-policy']).toMatch(
      /script-src 'self'( 'sha256-[A-Za-z0-9+/=]{44}')+;/,
    )
    expect(hit.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    const gzipped = 'Accept-Encoding' in acceptEncoding
    expect(hit.headers['content-encoding']).toBe(gzipped ? 'gzip' : undefined)
    const html = gzipped ? zlib.gunzipSync(hit.body).toString() : hit.body.toString()
    expect(html).toContain('</html>')
  },
)

test('a visitor who takes only brotli still gets the cached page in brotli', async () => {
  const headers = { Accept: 'text/html', 'Accept-Encoding': 'br' }
  await rawGet('/AllBooks', headers)
  const hit = await rawGet('/AllBooks', headers)
  expect(hit.headers['x-page-cache']).toBe('hit')
  expect(hit.headers['content-encoding']).toBe('br')
  expect(zlib.brotliDecompressSync(hit.body).toString()).toContain('</html>')
})

async function addToCart(bookId: string, cookie?: string) {
  const response = await fetch(`${baseURL}/cart`, {
    method: 'POST',
    body: new URLSearchParams({ intent: 'add', bookId, redirectTo: '/' }),
    headers: cookie ? { Cookie: cookie } : {},
    redirect: 'manual',
  })
  expect(response.status).toBe(303)
  return response.headers.get('set-cookie')!.split(';')[0]!
}

test('every visitor sees their own cart: pages are shared only between identical carts', async () => {
  const page = (await get('/AllBooks')).html
  const [first, second] = [
    ...new Set([...page.matchAll(/name="bookId" value="([0-9a-f-]{36})"/g)].map((m) => m[1]!)),
  ]
  const alice = await addToCart(first!)
  const bob = await addToCart(first!)
  const carol = await addToCart(second!)
  for (let round = 0; round < 2; round++) {
    const pages = await Promise.all([get('/', alice), get('/', bob), get('/', carol), get('/')])
    const [a, b, c, stranger] = pages.map((p) => p.html)
    expect(a).toContain('aria-label="Cart, 1 book"')
    expect(b).toBe(a)
    expect(c).toContain('aria-label="Cart, 1 book"')
    expect(c).not.toBe(a)
    expect(stranger).toContain('aria-label="Cart, 0 books"')
    expect(stranger).not.toContain('Remove Item')
  }
  expect((await get('/', alice)).response.headers.get('x-page-cache')).toBe('hit')
  // A change to the cart shows at once: the next page is another key.
  const removed = await fetch(`${baseURL}/cart`, {
    method: 'POST',
    body: new URLSearchParams({ intent: 'remove', bookId: first!, redirectTo: '/' }),
    headers: { Cookie: alice },
    redirect: 'manual',
  })
  expect(removed.status).toBe(303)
  expect((await get('/', alice)).html).toContain('aria-label="Cart, 0 books"')
  expect((await get('/', bob)).html).toContain('aria-label="Cart, 1 book"')
})

async function themeCookie(theme: string) {
  const response = await fetch(`${baseURL}/theme`, {
    method: 'POST',
    body: new URLSearchParams({ theme, redirectTo: '/' }),
    redirect: 'manual',
  })
  return response.headers.get('set-cookie')!.split(';')[0]!
}

test('the theme is part of the cached page’s key; any other cookie bypasses the cache', async () => {
  const dark = await themeCookie('dark')
  await get('/', dark)
  const cachedDark = await get('/', dark)
  expect(cachedDark.response.headers.get('x-page-cache')).toBe('hit')
  expect(cachedDark.html).toContain('data-theme="dark"')
  expect((await get('/', await themeCookie('light'))).html).toContain('data-theme="light"')
  expect((await get('/')).html).toContain('data-theme="system"')
  const other = await get('/', 'someone_else=1')
  expect(other.response.headers.get('x-page-cache')).toBeNull()
})

test('the locale of the dates is part of the cached page’s key: each reader gets their own format', async () => {
  const slug = /href="\/books\/([a-z0-9-]+)"/.exec((await get('/AllBooks')).html)?.[1]
  expect(slug).toBeDefined()
  const asReader = async (acceptLanguage: string) => {
    const response = await fetch(`${baseURL}/books/${slug}`, {
      headers: { 'Accept-Language': acceptLanguage },
    })
    return { response, html: await response.text() }
  }
  for (let round = 0; round < 2; round++) {
    const german = await asReader('de-DE,de;q=0.9')
    const american = await asReader('en-US,en;q=0.9')
    // The edition's date: '27.11.2026' for one, 'Nov 27, 2026' for the other, from the same cache.
    expect(german.html).toMatch(/<time [^>]*dateTime="[^"]+" lang="de-DE">\d{2}\.\d{2}\.\d{4}<\/time>/)
    expect(american.html).toMatch(
      /<time [^>]*dateTime="[^"]+" lang="en-US">[A-Z][a-z]{2} \d{1,2}, \d{4}<\/time>/,
    )
    // Shared caches downstream are told so too.
    for (const { response } of [german, american])
      expect(response.headers.get('vary')?.toLowerCase()).toContain('accept-language')
    if (round === 1)
      for (const { response } of [german, american]) expect(response.headers.get('x-page-cache')).toBe('hit')
  }
  // Another spelling of the same locale is the same page: no new entry per header.
  const variant = await asReader('de-DE-u-ca-buddhist, en;q=0.1')
  expect(variant.response.headers.get('x-page-cache')).toBe('hit')
  expect(variant.html).toContain('lang="de-DE"')
})

test.each(['/reset-password?token=a-mailed-token', '/account/verify-email?token=a-mailed-token'])(
  'a page whose URL holds a secret (%s) is never cached, stored or sent as a Referer (issue 28)',
  async (path) => {
    for (let round = 0; round < 2; round++) {
      const { response } = await get(path)
      expect(response.status).toBe(200)
      expect(response.headers.get('x-page-cache')).toBeNull()
      expect(response.headers.get('cache-control')).toBe('no-store')
      expect(response.headers.get('referrer-policy')).toBe('no-referrer')
    }
  },
)

test('such a page still posts its own forms: Chromium sends `Origin: null` from it, Sec-Fetch-Site says same-origin', async () => {
  const response = await fetch(`${baseURL}/account/verify-email`, {
    method: 'POST',
    headers: { Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
    body: new URLSearchParams({ token: 'a-mailed-token' }),
  })
  expect(response.status).toBe(200)
  expect(await response.text()).toContain(
    'This confirmation link has already been used, or is not one of ours.',
  )
})
