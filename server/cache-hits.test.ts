import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express, { type Request as ExpressRequest } from 'express'
import { expect, test } from 'vitest'
import { answerCachedPagesFirst, encodingChooser } from './cache-hits.ts'
import { PageCache } from './page-cache.ts'

test('the stored answer for an Accept-Encoding: gzip when taken, none when none is named, else Express’s path', () => {
  const encodingOf = encodingChooser(express())
  expect(encodingOf('gzip, deflate, br')).toBe('gzip')
  expect(encodingOf('br;q=1, gzip;q=0.5')).toBe('gzip')
  expect(encodingOf(undefined)).toBe('identity')
  expect(encodingOf('gzip;q=0, br')).toBeUndefined()
  expect(encodingOf('br')).toBeUndefined()
  // Remembered per value: the same answers again.
  expect(encodingOf('gzip, deflate, br')).toBe('gzip')
  expect(encodingOf('br')).toBeUndefined()
})

async function serve(options: { isStopping?: () => boolean } = {}) {
  const pageCache = new PageCache({
    ttlMs: 60_000,
    maxEntries: 10,
    maxBytes: 1024 * 1024,
    visitorKey: async () => 'anyone',
    policy: () => "script-src 'self'",
  })
  for (const url of ['/page', '/page.txt', '/page%00']) {
    const key = await pageCache.keyFor({
      method: 'GET',
      path: url,
      originalUrl: url,
      headers: {},
    } as ExpressRequest)
    const page = '<p>stored</p>'
    pageCache.store(key!, new Response(page, { headers: { 'Content-Type': 'text/html' } }), page, 'n0nce', [])
  }
  const watched: string[] = []
  const app = express()
  app.use((req, res) => res.type('text').send(`from the app: ${req.method} ${req.path}`))
  const server = http
    .createServer(
      answerCachedPagesFirst(app, {
        pageCache,
        watchers: [(req) => watched.push(req.path)],
        countPageView: () => {},
        ...options,
      }),
    )
    .listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    watched,
    close: () => server.close(),
  }
}

test('a hit is answered and watched; a file’s URL, a NUL, a HEAD or a miss go to the app', async () => {
  const { base, watched, close } = await serve()
  try {
    const hit = await fetch(`${base}/page`)
    expect(hit.headers.get('x-page-cache')).toBe('hit')
    expect(hit.headers.get('connection')).toBe('keep-alive')
    expect(await hit.text()).toBe('<p>stored</p>')
    expect(watched).toEqual(['/page'])
    for (const path of ['/page.txt', '/page%00', '/other'])
      expect(await (await fetch(`${base}${path}`)).text()).toMatch(/^from the app: GET /)
    expect((await fetch(`${base}/page`, { method: 'HEAD' })).headers.get('x-page-cache')).toBeNull()
    expect(watched).toEqual(['/page'])
  } finally {
    close()
  }
})

test('while the process stops, a hit closes its connection', async () => {
  const { base, close } = await serve({ isStopping: () => true })
  try {
    const hit = await fetch(`${base}/page`)
    expect(hit.headers.get('x-page-cache')).toBe('hit')
    expect(hit.headers.get('connection')).toBe('close')
  } finally {
    close()
  }
})
