import { expect, test } from 'vitest'
import { RenderMemo, stableJson } from './render-memo.server.ts'

const page = (nonce: string, text = 'Cart, 2 books') =>
  `<html><body><p>${text}</p><script nonce="${nonce}">window.x=1</script><script nonce="${nonce}" src="/a.js"></script></body></html>`

test('a remembered page is served with the new response nonce, and only for equal URL, status and data', () => {
  let now = 5_000
  const memo = new RenderMemo({ maxEntries: 10, maxBytes: 1_000_000, ttlMs: 1_000, now: () => now })
  const inputs = { url: 'http://store/', status: 200, data: { root: { cart: ['a', 'b'] } } }
  const key = memo.keyFor(inputs)!
  memo.set(key, page('first-nonce'), 'first-nonce')
  expect(memo.get(key, 'second-nonce')).toBe(page('second-nonce'))
  expect(memo.get(key, 'second-nonce')).not.toContain('first-nonce')

  expect(memo.keyFor({ ...inputs, url: 'http://store/?page=2' })).not.toBe(key)
  expect(memo.keyFor({ ...inputs, data: { root: { cart: ['a'] } } })).not.toBe(key)
  expect(memo.keyFor({ ...inputs, status: 201 })).not.toBe(key)

  now = 6_000
  expect(memo.get(key, 'third-nonce')).toBe(page('third-nonce'))
  now = 6_001
  expect(memo.get(key, 'third-nonce')).toBeUndefined()
})

test('a page whose nonce shows anywhere but in nonce attributes is not remembered', () => {
  const memo = new RenderMemo({ maxEntries: 10, maxBytes: 1_000_000, ttlMs: 1_000 })
  const key = memo.keyFor({ url: 'http://store/', status: 200, data: {} })!
  memo.set(key, page('leaky', 'the nonce is leaky'), 'leaky')
  expect(memo.get(key, 'other')).toBeUndefined()
})

test('the oldest pages go beyond the bound; 0 entries turns it off', () => {
  const memo = new RenderMemo({ maxEntries: 2, maxBytes: 1_000_000, ttlMs: 60_000 })
  const keys = ['/a', '/b', '/c'].map((url) => memo.keyFor({ url, status: 200, data: null })!)
  for (const key of keys) memo.set(key, page('Zm9vYmFy'), 'Zm9vYmFy')
  expect(keys.map((key) => memo.get(key, 'YmF6cXV4') !== undefined)).toEqual([false, true, true])
  expect(
    new RenderMemo({ maxEntries: 0, maxBytes: 1_000_000, ttlMs: 60_000 }).keyFor({
      url: '/',
      status: 200,
      data: {},
    }),
  ).toBe(undefined)
})

test('only plain data is keyed on: dates and undefined are told apart, a promise or a Map is not keyed', () => {
  const date = new Date('2026-01-01T00:00:00Z')
  expect(stableJson({ at: date })).not.toBe(stableJson({ at: date.toISOString() }))
  expect(stableJson({ a: undefined })).not.toBe(stableJson({ a: null }))
  expect(stableJson([Number.NaN])).not.toBe(stableJson([null]))
  expect(stableJson({ later: Promise.resolve(1) })).toBeUndefined()
  expect(stableJson({ map: new Map([[1, 2]]) })).toBeUndefined()
  expect(stableJson({ set: new Set([1]) })).toBeUndefined()
  expect(stableJson({ list: [1, 'two', { three: true }] })).toBe(
    stableJson({ list: [1, 'two', { three: true }] }),
  )
})

test('bounded in bytes (two a character): a page larger than the bound is not kept, others push the oldest out', () => {
  const html = page('Zm9vYmFy')
  const memo = new RenderMemo({ maxEntries: 10, maxBytes: html.length * 2 * 2, ttlMs: 60_000 })
  const keys = ['/a', '/b', '/c'].map((url) => memo.keyFor({ url, status: 200, data: null })!)
  for (const key of keys) memo.set(key, html, 'Zm9vYmFy')
  expect(keys.map((key) => memo.get(key, 'YmF6cXV4') !== undefined)).toEqual([false, true, true])
  const large = memo.keyFor({ url: '/large', status: 200, data: null })!
  memo.set(large, page('Zm9vYmFy', 'x'.repeat(html.length * 2)), 'Zm9vYmFy')
  expect(memo.get(large, 'YmF6cXV4')).toBeUndefined()
  expect(keys.map((key) => memo.get(key, 'YmF6cXV4') !== undefined)).toEqual([false, true, true])
})
