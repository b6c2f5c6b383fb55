import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createAuth, type Auth } from '#app/server/auth.server.ts'
import { account, session, user } from '#app/server/db/schema.server.ts'
import { createTestDatabase } from '#tests/db.ts'

let database: Awaited<ReturnType<typeof createTestDatabase>>
let auth: Auth
beforeAll(async () => {
  database = await createTestDatabase()
  auth = createAuth({
    db: database.db,
    secret: 'test-secret-that-is-long-enough-0123456789',
    baseURL: 'http://localhost:3000',
  })
})
afterAll(() => database.dispose())

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

  await expect(auth.api.signInEmail({ body: { email, password: 'wrong horse battery' } })).rejects.toThrow()
  await expect(
    auth.api.signInEmail({ body: { email: 'nobody@example.com', password: 'correct horse battery' } }),
  ).rejects.toThrow()
})

test('passwords outside 8–128 characters are refused', async () => {
  for (const password of ['short', 'x'.repeat(129)]) {
    await expect(
      auth.api.signUpEmail({ body: { email: `len${password.length}@example.com`, password, name: 'x' } }),
    ).rejects.toThrow()
  }
})

test('a guest session is an anonymous user', async () => {
  const response = await auth.api.signInAnonymous({ asResponse: true })
  expect(response.status).toBe(200)
  const guests = await database.db.select().from(user).where(eq(user.isAnonymous, true))
  expect(guests.length).toBe(1)
})
