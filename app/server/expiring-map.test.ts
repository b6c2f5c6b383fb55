import { expect, test } from 'vitest'
import { ExpiringMap } from './expiring-map.ts'

function clock() {
  const time = { now: 0 }
  return { time, now: () => time.now }
}

test('an entry is served for ttlMs after it was stored, then no more', () => {
  const { time, now } = clock()
  const map = new ExpiringMap<string>({ ttlMs: 1_000, maxEntries: 10, now })
  map.set('a', 'first')
  time.now = 999
  expect(map.get('a')).toBe('first')
  map.set('a', 'second')
  time.now = 1_998
  expect(map.get('a')).toBe('second')
  time.now = 1_999
  expect(map.get('a')).toBeUndefined()
  expect(map.size).toBe(0)
})

test('expired entries nobody asks for again are dropped as others are stored', () => {
  const { time, now } = clock()
  const map = new ExpiringMap<string>({ ttlMs: 1_000, maxEntries: 1_000, now })
  for (let i = 0; i < 100; i++) {
    time.now = i * 100
    map.set(`key-${i}`, 'page')
  }
  // Stored in the last second: the ones from 8,900 ms on.
  expect(map.size).toBe(10)
  expect(map.get('key-89')).toBeUndefined()
  expect(map.get('key-90')).toBe('page')
})

test('the oldest entries go beyond the count or the byte bound; one larger than the bytes is not kept', () => {
  const map = new ExpiringMap<string>({
    ttlMs: 60_000,
    maxEntries: 3,
    maxBytes: 10,
    sizeOf: (value) => value.length,
  })
  for (const key of ['a', 'b', 'c', 'd']) map.set(key, 'xx')
  expect(['a', 'b', 'c', 'd'].map((key) => map.get(key))).toEqual([undefined, 'xx', 'xx', 'xx'])
  expect(map.bytes).toBe(6)
  // Four entries: 'b' goes for the count; then 13 bytes: 'c' goes for the bytes.
  map.set('e', 'xxxxxxx')
  expect(['b', 'c', 'd', 'e'].map((key) => map.get(key))).toEqual([undefined, undefined, 'xx', 'xxxxxxx'])
  expect(map.bytes).toBe(9)
  map.set('f', 'x'.repeat(11))
  expect(map.get('f')).toBeUndefined()
  expect(map.bytes).toBe(9)
  map.set('d', 'x')
  expect(map.bytes).toBe(8)
})

test('deleteWhere and clear forget entries and their bytes', () => {
  const map = new ExpiringMap<{ owner: string }>({
    ttlMs: 60_000,
    maxEntries: 10,
    sizeOf: () => 5,
  })
  map.set('1', { owner: 'ann' })
  map.set('2', { owner: 'bob' })
  map.set('3', { owner: 'ann' })
  map.deleteWhere((value) => value.owner === 'ann')
  expect([map.get('1'), map.get('2'), map.get('3')]).toEqual([undefined, { owner: 'bob' }, undefined])
  expect(map.bytes).toBe(5)
  map.clear()
  expect([map.size, map.bytes]).toEqual([0, 0])
})
