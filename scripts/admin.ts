/**
 * `npm run admin -- grant <email>` / `revoke <email>` / `list`: who may use the back office (/admin).
 * Works on the configured database (DATABASE_URL, or the embedded one in DATA_DIR: stop the store first, the
 * embedded database has one process at a time). Each change is written to the audit log as the command line's.
 */
import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { listAdmins, setRole } from '#app/features/admin/roles.server.ts'
import { lockDataDir } from '#app/server/data-dir-lock.server.ts'
import { openConfiguredDatabase } from '#app/server/db/database.server.ts'
import { parseEnv } from '#app/server/env.server.ts'

const usage = 'Usage: npm run admin -- grant <email> | revoke <email> | list'

async function main(args: string[]): Promise<number> {
  const [command, email, ...rest] = args
  if (rest.length > 0 || !command || (command === 'list') !== (email === undefined)) {
    console.error(usage)
    return 2
  }
  if (command !== 'list' && command !== 'grant' && command !== 'revoke') {
    console.error(`Unknown command ${JSON.stringify(command)}.\n${usage}`)
    return 2
  }
  const env = parseEnv()
  const lock = env.DATABASE_URL ? undefined : lockDataDir(env.DATA_DIR)
  const database = await openConfiguredDatabase(env)
  try {
    await database.migrate()
    if (command === 'list') {
      const admins = await listAdmins(database.db)
      if (admins.length === 0) console.log('No admins yet. Grant one: npm run admin -- grant <email>')
      for (const admin of admins)
        console.log(
          `${admin.email}\tsince ${admin.createdAt.toISOString()}\t${admin.sessions} active session(s)`,
        )
      return 0
    }
    const change = await setRole(
      database.db,
      email!,
      command === 'grant' ? 'admin' : 'customer',
      commandLineActor,
    )
    switch (change.outcome) {
      case 'changed':
        console.log(`${change.email} ${command === 'grant' ? 'is now an admin' : 'is no longer an admin'}.`)
        return 0
      case 'unchanged':
        console.log(`${change.email} ${command === 'grant' ? 'was already an admin' : 'was not an admin'}.`)
        return 0
      case 'unknown-account':
        console.error(`No account has the email ${JSON.stringify(email)}: register it first.`)
        return 1
      case 'guest':
        console.error('A guest session cannot be an admin.')
        return 1
    }
    return 1
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
