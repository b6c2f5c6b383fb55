import { expect } from 'vitest'
import {
  clearRateLimit,
  deleteExpiredRateLimits,
  hitRateLimit,
  peekRateLimit,
  tooManyAttemptsMessage,
  type RateLimitRule,
} from '#app/server/rate-limit.server.ts'
import { test } from '#tests/fixtures.ts'

const rule: RateLimitRule = { name: 'test', limit: 3, windowMs: 60_000 }
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, seconds))

test('a subject gets `limit` hits per window, then is refused until the window ends', async ({
  database,
}) => {
  const results = []
  for (let n = 0; n < 4; n++) results.push(await hitRateLimit(database.db, rule, 'a', at(n)))
  expect(results.map((result) => result.allowed)).toEqual([true, true, true, false])
  expect(results[3]).toMatchObject({ hits: 4, retryAfterSeconds: 57 })
  expect(await peekRateLimit(database.db, rule, 'a', at(10))).toMatchObject({ allowed: false })
  // Another subject has its own count.
  expect(await hitRateLimit(database.db, rule, 'b', at(10))).toMatchObject({ allowed: true, hits: 1 })
  // A new window starts from one.
  expect(await peekRateLimit(database.db, rule, 'a', at(60))).toMatchObject({ allowed: true, hits: 0 })
  expect(await hitRateLimit(database.db, rule, 'a', at(61))).toMatchObject({ allowed: true, hits: 1 })
})

test('concurrent hits are all counted (one atomic upsert each)', async ({ database }) => {
  const results = await Promise.all(
    Array.from({ length: 20 }, () => hitRateLimit(database.db, rule, 'burst', at(0))),
  )
  expect(results.map((result) => result.hits).toSorted((a, b) => a - b)).toEqual(
    Array.from({ length: 20 }, (_, index) => index + 1),
  )
  expect(results.filter((result) => result.allowed)).toHaveLength(3)
})

test('peek does not count; clear forgets; expired counters are swept', async ({ database }) => {
  await hitRateLimit(database.db, rule, 'peeked', at(0))
  await peekRateLimit(database.db, rule, 'peeked', at(1))
  expect(await peekRateLimit(database.db, rule, 'peeked', at(2))).toMatchObject({ hits: 1, allowed: true })
  await clearRateLimit(database.db, rule, 'peeked')
  expect(await peekRateLimit(database.db, rule, 'peeked', at(3))).toMatchObject({ hits: 0 })

  await hitRateLimit(database.db, rule, 'old', at(0))
  expect(await deleteExpiredRateLimits(database.db, at(59))).toBe(0)
  expect(await deleteExpiredRateLimits(database.db, new Date(Date.UTC(2027, 0, 1)))).toBeGreaterThan(0)
  expect(await peekRateLimit(database.db, rule, 'old', at(1))).toMatchObject({ hits: 0 })
})

test('the message counts whole minutes, rounded up', () => {
  expect(tooManyAttemptsMessage(1)).toBe('Too many attempts. Try again in 1 minute.')
  expect(tooManyAttemptsMessage(61)).toBe('Too many attempts. Try again in 2 minutes.')
  expect(tooManyAttemptsMessage(900)).toBe('Too many attempts. Try again in 15 minutes.')
})
