import { eq, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { commandLineActor } from '#app/features/admin/audit.server.ts'
import { setRole } from '#app/features/admin/roles.server.ts'
import { loader as rootLoader } from '#app/root.tsx'
import { action as accountAction } from '#app/routes/account.tsx'
import { action as deleteAction } from '#app/routes/account-delete.tsx'
import { action as loginAction } from '#app/routes/login.tsx'
import { action as logoutAction } from '#app/routes/logout.tsx'
import { session } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { createReader, testPassword } from '#harness/factories/buyers.ts'
import { routeArgs } from '#tests/route-args.ts'

/**
 * Decision 021: a signed-in visitor's session is answered from memory for SESSION_CACHE_SECONDS. Every way a
 * session stops being valid must still work: at once on the instance that did it, within the TTL elsewhere.
 * The TTL is short here (0.5 s) so that the bound itself is tested.
 */
const TTL_SECONDS = 0.5

let database: TestDatabase
/** One store instance: its own services and session cache, as server/http.ts makes them. */
let store: StoreServices
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  store = createStoreServices({
    db: database.db,
    env: parseEnv({ SESSION_CACHE_SECONDS: String(TTL_SECONDS) }),
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
  })
})

let ipCounter = 0
const freshIp = () => `198.51.100.${++ipCounter}`

/** Who the root loader (every page) says is visiting with this cookie, on this instance. */
async function visitor(cookie: string) {
  const root = (await rootLoader(routeArgs({ db: database.db, path: '/', cookie, services: store }))) as {
    user: { email: string; isAdmin: boolean } | null
  }
  return root.user
}

/** Posts a form to an action on this instance; a thrown redirect is an answer like any other. */
async function post(
  action: (args: ReturnType<typeof routeArgs>) => Promise<unknown>,
  path: string,
  cookie: string,
  fields: Record<string, string>,
) {
  const args = routeArgs({
    db: database.db,
    path,
    cookie,
    services: store,
    clientIp: freshIp(),
    init: { method: 'POST', body: new URLSearchParams(fields) },
  })
  return action(args).catch((thrown: unknown) => thrown)
}

/** A second browser of the same reader: a new session through the login form. */
async function logIn(email: string): Promise<string> {
  const answer = (await post(loginAction, '/login', '', { email, password: testPassword })) as Response
  expect(answer.status).toBe(303)
  return cookieHeader(answer)
}

const afterTtl = () => new Promise((resolve) => setTimeout(resolve, TTL_SECONDS * 1000 + 100))

describe('the session cache', () => {
  test('answers from memory within the TTL: a revocation made elsewhere is seen within it, not later', async () => {
    const reader = await createReader(database.db)
    expect(await visitor(reader.cookie)).toMatchObject({ email: reader.email })
    // Another instance (or a script) deletes the session: no hook of this process hears of it.
    await database.db.execute(sql`delete from ${session} where ${session.userId} = ${reader.userId}`)
    expect(await visitor(reader.cookie)).toMatchObject({ email: reader.email })
    await afterTtl()
    expect(await visitor(reader.cookie)).toBeNull()
  })

  test('a remembered session does not make an altered cookie valid', async () => {
    const reader = await createReader(database.db)
    expect(await visitor(reader.cookie)).not.toBeNull()
    const [name, value] = reader.cookie.split('=') as [string, string]
    const [token] = decodeURIComponent(value).split('.')
    expect(await visitor(`${name}=${encodeURIComponent(`${token}.forged-signature`)}`)).toBeNull()
    expect(await visitor(`${name}=${token}`)).toBeNull()
  })

  test('logging out: the cookie stops working at once on this instance', async () => {
    const reader = await createReader(database.db)
    expect(await visitor(reader.cookie)).not.toBeNull()
    const answer = (await post(logoutAction, '/logout', reader.cookie, {})) as Response
    expect(answer.status).toBe(303)
    expect(await visitor(reader.cookie)).toBeNull()
  })

  test("a password change signs the reader's other browsers out at once", async () => {
    const reader = await createReader(database.db)
    const other = await logIn(reader.email)
    expect(await visitor(other)).not.toBeNull()
    const answer = await post(accountAction, '/account', reader.cookie, {
      intent: 'change-password',
      currentPassword: testPassword,
      newPassword: 'a brand new passphrase',
    })
    expect((answer as Response).headers.get('Location')).toBe('/account?passwordChanged=1')
    expect(await visitor(other)).toBeNull()
  })

  test("'sign out everywhere else' and signing one session out in /account work at once", async () => {
    const reader = await createReader(database.db)
    const second = await logIn(reader.email)
    const third = await logIn(reader.email)
    for (const cookie of [reader.cookie, second, third]) expect(await visitor(cookie)).not.toBeNull()

    const [secondSession] = await database.db
      .select({ id: session.id })
      .from(session)
      .where(eq(session.token, decodeURIComponent(second.split('=')[1]!).split('.')[0]!))
    await post(accountAction, '/account', reader.cookie, {
      intent: 'revoke-session',
      sessionId: secondSession!.id,
    })
    expect(await visitor(second)).toBeNull()
    expect(await visitor(third)).not.toBeNull()

    await post(accountAction, '/account', reader.cookie, { intent: 'revoke-other-sessions' })
    expect(await visitor(third)).toBeNull()
    expect(await visitor(reader.cookie)).toMatchObject({ email: reader.email })
  })

  test('deleting the account signs out every browser at once', async () => {
    const reader = await createReader(database.db)
    const other = await logIn(reader.email)
    expect(await visitor(other)).not.toBeNull()
    const answer = (await post(deleteAction, '/account/delete', reader.cookie, {
      intent: 'delete',
      password: testPassword,
    })) as Response
    expect(answer.status).toBe(303)
    expect(await visitor(reader.cookie)).toBeNull()
    expect(await visitor(other)).toBeNull()
  })

  test("revoking an admin's role takes effect at once in this process, within the TTL in another", async () => {
    const reader = await createReader(database.db, { confirmed: true })
    await setRole(database.db, reader.email, 'admin', commandLineActor)
    expect(await visitor(reader.cookie)).toMatchObject({ isAdmin: true })
    await setRole(database.db, reader.email, 'customer', commandLineActor)
    expect(await visitor(reader.cookie)).toMatchObject({ isAdmin: false })

    // `npm run admin` is another process: its change is plain SQL as far as this one knows.
    await setRole(database.db, reader.email, 'admin', commandLineActor)
    expect(await visitor(reader.cookie)).toMatchObject({ isAdmin: true })
    await database.db.execute(sql`update "user" set role = 'customer' where id = ${reader.userId}`)
    await afterTtl()
    expect(await visitor(reader.cookie)).toMatchObject({ isAdmin: false })
  })
})
