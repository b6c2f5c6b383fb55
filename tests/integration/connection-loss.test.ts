import { sql } from 'drizzle-orm'
import { expect } from 'vitest'
import { adminQuery } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'

// PostgreSQL only: a server restart or failover cuts the connections of a pool; PGlite has none.
const serverUrl = process.env.TEST_DB === 'postgres' ? process.env.TEST_DATABASE_URL : undefined

test.runIf(serverUrl)(
  'a connection cut in the middle of a transaction fails that transaction, not the process; the pool goes on',
  async ({ database }) => {
    const outcome = await database.db
      .transaction(async (tx) => {
        const { rows } = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as {
          rows: Array<{ pid: number }>
        }
        // As a fast shutdown does: the server ends this backend while the transaction awaits something else.
        await adminQuery(serverUrl!, `select pg_terminate_backend(${Number(rows[0]!.pid)})`)
        await new Promise((resolve) => setTimeout(resolve, 200))
        await tx.execute(sql`select 1`)
      })
      .then(
        () => 'committed',
        (error: unknown) => `failed: ${String(error)}`,
      )
    expect(outcome).toMatch(/^failed/)
    await expect(database.ping()).resolves.toBeUndefined()
  },
)
