import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { setRole } from '#app/features/admin/roles.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { createReader } from './buyers.ts'

/** A signed-in admin (an account that confirmed its email, granted the role as `npm run admin -- grant` does). */
export async function createAdmin(db: Db, overrides: { email?: string } = {}) {
  const reader = await createReader(db, {
    email: overrides.email ?? `admin-${crypto.randomUUID()}@example.com`,
    confirmed: true,
  })
  const change = await setRole(db, reader.email, 'admin', commandLineActor)
  if (change.outcome !== 'changed')
    throw new Error(`could not make ${reader.email} an admin: ${change.outcome}`)
  return { ...reader, actor: { id: reader.userId, email: reader.email } }
}
