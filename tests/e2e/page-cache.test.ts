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
  // Every inline script of the page is one the policy names.
  const crypto = await import('node:crypto')
  for (const [, attributes, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (attributes?.includes('src=')) continue
    const hash = crypto
      .createHash('sha256')
      .update(body ?? '')
      .digest('base64')
    expect(csp).toContain(`'sha256-${hash}'`)
  }
})

test('a visitor with a cart is never served, nor stored as, a shared page', async () => {
  const page = (await get('/AllBooks')).html
  const bookId = /name="bookId" value="([0-9a-f-]{36})"/.exec(page)?.[1]
  const added = await fetch(`${baseURL}/cart`, {
    method: 'POST',
    body: new URLSearchParams({ intent: 'add', bookId: bookId!, redirectTo: '/' }),
    redirect: 'manual',
  })
  const cookie = added.headers.get('set-cookie')!.split(';')[0]!
  for (let round = 0; round < 2; round++) {
    const mine = await get('/', cookie)
    expect(mine.response.headers.get('x-page-cache')).toBeNull()
    expect(mine.response.headers.get('content-security-policy')).toContain("'nonce-")
    expect(mine.html).toContain('aria-label="Cart, 1 book"')
    const stranger = await get('/')
    expect(stranger.html).toContain('aria-label="Cart, 0 books"')
    expect(stranger.html).not.toContain('Remove Item')
  }
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
