import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { session, user, type UserRole } from '#app/server/db/schema/index.server.ts'
import { forgetSessionsOf } from '#app/server/session-cache.server.ts'
import { recordAudit, type Actor } from './audit.server.ts'

export type RoleChange =
  | { outcome: 'changed'; email: string }
  | { outcome: 'unchanged'; email: string }
  | { outcome: 'unknown-account' }
  | { outcome: 'guest' }
  /** Granting only: the account's email is not confirmed, so it may not be its owner's (decision 011). */
  | { outcome: 'unconfirmed-email'; email: string }

/**
 * Makes an account an admin or a customer again, with an audit entry. Guests are never admins, nor is an
 * account whose email is unconfirmed: whoever registers an address first holds that account until it is
 * confirmed, so a grant by address would go to them (revoking needs no confirmation). The change holds from
 * the account's next request in this process (the role is read with the session, not kept in its cookie),
 * and within SESSION_CACHE_SECONDS in the others (decision 021).
 */
export async function setRole(db: Db, email: string, role: UserRole, actor: Actor): Promise<RoleChange> {
  const normalized = email.trim().toLowerCase()
  const change = await db.transaction(async (tx) => {
    const [account] = await tx
      .select({
        id: user.id,
        role: user.role,
        isAnonymous: user.isAnonymous,
        emailVerified: user.emailVerified,
      })
      .from(user)
      .where(eq(sql`lower(${user.email})`, normalized))
      .for('update')
    if (!account) return { outcome: 'unknown-account' as const }
    if (account.isAnonymous) return { outcome: 'guest' as const }
    if (role === 'admin' && !account.emailVerified)
      return { outcome: 'unconfirmed-email' as const, email: normalized }
    if (account.role === role) return { outcome: 'unchanged' as const, email: normalized }
    await tx.update(user).set({ role }).where(eq(user.id, account.id))
    await recordAudit(tx, {
      actor,
      action: role === 'admin' ? 'user.grant-admin' : 'user.revoke-admin',
      entityType: 'user',
      entityId: account.id,
      before: { email: normalized, role: account.role },
      after: { email: normalized, role },
    })
    return { outcome: 'changed' as const, email: normalized, userId: account.id }
  })
  if (change.outcome !== 'changed') return change
  // The role comes with the session: this process's cached sessions of the account are read again at once.
  forgetSessionsOf(db, change.userId)
  return { outcome: 'changed', email: change.email }
}

export type AdminAccount = { id: string; email: string; createdAt: Date; sessions: number }

export async function listAdmins(db: Db): Promise<AdminAccount[]> {
  return db
    .select({
      id: user.id,
      email: user.email,
      createdAt: user.createdAt,
      sessions: sql<number>`(select count(*)::int from ${session} where ${session.userId} = ${user.id} and ${session.expiresAt} > now())`,
    })
    .from(user)
    .where(and(eq(user.role, 'admin'), eq(user.isAnonymous, false)))
    .orderBy(asc(user.email))
}

export type AdminEmailsApplied = {
  /** Listed addresses no account has yet. */
  notRegistered: string[]
  /** Listed addresses whose account has not confirmed its email: not made admins. */
  unconfirmed: string[]
}

/**
 * ADMIN_EMAILS at start-up: each listed account that exists and has confirmed its email becomes an admin
 * (recorded in the audit log as the command line's doing). Returns the addresses left out, for the start-up
 * log.
 */
export async function applyAdminEmails(
  db: Db,
  emails: readonly string[],
  actor: Actor,
): Promise<AdminEmailsApplied> {
  if (emails.length === 0) return { notRegistered: [], unconfirmed: [] }
  const existing = await db
    .select({ email: sql<string>`lower(${user.email})` })
    .from(user)
    .where(and(inArray(sql`lower(${user.email})`, [...emails]), eq(user.isAnonymous, false)))
  const found = new Set(existing.map((row) => row.email))
  const unconfirmed: string[] = []
  for (const email of found) {
    const change = await setRole(db, email, 'admin', actor)
    if (change.outcome === 'unconfirmed-email') unconfirmed.push(email)
  }
  return { notRegistered: emails.filter((email) => !found.has(email)), unconfirmed }
}
