import { afterAll, beforeAll, expect, test } from 'vitest'
import { startHttpApp } from '#tests/http-app.ts'

// The host of tests/http-app.ts fails every request that reaches React Router: an unexpected error, which
// stays a 500 while the database answers and becomes a 503 to try again once it does not.
let app: Awaited<ReturnType<typeof startHttpApp>>
beforeAll(async () => {
  app = await startHttpApp()
})
afterAll(() => app.close())

test('an unexpected error while the database answers is a 500', async () => {
  const page = await fetch(`${app.url}/AllBooks`, { headers: { Accept: 'text/html' } })
  expect(page.status).toBe(500)
  expect(page.headers.get('retry-after')).toBeNull()
})

test('once the database is unreachable, a page answers a 503 page that says to try again, a resource JSON', async () => {
  await app.database.close()
  const page = await fetch(`${app.url}/AllBooks?sort=title`, { headers: { Accept: 'text/html' } })
  expect(page.status).toBe(503)
  expect(page.headers.get('retry-after')).toBe('10')
  expect(page.headers.get('content-type')).toMatch(/^text\/html/)
  expect(page.headers.get('cache-control')).toBe('no-store')
  // The usual policy, nonce and all: the page needs no script or inline style.
  expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'nonce-/)
  const html = await page.text()
  expect(html).toContain('<h1>CodeBook is temporarily unavailable</h1>')
  expect(html).toContain('please try again in a minute')
  expect(html).toContain('<a href="/AllBooks?sort=title">Try again</a>')
  expect(html).not.toMatch(/<script|<style|style=/)

  const resource = await fetch(`${app.url}/search/suggest?q=re`, { headers: { Accept: 'application/json' } })
  expect(resource.status).toBe(503)
  expect(resource.headers.get('retry-after')).toBe('10')
  expect(await resource.json()).toMatchObject({ error: expect.stringMatching(/temporarily unavailable/) })
})
