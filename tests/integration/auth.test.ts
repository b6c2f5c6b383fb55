import { Writable } from 'node:stream'
import { eq } from 'drizzle-orm'
import pino from 'pino'
import { afterEach, expect, vi } from 'vitest'
import { action as loginAction } from '#app/routes/login.tsx'
import { createAuth, type Auth } from '#app/server/auth.server.ts'
import { account, session, user } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { hashPassword, verifyPassword } from '#app/server/password.server.ts'
import type * as passwords from '#app/server/password.server.ts'
import { createStoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'

// Our Argon2id functions, watched: what Better Auth does with a password is what decides a login's time.
vi.mock('#app/server/password.server.ts', async (importOriginal) => {
  const original = await importOriginal<typeof passwords>()
  return {
    ...original,
    hashPassword: vi.fn(original.hashPassword),
    verifyPassword: vi.fn(original.verifyPassword),
  }
})

let database: TestDatabase
let auth: Auth
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  auth = createAuth({
    db: database.db,
    secret: 'test-secret-that-is-long-enough-0123456789',
    baseURL: 'http://localhost:3000',
  })
})
afterEach(() => {
  vi.clearAllMocks()
})

/** What Better Auth throws for a wrong password and for an unknown email alike. */
const invalidEmailOrPassword = {
  name: 'APIError',
  statusCode: 401,
  body: { code: 'INVALID_EMAIL_OR_PASSWORD' },
}

test('Better Auth works on our schema: sign-up stores an Argon2id hash, sign-in checks it', async () => {
  const email = 'reader@example.com'
  const signedUp = await auth.api.signUpEmail({
    body: { email, password: 'correct horse battery', name: email },
  })
  expect(signedUp.user.email).toBe(email)
  const [stored] = await database.db.select().from(user).where(eq(user.email, email))
  expect(stored).toMatchObject({ email, isAnonymous: false, emailVerified: false })
  const [credentials] = await database.db.select().from(account).where(eq(account.userId, stored!.id))
  expect(credentials?.providerId).toBe('credential')
  expect(credentials?.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)

  const signedIn = await auth.api.signInEmail({ body: { email, password: 'correct horse battery' } })
  expect(signedIn.user.id).toBe(stored!.id)
  const sessions = await database.db.select().from(session).where(eq(session.userId, stored!.id))
  expect(sessions.length).toBe(2)
  const week = 7 * 24 * 60 * 60 * 1000
  for (const row of sessions)
    expect(Math.abs(row.expiresAt.getTime() - Date.now() - week)).toBeLessThan(60_000)

  await expect(
    auth.api.signInEmail({ body: { email, password: 'wrong horse battery' } }),
  ).rejects.toMatchObject(invalidEmailOrPassword)
  await expect(
    auth.api.signInEmail({ body: { email: 'nobody@example.com', password: 'correct horse battery' } }),
  ).rejects.toMatchObject(invalidEmailOrPassword)
})

test('passwords outside 8–128 characters are refused', async () => {
  for (const [password, code] of [
    ['short', 'PASSWORD_TOO_SHORT'],
    ['x'.repeat(129), 'PASSWORD_TOO_LONG'],
  ] as const) {
    await expect(
      auth.api.signUpEmail({ body: { email: `len${password.length}@example.com`, password, name: 'x' } }),
    ).rejects.toMatchObject({ name: 'APIError', statusCode: 400, body: { code } })
  }
})

test('a guest session is an anonymous user', async () => {
  const response = await auth.api.signInAnonymous({ asResponse: true })
  expect(response.status).toBe(200)
  const guests = await database.db.select().from(user).where(eq(user.isAnonymous, true))
  expect(guests.length).toBe(1)
})

/** The store's services on this test's database, logging every level as JSON lines into `lines`. */
function servicesLoggingTo(lines: Record<string, unknown>[]) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return createStoreServices({
    db: database.db,
    env: parseEnv({}),
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: pino({ level: 'debug' }, stream),
  })
}

let address = 0
async function logIn(services: ReturnType<typeof createStoreServices>, email: string, password: string) {
  return loginAction(
    routeArgs({
      db: database.db,
      path: '/login',
      services,
      clientIp: `203.0.113.${++address}`,
      init: { method: 'POST', body: new URLSearchParams({ email, password }) },
    }),
  )
}

test('an unknown email costs one Argon2id hash of the password typed, as a wrong password costs one verify', async () => {
  const services = servicesLoggingTo([])
  await services.auth.api.signUpEmail({
    body: { email: 'timing@example.com', password: 'correct horse battery', name: 'x' },
  })
  vi.clearAllMocks()
  await logIn(services, 'nobody.at.all@example.com', 'a guess at a password')
  expect(vi.mocked(hashPassword).mock.calls).toEqual([['a guess at a password']])
  expect(verifyPassword).not.toHaveBeenCalled()

  vi.clearAllMocks()
  await logIn(services, 'timing@example.com', 'a guess at a password')
  expect(hashPassword).not.toHaveBeenCalled()
  expect(vi.mocked(verifyPassword).mock.calls).toEqual([
    [expect.objectContaining({ password: 'a guess at a password' })],
  ])
})

test('a failed login leaves no email in the log, and the same lines for an unknown email and a wrong password', async () => {
  const lines: Record<string, unknown>[] = []
  const services = servicesLoggingTo(lines)
  await services.auth.api.signUpEmail({
    body: { email: 'logged@example.com', password: 'correct horse battery', name: 'x' },
  })
  const logged = async (email: string) => {
    lines.length = 0
    const result = (await logIn(services, email, 'not the password')) as { init: ResponseInit }
    expect(result.init.status).toBe(401)
    expect(JSON.stringify(lines)).not.toMatch(/logged|unknown\.visitor|@example\.com/)
    return lines.map(({ level, msg }) => ({ level, msg }))
  }
  const unknownEmail = await logged('unknown.visitor@example.com')
  const wrongPassword = await logged('logged@example.com')
  expect(unknownEmail).toEqual(wrongPassword)
  expect(wrongPassword).toEqual([{ level: 30, msg: 'login failed' }])
})

test("Better Auth's own messages reach the log without a failed login's words or an email address", async () => {
  const lines: Record<string, unknown>[] = []
  const { auth } = servicesLoggingTo(lines)
  const { logger } = await auth.$context
  // What an upstream version logging failed logins at error level, with the email, would say.
  logger.error('User not found', { email: 'someone@example.com' })
  logger.error('Invalid password', { email: 'someone@example.com' })
  logger.error('Failed to delete session from database', new Error('no row for someone@example.com'))
  logger.error('Failed to update user someone@example.com', {
    user: { email: 'someone@example.com', id: 'u1' },
  })
  expect(JSON.stringify(lines)).not.toContain('someone@example.com')
  expect(lines.map(({ msg }) => msg)).toEqual([
    'better-auth: Failed to delete session from database',
    'better-auth: Failed to update user [email]',
  ])
  expect(lines[0]).toMatchObject({
    level: 50,
    err: { message: 'no row for [email]', stack: expect.any(String) },
  })
  expect(lines[1]).toMatchObject({ args: [{ user: { email: '[email]', id: 'u1' } }] })
})
