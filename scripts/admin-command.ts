/**
 * What `npm run admin` does once its database is open (scripts/admin.ts opens it): the command line read,
 * the role changed or listed, and what the operator is told. Returns the exit code: 0 done, 1 refused
 * (an unknown account, a guest, an unconfirmed email), 2 bad usage.
 */
import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { listAdmins, setRole } from '#app/features/admin/roles.server.ts'
import type { Db } from '#app/server/db/database.server.ts'

export const usage = 'Usage: npm run admin -- grant <email> | revoke <email> | list'

export type AdminCommand = { command: 'list' } | { command: 'grant' | 'revoke'; email: string }

/** Where the command's lines go: the console, or a test's lists. */
export type CommandOutput = { log: (line: string) => void; error: (line: string) => void }

/** The command line's words as a command, or the usage message (exit code 2). */
export function parseAdminCommand(args: string[]): AdminCommand | { usageError: string } {
  const [command, email, ...rest] = args
  if (rest.length > 0 || !command || (command === 'list') !== (email === undefined))
    return { usageError: usage }
  if (command === 'list') return { command }
  if (command !== 'grant' && command !== 'revoke')
    return { usageError: `Unknown command ${JSON.stringify(command)}.\n${usage}` }
  return { command, email: email! }
}

export async function runAdminCommand(db: Db, command: AdminCommand, output: CommandOutput): Promise<number> {
  if (command.command === 'list') {
    const admins = await listAdmins(db)
    if (admins.length === 0) output.log('No admins yet. Grant one: npm run admin -- grant <email>')
    for (const admin of admins)
      output.log(
        `${admin.email}\tsince ${admin.createdAt.toISOString()}\t${admin.sessions} active session(s)`,
      )
    return 0
  }
  const { email } = command
  const grant = command.command === 'grant'
  const change = await setRole(db, email, grant ? 'admin' : 'customer', commandLineActor)
  switch (change.outcome) {
    case 'changed':
      output.log(`${change.email} ${grant ? 'is now an admin' : 'is no longer an admin'}.`)
      return 0
    case 'unchanged':
      output.log(`${change.email} ${grant ? 'was already an admin' : 'was not an admin'}.`)
      return 0
    case 'unknown-account':
      output.error(`No account has the email ${JSON.stringify(email)}: register it first.`)
      return 1
    case 'guest':
      output.error('A guest session cannot be an admin.')
      return 1
    case 'unconfirmed-email':
      output.error(
        `${change.email} has not confirmed its email, so it is not made an admin: anyone can register an address. ` +
          'Once its owner has followed the link mailed to it (or asked for a new one on /account), grant it again.',
      )
      return 1
  }
}
