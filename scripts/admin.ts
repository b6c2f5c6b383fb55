/**
 * `npm run admin -- grant <email>` / `revoke <email>` / `list`: who may use the back office (/admin).
 * Works on the configured database (DATABASE_URL, or the embedded one in DATA_DIR: stop the store first, the
 * embedded database has one process at a time). Each change is written to the audit log as the command line's.
 * What each command does and says: scripts/admin-command.ts.
 */
import { lockDataDir } from '#app/server/data-dir-lock.server.ts'
import { openConfiguredDatabase } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { parseAdminCommand, runAdminCommand } from './admin-command.ts'

async function main(args: string[]): Promise<number> {
  const command = parseAdminCommand(args)
  if ('usageError' in command) {
    console.error(command.usageError)
    return 2
  }
  const env = parseEnv()
  const lock = env.DATABASE_URL ? undefined : lockDataDir(env.DATA_DIR)
  const database = await openConfiguredDatabase(env)
  try {
    await database.migrate()
    return await runAdminCommand(database.db, command, console)
  } finally {
    await database.close()
    lock?.release()
  }
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
}
