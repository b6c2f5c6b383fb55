import { createHash, randomBytes } from 'node:crypto'
import { and, asc, count, eq, isNull, lt, or, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { appPasswords, user } from '#app/server/db/schema/index.server.ts'

/*
 * App passwords (issue 33): a reader names one per reading app on /account, sees it once, and the app signs in
 * to the reader's OPDS library with HTTP Basic (email + app password). They open the feeds and the downloads
 * they link to, never the account, checkout or the back office — the session cookie is the only way in there.
 */

/** At most this many per reader: one per app and device is a handful. */
export const MAX_APP_PASSWORDS = 20
export const APP_PASSWORD_NAME_MAX = 60

/** 20 characters of Crockford's base32 (100 bits), grouped by 4 so it can be typed on an e-reader's keyboard. */
const alphabet = '0123456789abcdefghjkmnpqrstvwxyz'

export const appPasswordMessages = {
  nameRequired: 'Name the app this password is for, e.g. “KOReader on my Kobo”.',
  nameTooLong: `A name has at most ${APP_PASSWORD_NAME_MAX} characters.`,
  tooMany: `You have ${MAX_APP_PASSWORDS} app passwords: revoke one you no longer use first.`,
}

export const AppPasswordNameSchema = z
  .string({ error: appPasswordMessages.nameRequired })
  .transform((name) => name.replace(/\s+/g, ' ').trim())
  .pipe(
    z
      .string()
      .min(1, appPasswordMessages.nameRequired)
      .max(APP_PASSWORD_NAME_MAX, appPasswordMessages.nameTooLong)
      .refine((name) => !/[\p{Cc}\p{Cs}]/u.test(name), appPasswordMessages.nameRequired),
  )

export type AppPasswordRow = {
  id: string
  name: string
  hint: string
  createdAt: Date
  lastUsedAt: Date | null
}

/** A new password, in the form the reader types: `xxxx-xxxx-xxxx-xxxx-xxxx`. */
function newSecret(): string {
  const bytes = randomBytes(20)
  const chars = Array.from(bytes, (byte) => alphabet[byte & 31]!).join('')
  return chars.match(/.{4}/g)!.join('-')
}

/** What is hashed: the characters without dashes or spaces, in lower case (apps and people add both). */
function normalize(secret: string): string {
  return secret.toLowerCase().replace(/[\s-]/g, '')
}

const hashOf = (secret: string) => createHash('sha256').update(normalize(secret)).digest('hex')

/** Makes a password named `name` for the reader; the only time its text is known. Null: they have too many. */
export async function createAppPassword(
  db: Db,
  userId: string,
  name: string,
): Promise<{ id: string; password: string } | null> {
  return db.transaction(async (tx) => {
    // One reader's concurrent requests cannot both pass the count.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`app-passwords:${userId}`}, 0))`)
    const [row] = await tx.select({ n: count() }).from(appPasswords).where(eq(appPasswords.userId, userId))
    if ((row?.n ?? 0) >= MAX_APP_PASSWORDS) return null
    const password = newSecret()
    const [created] = await tx
      .insert(appPasswords)
      .values({ userId, name, secretHash: hashOf(password), hint: password.slice(0, 4) })
      .returning({ id: appPasswords.id })
    return { id: created!.id, password }
  })
}

export async function listAppPasswords(db: Db, userId: string): Promise<AppPasswordRow[]> {
  return db
    .select({
      id: appPasswords.id,
      name: appPasswords.name,
      hint: appPasswords.hint,
      createdAt: appPasswords.createdAt,
      lastUsedAt: appPasswords.lastUsedAt,
    })
    .from(appPasswords)
    .where(eq(appPasswords.userId, userId))
    .orderBy(asc(appPasswords.createdAt), asc(appPasswords.id))
}

/** Revokes one of the reader's passwords (another reader's id does nothing); true when there was one. */
export async function revokeAppPassword(db: Db, userId: string, id: string): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return false
  const deleted = await db
    .delete(appPasswords)
    .where(and(eq(appPasswords.id, id), eq(appPasswords.userId, userId)))
    .returning({ id: appPasswords.id })
  return deleted.length > 0
}

/** Every app password of the reader, inside the account deletion's transaction. */
export async function deleteAppPasswordsOf(tx: Transaction, userId: string): Promise<void> {
  await tx.delete(appPasswords).where(eq(appPasswords.userId, userId))
}

export type AppPasswordUser = { id: string; email: string; appPasswordId: string }

/**
 * The reader an email and app password belong to, or null. The password is looked up by its hash and must
 * belong to that email's account, so one reader's password never opens another's library. Its last use is
 * recorded at most once a minute.
 */
export async function verifyAppPassword(
  db: Db,
  email: string,
  password: string,
  now = new Date(),
): Promise<AppPasswordUser | null> {
  if (normalize(password).length !== 20) return null
  const [found] = await db
    .select({ id: user.id, email: user.email, appPasswordId: appPasswords.id })
    .from(appPasswords)
    .innerJoin(user, eq(user.id, appPasswords.userId))
    .where(and(eq(appPasswords.secretHash, hashOf(password)), eq(user.email, email.trim().toLowerCase())))
    .limit(1)
  if (!found) return null
  await db
    .update(appPasswords)
    .set({ lastUsedAt: now })
    .where(
      and(
        eq(appPasswords.id, found.appPasswordId),
        or(isNull(appPasswords.lastUsedAt), lt(appPasswords.lastUsedAt, new Date(now.getTime() - 60_000))),
      ),
    )
  return found
}

/** `Authorization: Basic …` as email and password, or null when the header is missing or not Basic. */
export function basicCredentials(header: string | null): { email: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]{1,1000})\s*$/i.exec(header ?? '')
  if (!match) return null
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 1) return null
  return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}
