import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createHttpApp } from '#server/http.ts'
import { createTestDatabase } from '#tests/db.ts'

let database: Awaited<ReturnType<typeof createTestDatabase>>
let baseUrl: string
let close: () => void
beforeAll(async () => {
  database = await createTestDatabase()
  const app = createHttpApp({
    env: parseEnv({ BETTER_AUTH_URL: 'https://books.example' }),
    database,
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
    // A request that passes the check reaches React Router: here, a stand-in that says so.
    build: () => Promise.reject(new Error('reached the router')),
  })
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  close = () => server.close()
})
afterAll(async () => {
  close()
  await database.dispose()
})

const post = (headers: Record<string, string>) =>
  fetch(`${baseUrl}/cart`, { method: 'POST', headers, body: new URLSearchParams({ intent: 'add' }) })

test.each([
  ['another site’s Origin', { Origin: 'https://evil.example' }],
  ['a look-alike of our origin', { Origin: 'https://books.example.evil.example' }],
  ['an opaque origin', { Origin: 'null' }],
  ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site' }],
])('a POST from %s is refused with 403 before any action runs', async (_, headers) => {
  const response = await post(headers)
  expect(response.status).toBe(403)
  expect(await response.text()).toContain('Cross-site request refused')
})

test.each([
  ['our public origin', { Origin: 'https://books.example', 'Sec-Fetch-Site': 'same-origin' }],
  ['the origin it was addressed to', { Origin: 'REPLACED' }],
  ['a client that sends neither header', {}],
])('a POST from %s goes through', async (_, headers: Record<string, string>) => {
  const response = await post(headers.Origin === 'REPLACED' ? { Origin: baseUrl } : headers)
  expect(response.status).not.toBe(403)
})

test('reads are never refused', async () => {
  const response = await fetch(`${baseUrl}/healthz`, {
    headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
  })
  expect(response.status).toBe(200)
})
