import { expect, test } from 'vitest'
import { SessionCache } from './session-cache.server.ts'

function clock(start = 1_000_000) {
  const time = { now: start }
  return { time, now: () => time.now }
}

const inAnHour = (now: number) => new Date(now + 60 * 60 * 1000)

test('an answer is kept for ttlMs after it was read, then read again from the database', () => {
  const { time, now } = clock()
  const cache = new SessionCache<string>({ ttlMs: 1_000, now })
  cache.set('cookie', { value: 'ann', userId: 'u1', expiresAt: inAnHour(time.now) }, cache.generation)
  time.now += 1_000
  expect(cache.get('cookie')).toBe('ann')
  time.now += 1
  expect(cache.get('cookie')).toBeUndefined()
})

test('never past the session’s own expiry; nothing kept with a 0 TTL', () => {
  const { time, now } = clock()
  const cache = new SessionCache<string>({ ttlMs: 60_000, now })
  cache.set('cookie', { value: 'ann', userId: 'u1', expiresAt: new Date(time.now + 500) }, cache.generation)
  time.now += 499
  expect(cache.get('cookie')).toBe('ann')
  time.now += 2
  expect(cache.get('cookie')).toBeUndefined()
  cache.set('expired', { value: 'bob', userId: 'u2', expiresAt: new Date(time.now) }, cache.generation)
  expect(cache.get('expired')).toBeUndefined()

  const off = new SessionCache<string>({ ttlMs: 0, now })
  off.set('cookie', { value: 'ann', userId: 'u1', expiresAt: inAnHour(time.now) }, off.generation)
  expect(off.get('cookie')).toBeUndefined()
})

test('forgetting a user drops all their sessions, and an answer read meanwhile is not kept', () => {
  const { time, now } = clock()
  const cache = new SessionCache<string>({ ttlMs: 60_000, now })
  const expiresAt = inAnHour(time.now)
  cache.set('ann-1', { value: 'ann', userId: 'ann', expiresAt }, cache.generation)
  cache.set('ann-2', { value: 'ann', userId: 'ann', expiresAt }, cache.generation)
  cache.set('bob-1', { value: 'bob', userId: 'bob', expiresAt }, cache.generation)
  const readBefore = cache.generation
  cache.forgetUser('ann')
  expect(['ann-1', 'ann-2', 'bob-1'].map((key) => cache.get(key))).toEqual([undefined, undefined, 'bob'])
  cache.set('ann-3', { value: 'ann', userId: 'ann', expiresAt }, readBefore)
  expect(cache.get('ann-3')).toBeUndefined()
})

test('bounded in entries and in bytes: the least recently used go', () => {
  const { time, now } = clock()
  const expiresAt = inAnHour(time.now)
  const counted = new SessionCache<string>({ ttlMs: 60_000, maxEntries: 2, now })
  for (const key of ['a', 'b', 'c']) counted.set(key, { value: key, userId: key, expiresAt }, 0)
  expect(['a', 'b', 'c'].map((key) => counted.get(key))).toEqual([undefined, 'b', 'c'])

  // Each entry: two bytes a character of its key (1) and of its value as JSON (102).
  const weighed = new SessionCache<string>({ ttlMs: 60_000, maxBytes: 500, now })
  for (const key of ['a', 'b', 'c']) weighed.set(key, { value: 'x'.repeat(100), userId: key, expiresAt }, 0)
  expect(['a', 'b', 'c'].map((key) => weighed.get(key) !== undefined)).toEqual([false, true, true])
})
