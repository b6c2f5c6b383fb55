import http from 'node:http'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startHttpApp } from '#tests/http-app.ts'

/**
 * What the host lets through to React Router as a request body. In this host a request that reaches the
 * router fails with 500 ('reached React Router'), so any other status was decided before the router.
 */
let app: Awaited<ReturnType<typeof startHttpApp>>
beforeAll(async () => {
  app = await startHttpApp()
})
afterAll(() => app.close())

const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  fetch(`${app.url}${path}`, { method: 'POST', body, headers })

test('a form of ordinary size reaches the router', async () => {
  const response = await post('/login', new URLSearchParams({ email: 'a@example.com', password: 'x' }))
  expect(response.status).toBe(500)
})

test.each([
  ['JSON', { 'Content-Type': 'application/json' }, '{"email":"a@example.com"}'],
  ['plain text', { 'Content-Type': 'text/plain' }, 'email=a@example.com'],
  ['no content type', {}, new Uint8Array([1, 2, 3])],
])('a post to a page whose body is %s is refused with 415', async (_, headers, body) => {
  for (const path of ['/login', '/Register', '/cart', '/logout', '/theme', '/checkout']) {
    const response = await post(path, body, headers)
    expect(response.status, path).toBe(415)
    expect(await response.text()).toContain('send a form')
  }
})

test('a form over 64 KiB is refused with 413, before any of it is read', async () => {
  const response = await post('/login', new URLSearchParams({ password: 'x'.repeat(70_000) }))
  expect(response.status).toBe(413)
  expect(response.headers.get('Connection')).toBe('close')
  expect(await response.text()).toContain('at most 64 KiB')
})

test('a client that asks for JSON is answered in JSON', async () => {
  const response = await post('/login', '{}', {
    'Content-Type': 'application/json',
    Accept: 'application/json',
  })
  expect(response.status).toBe(415)
  expect(await response.json()).toEqual({ error: expect.stringContaining('send a form') })
})

test('a body that does not state its length (chunked) is refused with 411', async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const request = http.request(`${app.url}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Transfer-Encoding': 'chunked' },
    })
    request.on('response', (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on('error', reject)
    request.write('email=a%40example.com&password=')
    request.write('x'.repeat(1000))
    request.end()
  })
  expect(status).toBe(411)
})

test('Stripe’s webhook takes JSON up to 1 MiB and no more', async () => {
  const headers = { 'Content-Type': 'application/json; charset=utf-8' }
  const event = JSON.stringify({ id: 'evt_1', padding: 'x'.repeat(100_000) })
  expect((await post('/webhooks/stripe', event, headers)).status).toBe(500)
  const huge = JSON.stringify({ id: 'evt_1', padding: 'x'.repeat(1_100_000) })
  expect((await post('/webhooks/stripe', huge, headers)).status).toBe(413)
})

test('an address holding a NUL character (%00) is refused with 400 before the router (drill:fuzz)', async () => {
  // PostgreSQL refuses text holding NUL: /books/%00 and /reset-password?token=%00 answered 500.
  for (const path of ['/books/%00', '/books/%00/og.png', '/reset-password?token=%00', '/search?q=a%00b']) {
    const response = await fetch(`${app.url}${path}`)
    expect(response.status, path).toBe(400)
    expect(await response.text()).toContain('NUL character')
  }
  // An escaped percent sign followed by 00 is no NUL: it reaches the router.
  expect((await fetch(`${app.url}/search?q=%2500`)).status).toBe(500)
})

test('reads are not affected', async () => {
  expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
})

/** The status the host answers a multipart post announcing `length` bytes, before any byte is sent. */
function announced(path: string, length: number) {
  return new Promise<number>((resolve, reject) => {
    const request = http.request(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data; boundary=x', 'Content-Length': String(length) },
    })
    request.on('response', (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
      request.destroy()
    })
    request.on('error', reject)
    // Past the limit the host answers at once, without waiting for a byte of the body.
    request.flushHeaders()
  })
}

test('a cover upload may be up to 10 MB (plus its framing) on its own URL only; more is a 413 naming the limit', async () => {
  const cover = '/admin/books/00000000-0000-4000-8000-000000000000/cover'
  const form = new FormData()
  // Over the 64 KiB of other forms (the test host's router does not read a body: kept small enough to be sent).
  form.set('cover', new File([new Uint8Array(100 * 1024)], 'cover.png'))
  expect((await post(cover, form)).status).toBe(500)
  expect(await announced(cover, 10 * 1024 * 1024 + 100 * 1024)).toBe(413)
  // Any other form keeps its 64 KiB limit, another admin URL included.
  expect(await announced('/admin/books/00000000-0000-4000-8000-000000000000', 100 * 1024)).toBe(413)
})
