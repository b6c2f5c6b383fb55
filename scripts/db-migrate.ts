/** `npm run db:migrate`: applies the committed migrations to the configured database, then exits. */
import path from 'node:path'
import { lockDataDir } from '#app/server/data-dir-lock.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'

try {
  const env = parseEnv()
  // The embedded database must not be migrated under a running store.
  const lock = env.DATABASE_URL ? undefined : lockDataDir(env.DATA_DIR)
  const database = await openDatabase(
    env.DATABASE_URL
      ? { kind: 'postgres', url: env.DATABASE_URL }
      : { kind: 'pglite', dataDir: path.join(env.DATA_DIR, 'db') },
  )
  try {
    await database.migrate()
    console.log(`Migrations applied (${database.kind}).`)
  } finally {
    await database.close()
    lock?.release()
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
}
