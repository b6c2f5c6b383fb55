import { eq, sql } from 'drizzle-orm'
import pino from 'pino'
import { afterEach, describe, expect, vi } from 'vitest'
import { addToCart, listCartBookIds, requireUserCart } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { identityMessages } from '#app/features/identity/credentials.ts'
import { loader as rootLoader } from '#app/root.tsx'
import { action as cartAction } from '#app/routes/cart.tsx'
import { action as loginAction, loader as loginLoader } from '#app/routes/login.tsx'
import { action as logoutAction } from '#app/routes/logout.tsx'
import { action as registerAction } from '#app/routes/register.tsx'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { carts, session, user } from '#app/server/db/schema/index.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import { signedInRedirect } from '#app/sign-in.server.ts'
import { createTestDatabase, type TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'

let database: TestDatabase
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  bookIds = (await listBooks(database.db)).map((book) => book.id)
})
afterEach(() => {
  vi.restoreAllMocks()
})

const PASSWORD = 'correct horse battery staple'
let ipCounter = 0
/** Each test posts from its own address, so that the per-IP limits of one test do not touch another. */
const freshIp = () => `198.51.100.${++ipCounter}`

type Outcome = { status: number; body: unknown; setCookies: string[]; location: string | null }

/** Runs an action as a browser would post its form, and reads what it answered (data or a redirect). */
async function post(
  action: (args: ReturnType<typeof routeArgs>) => Promise<unknown>,
  path: string,
  fields: Record<string, string>,
  options: { cookie?: string; clientIp?: string; dataRequest?: boolean; services?: StoreServices } = {},
): Promise<Outcome> {
  const args = routeArgs({
    db: database.db,
    path,
    services: options.services,
    cookie: options.cookie,
    clientIp: options.clientIp ?? freshIp(),
    dataRequest: options.dataRequest,
    init: { method: 'POST', body: new URLSearchParams(fields) },
  })
  const result = await action(args)
  if (result instanceof Response) {
    return {
      status: result.status,
      body: null,
      setCookies: result.headers.getSetCookie(),
      location: result.headers.get('Location'),
    }
  }
  const { data, init } = result as { data: unknown; init?: ResponseInit }
  return { status: init?.status ?? 200, body: data, setCookies: [], location: null }
}

async function rootUser(cookie: string) {
  const data = await rootLoader(routeArgs({ db: database.db, path: '/', cookie }))
  return { user: data.user, cartBookIds: data.cartBookIds }
}

/** The id of the user a session cookie is for. */
async function userIdOf(cookie: string) {
  const found = await servicesFor(database.db).auth.api.getSession({
    headers: new Headers({ Cookie: cookie }),
  })
  if (!found) throw new Error('no session for this cookie')
  return found.user.id
}

async function registered(email: string) {
  const outcome = await post(registerAction, '/Register', { email, password: PASSWORD })
  expect(outcome.status).toBe(303)
  return cookieHeader(outcome.setCookies)
}

describe('register', () => {
  test.each([
    ['an empty email', { email: '', password: PASSWORD }, { email: identityMessages.emailMissing }],
    ['no email field at all', { password: PASSWORD }, { email: identityMessages.emailMissing }],
    ['a malformed email', { email: 'reader@', password: PASSWORD }, { email: identityMessages.emailInvalid }],
    [
      'an empty password',
      { email: 'a@example.com', password: '' },
      { password: identityMessages.passwordMissing },
    ],
    [
      'a short password',
      { email: 'a@example.com', password: 'abc1234' },
      { password: identityMessages.passwordTooShort },
    ],
    [
      'a 129-character password',
      { email: 'a@example.com', password: 'x'.repeat(129) },
      { password: identityMessages.passwordTooLong },
    ],
    [
      'a common password',
      { email: 'a@example.com', password: 'baseball' },
      { password: identityMessages.passwordCommon },
    ],
    [
      'a common password of this decade',
      { email: 'a@example.com', password: 'password123' },
      { password: identityMessages.passwordCommon },
    ],
    [
      'a common password in other case',
      { email: 'a@example.com', password: 'PassWord' },
      { password: identityMessages.passwordCommon },
    ],
  ])('%s is refused with 400 and a message next to the field', async (_, fields, fieldErrors) => {
    const outcome = await post(registerAction, '/Register', fields)
    expect(outcome.status).toBe(400)
    expect(outcome.body).toMatchObject({ fieldErrors })
    expect(JSON.stringify(outcome.body)).not.toContain(fields.password || 'never')
    expect(outcome.setCookies).toEqual([])
  })

  test('success signs the visitor in with an HttpOnly, SameSite=Lax session cookie and lands on /', async () => {
    const outcome = await post(registerAction, '/Register', {
      email: ' New.Reader@Example.com ',
      password: PASSWORD,
    })
    expect(outcome).toMatchObject({ status: 303, location: '/' })
    const sessionCookie = outcome.setCookies.find((cookie) => cookie.startsWith('better-auth.session_token='))
    expect(sessionCookie).toMatch(/HttpOnly/i)
    expect(sessionCookie).toMatch(/SameSite=Lax/i)
    expect(sessionCookie).toMatch(/Max-Age=604800/)
    expect(await rootUser(cookieHeader(outcome.setCookies))).toMatchObject({
      user: { email: 'new.reader@example.com', isGuest: false },
    })
  })

  test('an email already registered (in any case) is refused with its message', async () => {
    await registered('taken@example.com')
    const outcome = await post(registerAction, '/Register', {
      email: 'Taken@example.com',
      password: PASSWORD,
    })
    expect(outcome).toMatchObject({
      status: 409,
      body: { fieldErrors: { email: identityMessages.emailInUse } },
    })
  })

  test('the same email registered twice at once: one account, the other is told it is in use (drill:fuzz)', async () => {
    // Both pass Better Auth's lookup before either inserts: the unique index refuses the second, which
    // used to be answered 503 'could not reach the account service'.
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        post(registerAction, '/Register', { email: 'twice.at.once@example.com', password: PASSWORD }),
      ),
    )
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual([303, 409, 409, 409])
    for (const outcome of outcomes.filter((each) => each.status === 409))
      expect(outcome.body).toMatchObject({ fieldErrors: { email: identityMessages.emailInUse } })
    const accounts = await database.db.select().from(user).where(eq(user.email, 'twice.at.once@example.com'))
    expect(accounts).toHaveLength(1)
  })

  test('a redirectTo on this site is followed; any other is ignored', async () => {
    const going = await post(registerAction, '/Register', {
      email: 'going@example.com',
      password: PASSWORD,
      redirectTo: '/cart',
    })
    expect(going.location).toBe('/cart')
    const evil = await post(registerAction, '/Register', {
      email: 'evil@example.com',
      password: PASSWORD,
      redirectTo: '//evil.example',
    })
    expect(evil.location).toBe('/')
  })
})

describe('login', () => {
  test('an unknown email and a wrong password get the same status and words', async () => {
    await registered('known@example.com')
    const unknown = await post(loginAction, '/login', { email: 'nobody@example.com', password: PASSWORD })
    const wrong = await post(loginAction, '/login', {
      email: 'known@example.com',
      password: 'wrong password!',
    })
    expect(unknown).toEqual({ ...wrong, body: { ...(wrong.body as object), email: 'nobody@example.com' } })
    expect(wrong).toMatchObject({ status: 401, body: { formError: identityMessages.loginFailed } })
    expect(wrong.setCookies).toEqual([])
  })

  test.each([
    ['/AllBooks?page=2', '/AllBooks?page=2'],
    ['//evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/\\evil.example', '/'],
    // Browsers drop tabs and newlines from URLs: '/\t/evil.example' would be '//evil.example'.
    ['/\t/evil.example', '/'],
    // Encoded slashes are not slashes: a path on this site (which has no such page).
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['javascript:alert(1)', '/'],
  ])('success goes to redirectTo %s → %s, with a new session token', async (redirectTo, expected) => {
    const email = `redirect${ipCounter}@example.com`
    const first = await registered(email)
    const outcome = await post(loginAction, '/login', { email, password: PASSWORD, redirectTo })
    expect(outcome).toMatchObject({ status: 303, location: expected })
    const again = cookieHeader(outcome.setCookies)
    expect(again).not.toBe(first)
    expect(await rootUser(again)).toMatchObject({ user: { email } })
  })

  test('a password longer than any account can have fails like a wrong one, and counts as a failed login', async () => {
    const email = 'long.password@example.com'
    await registered(email)
    const ip = freshIp()
    const wrong = await post(loginAction, '/login', { email, password: 'wrong password!' }, { clientIp: ip })
    const signIn = vi.spyOn(servicesFor(database.db).auth.api, 'signInEmail')
    for (const length of [129, 10_000]) {
      const outcome = await post(
        loginAction,
        '/login',
        { email, password: 'x'.repeat(length) },
        { clientIp: ip },
      )
      expect(outcome).toEqual(wrong)
    }
    // Refused before Better Auth (and Argon2id) sees it.
    expect(signIn).not.toHaveBeenCalled()
    for (let attempt = 4; attempt <= 10; attempt++)
      expect(
        (await post(loginAction, '/login', { email, password: 'y'.repeat(200) }, { clientIp: ip })).status,
      ).toBe(401)
    const blocked = await post(loginAction, '/login', { email, password: PASSWORD }, { clientIp: ip })
    expect(blocked.status).toBe(429)
  })

  test('the login page sends a signed-in reader on, and keeps a same-site redirectTo for the form', async () => {
    const cookie = await registered('onward@example.com')
    const thrown = await thrownBy(() => loginLoader(routeArgs({ db: database.db, path: '/login', cookie })))
    expect((thrown as Response).headers.get('Location')).toBe('/')
    const page = await loginLoader(
      routeArgs({ db: database.db, path: '/login?redirectTo=%2F%2Fevil.example' }),
    )
    expect(page.redirectTo).toBeUndefined()
  })

  test('session cookies are Secure with the __Secure- prefix when the store is https', async () => {
    const services = createStoreServices({
      db: database.db,
      env: parseEnv({ BETTER_AUTH_URL: 'https://books.example' }),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: createLogger('silent'),
    })
    const args = routeArgs({
      db: database.db,
      path: '/Register',
      services,
      clientIp: freshIp(),
      init: {
        method: 'POST',
        body: new URLSearchParams({ email: 'secure@example.com', password: PASSWORD }),
      },
    })
    const response = (await registerAction(args)) as Response
    const sessionCookie = response.headers.getSetCookie().find((cookie) => cookie.includes('session_token='))
    expect(sessionCookie).toMatch(/^__Secure-better-auth\.session_token=/)
    expect(sessionCookie).toMatch(/; Secure/i)
    expect(sessionCookie).toMatch(/HttpOnly/i)
    expect(sessionCookie).toMatch(/SameSite=Lax/i)
  })
})

describe('rate limits', () => {
  test('after 10 failed logins for an account from one IP: 429, while the owner logs in from another IP', async () => {
    const email = 'target@example.com'
    await registered(email)
    const attacker = freshIp()
    for (let attempt = 1; attempt <= 10; attempt++) {
      const outcome = await post(
        loginAction,
        '/login',
        { email, password: `guess ${attempt}!` },
        { clientIp: attacker },
      )
      expect(outcome.status).toBe(401)
    }
    const blocked = await post(loginAction, '/login', { email, password: PASSWORD }, { clientIp: attacker })
    expect(blocked).toMatchObject({
      status: 429,
      body: { formError: 'Too many attempts. Try again in 15 minutes.' },
    })
    expect(blocked.setCookies).toEqual([])

    const owner = await post(loginAction, '/login', { email, password: PASSWORD }, { clientIp: freshIp() })
    expect(owner).toMatchObject({ status: 303, location: '/' })
  })

  test('20 wrong logins at once for one account from one IP: exactly 10 are checked (401), 10 refused (429)', async () => {
    const email = 'burst.target@example.com'
    await registered(email)
    const attacker = freshIp()
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, attempt) =>
        post(loginAction, '/login', { email, password: `guess ${attempt}!` }, { clientIp: attacker }),
      ),
    )
    const statuses = outcomes.map((outcome) => outcome.status)
    expect(statuses.filter((status) => status === 401)).toHaveLength(10)
    expect(statuses.filter((status) => status === 429)).toHaveLength(10)
    // The right password is refused too, until the window ends; the owner elsewhere gets in.
    expect(
      (await post(loginAction, '/login', { email, password: PASSWORD }, { clientIp: attacker })).status,
    ).toBe(429)
    expect(
      (await post(loginAction, '/login', { email, password: PASSWORD }, { clientIp: freshIp() })).status,
    ).toBe(303)
  })

  test('a successful login clears the failed ones: the owner who mistyped has 10 tries again', async () => {
    const email = 'mistyped@example.com'
    await registered(email)
    const ip = freshIp()
    const attempt = (password: string) => post(loginAction, '/login', { email, password }, { clientIp: ip })
    for (let n = 1; n <= 9; n++) expect((await attempt(`typo ${n}!`)).status).toBe(401)
    expect((await attempt(PASSWORD)).status).toBe(303)
    for (let n = 1; n <= 10; n++) expect((await attempt(`typo again ${n}!`)).status).toBe(401)
    expect((await attempt(PASSWORD)).status).toBe(429)
  })

  test('past 20 failed logins for one account from any addresses, each attempt waits longer (to 2 s) and is never refused: the owner gets in (issue 28)', async () => {
    const email = 'spread.target@example.com'
    await registered(email)
    const lines: Array<{ msg: string; slowedMs?: number }> = []
    const services = createStoreServices({
      db: database.db,
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
    })
    // Each attempt from an address of its own: the per-address limit (10) never applies.
    const attempt = async (password: string, who = email) => {
      const started = performance.now()
      const outcome = await post(loginAction, '/login', { email: who, password }, { services })
      return { status: outcome.status, ms: performance.now() - started }
    }
    for (let n = 1; n <= 20; n++) expect((await attempt(`guess ${n}!`)).status).toBe(401)
    expect(lines.filter((line) => line.slowedMs !== undefined)).toEqual([])

    for (const waited of [250, 500, 1000, 2000, 2000]) {
      const guess = await attempt('yet another guess!')
      expect(guess.status).toBe(401)
      expect(guess.ms).toBeGreaterThanOrEqual(waited)
    }
    expect(lines.map((line) => line.slowedMs).filter(Boolean)).toEqual([250, 500, 1000, 2000, 2000])
    // Another account is not slowed.
    expect((await attempt('a guess!', 'someone.else@example.com')).status).toBe(401)
    expect(lines.at(-1)?.slowedMs).toBeUndefined()

    // The owner, from yet another address: slowed like anyone (at most 2 s), and let in.
    const owner = await attempt(PASSWORD)
    expect(owner.status).toBe(303)
    expect(owner.ms).toBeGreaterThanOrEqual(2000)
    // The success cleared the count.
    expect((await attempt('a typo!')).status).toBe(401)
    expect(lines.at(-1)?.slowedMs).toBeUndefined()
  })

  test('more than 30 auth posts from one IP in a minute: 429, whatever the form', async () => {
    const ip = freshIp()
    for (let attempt = 1; attempt <= 30; attempt++) {
      const outcome = await post(loginAction, '/login', { email: '', password: '' }, { clientIp: ip })
      expect(outcome.status).toBe(400)
    }
    const blocked = await post(
      registerAction,
      '/Register',
      { email: 'late@example.com', password: PASSWORD },
      { clientIp: ip },
    )
    expect(blocked).toMatchObject({
      status: 429,
      body: { formError: 'Too many attempts. Try again in 1 minute.' },
    })
    expect(
      await post(loginAction, '/login', { email: '', password: '' }, { clientIp: freshIp() }),
    ).toMatchObject({
      status: 400,
    })
  })

  test('sign-ups and guest sessions are limited per IP', async () => {
    const ip = freshIp()
    for (let n = 1; n <= 10; n++) {
      const outcome = await post(
        registerAction,
        '/Register',
        { email: `bulk${n}@example.com`, password: PASSWORD },
        { clientIp: ip },
      )
      expect(outcome.status).toBe(303)
    }
    const eleventh = await post(
      registerAction,
      '/Register',
      { email: 'bulk11@example.com', password: PASSWORD },
      { clientIp: ip },
    )
    expect(eleventh.status).toBe(429)

    const guestIp = freshIp()
    for (let n = 1; n <= 20; n++)
      expect((await post(loginAction, '/login', { intent: 'guest' }, { clientIp: guestIp })).status).toBe(303)
    expect((await post(loginAction, '/login', { intent: 'guest' }, { clientIp: guestIp })).status).toBe(429)
  })
})

describe('guests and carts', () => {
  async function addBook(cookie: string, bookId: string) {
    const outcome = await post(cartAction, '/cart', { intent: 'add', bookId, redirectTo: '/' }, { cookie })
    expect(outcome.status).toBe(303)
    return cookieHeader(outcome.setCookies, cookie)
  }

  test('a guest shops, registers, and keeps the cart; the guest account is gone', async () => {
    const started = await post(loginAction, '/login', { intent: 'guest', redirectTo: '/AllBooks' })
    expect(started).toMatchObject({ status: 303, location: '/AllBooks' })
    let cookie = cookieHeader(started.setCookies)
    expect(await rootUser(cookie)).toMatchObject({ user: { isGuest: true } })
    cookie = await addBook(cookie, bookIds[0]!)
    cookie = await addBook(cookie, bookIds[1]!)
    // No signed cart cookie (the cart is the account's); a one-shot 'added' notice cookie may ride along.
    expect(cookie).not.toMatch(/(^|; )cb_cart=/)

    const guestId = await userIdOf(cookie)
    const outcome = await post(
      registerAction,
      '/Register',
      { email: 'was.guest@example.com', password: PASSWORD },
      { cookie },
    )
    expect(outcome.status).toBe(303)
    const account = await rootUser(cookieHeader(outcome.setCookies, cookie))
    expect(account.user).toEqual({
      email: 'was.guest@example.com',
      isGuest: false,
      isAdmin: false,
      emailVerified: false,
    })
    expect(new Set(account.cartBookIds)).toEqual(new Set([bookIds[0], bookIds[1]]))
    expect(await database.db.select().from(user).where(eq(user.id, guestId))).toHaveLength(0)
  })

  test('a guest who logs in to an existing account keeps the cart: union, no duplicates; the guest is gone', async () => {
    const email = 'guest.then.login@example.com'
    const accountCookie = await registered(email)
    await addBook(accountCookie, bookIds[0]!)
    await addBook(accountCookie, bookIds[2]!)

    const started = await post(loginAction, '/login', { intent: 'guest' })
    let guest = cookieHeader(started.setCookies)
    const guestId = await userIdOf(guest)
    guest = await addBook(guest, bookIds[2]!)
    guest = await addBook(guest, bookIds[3]!)

    const outcome = await post(loginAction, '/login', { email, password: PASSWORD }, { cookie: guest })
    expect(outcome).toMatchObject({ status: 303, location: '/' })
    const after = await rootUser(cookieHeader(outcome.setCookies, guest))
    expect(after.user).toEqual({ email, isGuest: false, isAdmin: false, emailVerified: false })
    expect(after.cartBookIds.toSorted()).toEqual([bookIds[0], bookIds[2], bookIds[3]].toSorted())
    expect(await database.db.select().from(user).where(eq(user.id, guestId))).toHaveLength(0)
    expect(await database.db.select().from(carts).where(eq(carts.userId, guestId))).toHaveLength(0)
  })

  test("an anonymous visitor's cart is merged into the account's at login: union, no duplicates", async () => {
    const email = 'merger@example.com'
    const accountCookie = await registered(email)
    await addBook(accountCookie, bookIds[0]!)
    await addBook(accountCookie, bookIds[2]!)

    let visitor = await addBook('', bookIds[2]!)
    visitor = await addBook(visitor, bookIds[3]!)
    expect(visitor).toContain('cb_cart=')
    const outcome = await post(loginAction, '/login', { email, password: PASSWORD }, { cookie: visitor })
    expect(outcome.status).toBe(303)
    expect(outcome.setCookies.some((cookie) => /^cb_cart=;.*Max-Age=0/.test(cookie))).toBe(true)
    const after = await rootUser(cookieHeader(outcome.setCookies, visitor))
    expect(after.cartBookIds.toSorted()).toEqual([bookIds[0], bookIds[2], bookIds[3]].toSorted())
  })

  test("a guest's cart moves even where Better Auth's link hook does not run", async () => {
    const app = servicesFor(database.db)
    const guest = await app.auth.api.signInAnonymous({ returnHeaders: true, headers: new Headers() })
    const guestUser = guest.response!.user
    await addToCart(database.db, await requireUserCart(database.db, guestUser.id), bookIds[4]!)
    // An account made without the guest's session: Better Auth sees no guest, so its hook is not called.
    const account = await app.auth.api.signUpEmail({
      body: { email: 'nohook@example.com', password: PASSWORD, name: 'x' },
    })
    expect(await database.db.select().from(user).where(eq(user.id, guestUser.id))).toHaveLength(1)

    const args = routeArgs({ db: database.db, path: '/login' })
    await signedInRedirect(
      args.request,
      args.context.get((await import('#app/server/context.server.ts')).appContext),
      {
        result: {
          ok: true,
          userId: account.user.id,
          setCookies: [],
          before: {
            id: guestUser.id,
            email: guestUser.email,
            isGuest: true,
            isAdmin: false,
            emailVerified: false,
            sessionId: 'guest-session',
          },
        },
        redirectTo: null,
      },
    )
    const [accountCart] = await database.db.select().from(carts).where(eq(carts.userId, account.user.id))
    expect(await listCartBookIds(database.db, accountCart!.id)).toEqual([bookIds[4]])
    expect(await database.db.select().from(user).where(eq(user.id, guestUser.id))).toHaveLength(0)
  })
})

describe('logout', () => {
  test('revokes the session on the server, clears the cookie and stays on the page', async () => {
    const cookie = await registered('leaving@example.com')
    const [before] = await database.db
      .select()
      .from(session)
      .innerJoin(user, eq(user.id, session.userId))
      .where(eq(user.email, 'leaving@example.com'))
    const outcome = await post(logoutAction, '/logout', { redirectTo: '/books/django-framework' }, { cookie })
    expect(outcome).toMatchObject({ status: 303, location: '/books/django-framework' })
    expect(outcome.setCookies.some((c) => /session_token=;/.test(c) && /Max-Age=0/i.test(c))).toBe(true)
    expect(await database.db.select().from(session).where(eq(session.id, before!.session.id))).toHaveLength(0)
    // The old cookie, replayed, is worth nothing.
    expect((await rootUser(cookie)).user).toBeNull()
  })

  test.each([
    ['no session cookie', () => Promise.resolve('')],
    ['a forged session cookie', () => Promise.resolve('better-auth.session_token=forged.c2lnbmF0dXJl')],
    [
      'the cookie of a session already ended in another tab',
      async () => {
        const cookie = await registered('two.tabs@example.com')
        expect((await post(logoutAction, '/logout', {}, { cookie })).status).toBe(303)
        return cookie
      },
    ],
  ])('with %s, logging out signs the visitor out quietly', async (_, cookieFor) => {
    const cookie = await cookieFor()
    const errors = vi.spyOn(servicesFor(database.db).logger, 'error')
    const outcome = await post(logoutAction, '/logout', { redirectTo: '/AllBooks' }, { cookie })
    expect(outcome).toMatchObject({ status: 303, location: '/AllBooks' })
    expect(outcome.setCookies.some((c) => /session_token=;/.test(c) && /Max-Age=0/i.test(c))).toBe(true)
    expect(errors).not.toHaveBeenCalled()
  })

  test('when the session cannot be revoked, the visitor is told and stays signed in', async () => {
    const email = 'stuck@example.com'
    const cookie = await registered(email)
    const userId = await userIdOf(cookie)
    // The database is up, but refuses to delete this user's sessions.
    await database.db.execute(
      sql.raw(`create function refuse_session_delete() returns trigger language plpgsql
        as $$ begin raise exception 'session delete refused'; end $$`),
    )
    await database.db.execute(
      sql.raw(`create trigger refuse_session_delete before delete on session for each row
        when (old.user_id = '${userId}') execute function refuse_session_delete()`),
    )
    try {
      const errors = vi.spyOn(servicesFor(database.db).logger, 'error')
      const result = (await logoutAction(
        routeArgs({
          db: database.db,
          path: '/logout',
          cookie,
          clientIp: freshIp(),
          init: { method: 'POST', body: new URLSearchParams({ redirectTo: '/' }) },
        }),
      )) as { data: unknown; init: ResponseInit }
      expect(result.init.status).toBe(503)
      expect(result.data).toEqual({ error: identityMessages.logoutFailed })
      expect(errors).toHaveBeenCalledWith(expect.anything(), 'logout failed')
      expect((await rootUser(cookie)).user).toMatchObject({ email })
    } finally {
      await database.db.execute(sql.raw('drop trigger refuse_session_delete on session'))
      await database.db.execute(sql.raw('drop function refuse_session_delete()'))
    }
  })

  test('once the session is revoked, a failure to clear its cookie does not tell the visitor otherwise', async () => {
    const cookie = await registered('half.out@example.com')
    const app = servicesFor(database.db)
    vi.spyOn(app.auth.api, 'signOut').mockRejectedValueOnce(new Error('cookies unavailable'))
    const outcome = await post(logoutAction, '/logout', { redirectTo: '/AllBooks' }, { cookie })
    expect(outcome).toMatchObject({ status: 303, location: '/AllBooks' })
    expect((await rootUser(cookie)).user).toBeNull()
  })
})

describe('a database outage', () => {
  test('a visitor with a session cookie is told the service is down by login, guest start and register', async () => {
    const broken = await createTestDatabase()
    const signedUp = await servicesFor(broken.db).auth.api.signUpEmail({
      body: { email: 'outage@example.com', password: PASSWORD, name: 'x' },
      returnHeaders: true,
    })
    const cookie = cookieHeader(signedUp.headers.getSetCookie())
    await broken.dispose()
    const attempt = async (
      action: typeof loginAction | typeof registerAction,
      path: string,
      fields: Record<string, string>,
    ) =>
      (await action(
        routeArgs({
          db: broken.db,
          path,
          cookie,
          init: { method: 'POST', body: new URLSearchParams(fields) },
        }),
      )) as { data: unknown; init: ResponseInit }
    for (const result of [
      await attempt(loginAction, '/login', { email: 'outage@example.com', password: PASSWORD }),
      await attempt(loginAction, '/login', { intent: 'guest' }),
      await attempt(registerAction, '/Register', { email: 'new@example.com', password: PASSWORD }),
    ]) {
      expect(result.init.status).toBe(503)
      expect(result.data).toMatchObject({ formError: identityMessages.serviceDown })
    }
  })

  test('every page tells a visitor with a session cookie that the store is unavailable (503), not a 500', async () => {
    const broken = await createTestDatabase()
    const signedUp = await servicesFor(broken.db).auth.api.signUpEmail({
      body: { email: 'outage-page@example.com', password: PASSWORD, name: 'x' },
      returnHeaders: true,
    })
    const cookie = cookieHeader(signedUp.headers.getSetCookie())
    await broken.dispose()
    const thrown = await thrownBy(() => rootLoader(routeArgs({ db: broken.db, path: '/AllBooks', cookie })))
    expect(thrown).toMatchObject({
      init: { status: 503, headers: { 'Retry-After': '10' } },
      data: { title: 'CodeBook is temporarily unavailable' },
    })
  })
})

test('guests long gone are deleted with their carts; a guest with a live session stays', async () => {
  const { deleteIdleGuests } = await import('#app/features/identity/account.server.ts')
  const app = servicesFor(database.db)
  const guest = await app.auth.api.signInAnonymous({ returnHeaders: true, headers: new Headers() })
  const guestId = guest.response!.user.id
  await requireUserCart(database.db, guestId)
  const day = 24 * 60 * 60 * 1000
  await database.db
    .update(user)
    .set({ createdAt: new Date(Date.now() - 40 * day) })
    .where(eq(user.id, guestId))
  const exists = async () => (await database.db.select().from(user).where(eq(user.id, guestId))).length
  // Created 40 days ago but still signed in (the session lasts 7 days): kept.
  await deleteIdleGuests(database.db, new Date())
  expect(await exists()).toBe(1)
  // Once the session has expired: deleted, and the cart with it.
  await deleteIdleGuests(database.db, new Date(Date.now() + 8 * day))
  expect(await exists()).toBe(0)
  expect(await database.db.select().from(carts).where(eq(carts.userId, guestId))).toHaveLength(0)
})

test('a session in use is renewed for 7 more days once a day (sliding expiry), through the root middleware', async () => {
  const { sessionCookieMiddleware } = await import('#app/features/identity/session.server.ts')
  const cookie = await registered('sliding@example.com')
  const [row] = await database.db
    .select({ id: session.id })
    .from(session)
    .innerJoin(user, eq(user.id, session.userId))
    .where(eq(user.email, 'sliding@example.com'))
  const day = 24 * 60 * 60 * 1000
  // Last renewed two days ago: five days left.
  await database.db
    .update(session)
    .set({ expiresAt: new Date(Date.now() + 5 * day), updatedAt: new Date(Date.now() - 2 * day) })
    .where(eq(session.id, row!.id))

  const args = routeArgs({ db: database.db, path: '/', cookie })
  const response = (await sessionCookieMiddleware({ ...args, params: {} }, async () => {
    const page = await rootLoader(args)
    expect(page.user?.email).toBe('sliding@example.com')
    return new Response('page')
  })) as Response
  expect(response.headers.get('Cache-Control')).toBe('private, no-store')
  const renewed = response.headers.getSetCookie().find((header) => header.includes('session_token='))
  expect(renewed).toMatch(/Max-Age=604800/)
  const [after] = await database.db.select().from(session).where(eq(session.id, row!.id))
  expect(Math.abs(after!.expiresAt.getTime() - (Date.now() + 7 * day))).toBeLessThan(60_000)
})
