/** `npm run db:migrate`: applies the committed migrations to the configured database, then exits. */
import { lockDataDir } from '#app/server/data-dir-lock.server.ts'
import { openConfiguredDatabase } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'

try {
  const env = parseEnv()
  // The embedded database must not be migrated under a running store.
  const lock = env.DATABASE_URL ? undefined : lockDataDir(env.DATA_DIR)
  const database = await openConfiguredDatabase(env)
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
