import crypto from 'node:crypto'
import pg from 'pg'
import { afterAll, expect, test } from 'vitest'
import { openDatabase } from '#app/server/db/database.server.ts'
import { adminQuery } from '#tests/db.ts'

const serverUrl = process.env.TEST_DB === 'postgres' ? process.env.TEST_DATABASE_URL : undefined
const name = `codebook_migrate_${crypto.randomBytes(6).toString('hex')}`
afterAll(async () => {
  if (serverUrl) await adminQuery(serverUrl, `drop database if exists ${name} with (force)`)
})

// PostgreSQL only: PGlite is one process's, so two instances never migrate it at once.
test.runIf(serverUrl)(
  'instances starting together on one PostgreSQL migrate it once, one at a time',
  async () => {
    await adminQuery(serverUrl!, `create database ${name}`)
    const url = new URL(serverUrl!)
    url.pathname = `/${name}`
    const instances = await Promise.all(
      Array.from({ length: 4 }, () => openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 2 })),
    )
    try {
      await Promise.all(instances.map((instance) => instance.migrate()))
      const client = new pg.Client({ connectionString: url.toString() })
      await client.connect()
      const { rows } = await client
        .query<{ n: number }>(
          'select hash, count(*)::int as n from drizzle.__drizzle_migrations group by hash',
        )
        .finally(() => client.end())
      expect(rows.length).toBeGreaterThan(10)
      expect(rows.every((row) => row.n === 1)).toBe(true)
    } finally {
      await Promise.all(instances.map((instance) => instance.close()))
    }
  },
)
