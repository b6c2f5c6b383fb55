import { betterAuth } from 'better-auth'
import { drizzleAdapter } from 'better-auth/adapters/drizzle'
import { anonymous } from 'better-auth/plugins/anonymous'
import type { Db } from './db/database.server.ts'
import { account, session, user, verification } from './db/schema.server.ts'
import { hashPassword, verifyPassword } from './password.server.ts'

const SEVEN_DAYS = 7 * 24 * 60 * 60

/**
 * The store's identity service: Better Auth on our own database and schema (its tables are in
 * schema.server.ts, migrated with everything else), email + password hashed with Argon2id (decision 006),
 * and anonymous guest sessions. Sessions last 7 days, renewed daily while used.
 *
 * Not mounted over HTTP yet: the identity issue adds the forms and actions that call `auth.api.*`, with our
 * own database-backed rate limits in front.
 */
export function createAuth(options: { db: Db; secret: string; baseURL: string }) {
  return betterAuth({
    database: drizzleAdapter(options.db, {
      provider: 'pg',
      schema: { user, session, account, verification },
    }),
    secret: options.secret,
    baseURL: options.baseURL,
    emailAndPassword: {
      enabled: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      password: { hash: hashPassword, verify: verifyPassword },
    },
    session: { expiresIn: SEVEN_DAYS, updateAge: 24 * 60 * 60 },
    plugins: [anonymous()],
  })
}

export type Auth = ReturnType<typeof createAuth>
