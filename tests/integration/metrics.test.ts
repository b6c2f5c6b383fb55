import { afterAll, beforeAll, expect, test } from 'vitest'
import { parseEnv } from '#app/server/env.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { startHttpApp } from '#tests/http-app.ts'

const token = 'metrics-token-0123456789-abcdefghij'
let app: Awaited<ReturnType<typeof startHttpApp>>
beforeAll(async () => {
  app = await startHttpApp({ METRICS_TOKEN: token })
})
afterAll(() => app.close())

const scrape = (authorization?: string) =>
  fetch(`${app.url}/metrics`, { headers: authorization ? { Authorization: authorization } : {} })

/** The value of one series in Prometheus' text format, or undefined. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : undefined
}

test('without the token, or with another, /metrics is a 401 that says nothing about the store', async () => {
  for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`, `Bearer ${token}x`]) {
    const response = await scrape(authorization)
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
    expect(await response.text()).not.toContain('codebook_')
  }
})

test('requests by route template and status, latency histogram, mail outbox, process metrics', async () => {
  await fetch(`${app.url}/healthz`)
  await fetch(`${app.url}/healthz`)
  // A path a visitor typed never becomes a label.
  await fetch(`${app.url}/books/secret-typed-slug-4711`)
  await enqueueEmail(app.database.db, {
    kind: 'metrics-test',
    subjectKey: 'one',
    to: 'reader@example.com',
    subject: 'Hello',
    text: 'Hello',
    html: '<p>Hello</p>',
  })
  // A mail held for a later day (a gift's) is not waiting yet: it does not count as pending.
  await enqueueEmail(app.database.db, {
    kind: 'metrics-test',
    subjectKey: 'held',
    to: 'friend@example.com',
    subject: 'A gift',
    text: 'A gift',
    html: '<p>A gift</p>',
    sendAt: new Date(Date.now() + 30 * 86_400_000),
  })

  const response = await scrape(`Bearer ${token}`)
  expect(response.status).toBe(200)
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  expect(response.headers.get('cache-control')).toBe('no-store')
  const text = await response.text()
  expect(valueOf(text, 'codebook_http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(2)
  expect(valueOf(text, 'codebook_http_request_duration_seconds_count{method="GET",route="/healthz"}')).toBe(2)
  expect(
    valueOf(text, 'codebook_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/healthz"}'),
  ).toBe(2)
  expect(text).not.toContain('secret-typed-slug')
  expect(valueOf(text, 'codebook_mail_outbox{state="pending"}')).toBe(1)
  expect(valueOf(text, 'codebook_mail_outbox{state="given_up"}')).toBe(0)
  expect(valueOf(text, 'codebook_database_up')).toBe(1)
  expect(valueOf(text, 'process_resident_memory_bytes')).toBeGreaterThan(0)
  if (app.database.kind === 'postgres') {
    const max = valueOf(text, 'codebook_db_pool_connections{state="max"}')!
    expect(max).toBeGreaterThan(0)
    expect(valueOf(text, 'codebook_db_pool_connections{state="total"}')).toBeLessThanOrEqual(max)
  } else expect(text).not.toContain('codebook_db_pool_connections{')
})

test('with the database gone the scrape still answers, and says so', async () => {
  await app.database.close()
  const response = await scrape(`Bearer ${token}`)
  expect(response.status).toBe(200)
  expect(valueOf(await response.text(), 'codebook_database_up')).toBe(0)
})

test('METRICS_TOKEN must be long enough to guess at', () => {
  expect(() => parseEnv({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: expected at least 32 characters/)
})
