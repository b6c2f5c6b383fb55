import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { startNginx, type Nginx } from '#harness/cluster-process.ts'
import { freePort } from '#harness/store-process.ts'

// The nginx configuration `npm run cluster` writes (docs/decisions/022-scale-out.md), run by the real nginx in
// front of two small HTTP servers: one that answers, one that drops every connection it is sent a request on.

type Seen = { method: string; url: string; headers: http.IncomingHttpHeaders; bytes: number }

function startUpstream(behaviour: 'answer' | 'drop') {
  const seen: Seen[] = []
  const server = http.createServer((req, res) => {
    let bytes = 0
    req.on('data', (chunk: Buffer) => (bytes += chunk.length))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, bytes })
      if (behaviour === 'drop' && req.url !== '/ready') return req.socket.destroy()
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify({ forwardedFor: req.headers['x-forwarded-for'], bytes }))
    })
  })
  return new Promise<{ server: http.Server; port: number; seen: Seen[] }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port, seen }),
    ),
  )
}

/** A request from a chosen local address (nginx sees it as the client's). */
function send(
  url: string,
  options: { method?: string; body?: Buffer; from?: string; headers?: Record<string, string> },
) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? 'GET',
        localAddress: options.from,
        headers: {
          ...options.headers,
          ...(options.body ? { 'Content-Length': String(options.body.length) } : {}),
        },
      },
      (response) => {
        let body = ''
        response.on('data', (chunk: Buffer) => (body += chunk.toString()))
        response.on('end', () => resolve({ status: response.statusCode!, body }))
      },
    )
    request.on('error', reject)
    request.end(options.body)
  })
}

describe('the cluster’s nginx configuration (needs `apt-get install -y nginx`)', () => {
  let nginx: Nginx
  let good: Awaited<ReturnType<typeof startUpstream>>
  let bad: Awaited<ReturnType<typeof startUpstream>>
  let prefix: string

  beforeAll(async () => {
    good = await startUpstream('answer')
    bad = await startUpstream('drop')
  })

  // A new nginx for each test: its passive health checks start afresh (the dropping upstream not yet left out).
  beforeEach(async () => {
    prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-nginx-test-'))
    fs.chmodSync(prefix, 0o755)
    nginx = await startNginx({
      prefix,
      port: await freePort(),
      upstreams: [bad.port, good.port],
      readyPath: '/ready',
    })
    good.seen.length = 0
    bad.seen.length = 0
  })

  afterEach(async () => {
    await nginx?.stop()
    if (prefix) fs.rmSync(prefix, { recursive: true, force: true })
  })

  afterAll(() => {
    good?.server.close()
    bad?.server.close()
  })

  test('a POST that reached an instance is never sent to a second one', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push(
        (
          await send(`${nginx.url}/cart`, {
            method: 'POST',
            body: Buffer.from('intent=add'),
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          })
        ).status,
      )
    const received = (seen: Seen[]) => seen.filter((request) => request.method === 'POST').length
    // Each POST was received by exactly one upstream: those the first one dropped became 502s, never a
    // second delivery (nginx resends only idempotent requests).
    expect(received(good.seen) + received(bad.seen)).toBe(4)
    expect(received(bad.seen)).toBeGreaterThan(0)
    expect(statuses.filter((status) => status === 502)).toHaveLength(received(bad.seen))
    expect(statuses.filter((status) => status === 200)).toHaveLength(received(good.seen))
  })

  test('a GET dropped by one instance is answered by the other', async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await send(`${nginx.url}/page-${i}`, {})
      expect(answer.status).toBe(200)
    }
    expect(bad.seen.filter((request) => request.method === 'GET').length).toBeGreaterThan(0)
  })

  test("the client's address is the last X-Forwarded-For entry, whatever the client wrote", async () => {
    const answer = await send(`${nginx.url}/who`, {
      from: '127.0.0.2',
      headers: { 'X-Forwarded-For': '203.0.113.9' },
    })
    const { forwardedFor } = JSON.parse(answer.body) as { forwardedFor: string }
    expect(forwardedFor.split(',').map((entry) => entry.trim())).toEqual(['203.0.113.9', '127.0.0.2'])
    const proxied = good.seen.at(-1)!
    expect(proxied.headers['x-forwarded-proto']).toBe('http')
    expect(proxied.headers['x-forwarded-host']).toBe(new URL(nginx.url).host)
  })

  test('bodies: 1 MB in general, 11 MB for a cover upload', async () => {
    const post = (url: string, size: number) =>
      send(`${nginx.url}${url}`, { method: 'POST', body: Buffer.alloc(size, 97) }).then(
        (answer) => answer.status,
      )
    expect(await post('/cart', 1024 * 1024 + 1)).toBe(413)
    // Sent twice if needed: one upstream drops everything but the status must not be nginx's 413.
    expect(await post('/admin/books/abc/cover', 10 * 1024 * 1024 + 60_000)).not.toBe(413)
    expect(await post('/admin/books/abc/cover', 11 * 1024 * 1024 + 1)).toBe(413)
    expect(await post('/admin/books/abc/manuscript', 7 * 1024 * 1024)).not.toBe(413)
  })
})
