import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase, type DatabaseHandle } from './database.server.ts'
import { dueAction, vacuumWhereDue } from './embedded-vacuum.server.ts'
import { rateLimits } from './schema/index.server.ts'

let database: DatabaseHandle
beforeAll(async () => {
  database = await openDatabase({ kind: 'pglite' })
  await database.migrate()
})
afterAll(() => database.close())

test("PostgreSQL's autovacuum rules: dead rows past 50 + 20 %, inserts past 1,000 + 20 %, changes past 50 + 10 %", () => {
  const quiet = { live: 1_000, dead: 0, insertedSinceVacuum: 0, changedSinceAnalyze: 0 }
  expect(dueAction(quiet)).toBeUndefined()
  expect(dueAction({ ...quiet, dead: 250 })).toBeUndefined()
  expect(dueAction({ ...quiet, dead: 251 })).toBe('vacuum')
  expect(dueAction({ ...quiet, insertedSinceVacuum: 1_201 })).toBe('vacuum')
  expect(dueAction({ ...quiet, changedSinceAnalyze: 150 })).toBeUndefined()
  expect(dueAction({ ...quiet, changedSinceAnalyze: 151 })).toBe('analyze')
})

test('a table left with dead rows on the embedded database is vacuumed, and then has none', async () => {
  const counters = async () =>
    (
      (await database.db.execute(sql`
        select n_dead_tup::int as dead, vacuum_count::int as vacuums
        from pg_stat_user_tables where relname = 'rate_limits'`)) as {
        rows: { dead: number; vacuums: number }[]
      }
    ).rows[0]!
  // What rate-limit hits leave behind: rows inserted, then deleted when their window ends.
  const resetAt = new Date(Date.now() + 60_000)
  for (let i = 0; i < 400; i++)
    await database.db.insert(rateLimits).values({ key: `test:${i}`, hits: 1, resetAt })
  await database.db.delete(rateLimits)
  // Counters reach the statistics at most once a second; this makes the next statement report them.
  await database.db.execute(sql`select pg_stat_force_next_flush()`)
  await database.db.execute(sql`select 1`)
  expect((await counters()).dead).toBeGreaterThanOrEqual(400)

  expect(await vacuumWhereDue(database.db)).toContainEqual({ table: 'rate_limits', action: 'vacuum' })
  await database.db.execute(sql`select pg_stat_force_next_flush()`)
  expect(await counters()).toEqual({ dead: 0, vacuums: 1 })
  // Nothing is due any more.
  expect(await vacuumWhereDue(database.db)).not.toContainEqual(
    expect.objectContaining({ table: 'rate_limits' }),
  )
})
