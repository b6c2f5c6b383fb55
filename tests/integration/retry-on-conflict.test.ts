import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { isRetryableConflict, retryOnConflict } from '#app/server/db/retry.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'

// PostgreSQL only: two transactions at once need two connections (PGlite runs one statement at a time).
const onPostgres = process.env.TEST_DB === 'postgres'

/**
 * Two transactions that lock the same two book rows in opposite orders, each waiting until the other holds its
 * first row: PostgreSQL breaks the deadlock by rolling one back (40P01).
 */
async function crossedTransactions(database: TestDatabase, run: <T>(work: () => Promise<T>) => Promise<T>) {
  const { rows } = (await database.db.execute(
    sql`select id from books order by slug limit 2`,
  )) as unknown as {
    rows: Array<{ id: string }>
  }
  const bookIds = [rows[0]!.id, rows[1]!.id] as const
  let attempts = 0
  let arrived = 0
  let bothLocked!: () => void
  const barrier = new Promise<void>((resolve) => (bothLocked = resolve))
  const lockInOrder = (first: string, second: string) =>
    run(() => {
      attempts++
      return database.db.transaction(async (tx) => {
        await tx.execute(sql`select id from books where id = ${first} for update`)
        if (++arrived === 2) bothLocked()
        await barrier
        await tx.execute(sql`update books set rating = rating where id = ${second}`)
        return 'committed'
      })
    })
  const outcomes = Promise.allSettled([
    lockInOrder(bookIds[0], bookIds[1]),
    lockInOrder(bookIds[1], bookIds[0]),
  ])
  return outcomes.then((settled) => ({ settled, attempts }))
}

test.runIf(onPostgres)(
  'without a retry, a deadlock fails one of the two transactions (40P01)',
  async ({ database }) => {
    const { settled } = await crossedTransactions(database, (work) => work())
    const failures = settled.filter((outcome) => outcome.status === 'rejected')
    expect(failures).toHaveLength(1)
    expect(isRetryableConflict((failures[0] as PromiseRejectedResult).reason)).toBe(true)
  },
)

test.runIf(onPostgres)(
  'retryOnConflict runs the rolled-back transaction again: both commit',
  async ({ database }) => {
    const { settled, attempts } = await crossedTransactions(database, retryOnConflict)
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled'])
    expect(attempts).toBe(3)
  },
)

test('other errors are not retried', async () => {
  let attempts = 0
  const failing = retryOnConflict(async () => {
    attempts++
    throw Object.assign(new Error('duplicate key'), { code: '23505' })
  })
  await expect(failing).rejects.toThrow('duplicate key')
  expect(attempts).toBe(1)
  expect(isRetryableConflict(new Error('wrapped', { cause: { code: '40P01' } }))).toBe(true)
})
