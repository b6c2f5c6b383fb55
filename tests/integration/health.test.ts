import { afterAll, beforeAll, expect, test } from 'vitest'
import { startHttpApp } from '#tests/http-app.ts'

let app: Awaited<ReturnType<typeof startHttpApp>>
let baseUrl: string
beforeAll(async () => {
  app = await startHttpApp()
  baseUrl = app.url
})
afterAll(() => app.close())

test('/healthz says the process is up; /readyz that the database answers', async () => {
  const health = await fetch(`${baseUrl}/healthz`)
  expect(health.status).toBe(200)
  const ready = await fetch(`${baseUrl}/readyz`)
  expect(ready.status).toBe(200)
  expect(await ready.json()).toMatchObject({ status: 'ok' })
  expect(ready.headers.get('cache-control')).toBe('no-store')
})

test('every response carries the security headers, with a fresh CSP nonce each time', async () => {
  const first = await fetch(`${baseUrl}/healthz`)
  const second = await fetch(`${baseUrl}/healthz`)
  const csp = first.headers.get('content-security-policy') ?? ''
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'/)
  expect(csp).not.toContain('unsafe-inline')
  for (const directive of ["object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"]) {
    expect(csp).toContain(directive)
  }
  expect(second.headers.get('content-security-policy')).not.toBe(csp)
  expect(first.headers.get('x-content-type-options')).toBe('nosniff')
  expect(first.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin')
  expect(first.headers.get('strict-transport-security')).toBeNull()
  expect(first.headers.get('x-powered-by')).toBeNull()
})

test('/readyz answers 503 once the database is gone, while /healthz still answers', async () => {
  await app.database.close()
  const ready = await fetch(`${baseUrl}/readyz`)
  expect(ready.status).toBe(503)
  expect(await ready.json()).toMatchObject({ status: 'unavailable' })
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200)
})
