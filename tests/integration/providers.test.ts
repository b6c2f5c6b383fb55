import { eq } from 'drizzle-orm'
import { afterAll, describe, expect } from 'vitest'
import { addToCart, listCartBookIds, requireUserCart } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { action as deleteAction } from '#app/routes/account-delete.tsx'
import { action as loginAction, loader as loginLoader } from '#app/routes/login.tsx'
import { loader as callbackLoader } from '#app/routes/auth-callback.ts'
import { createAuth, signInProvidersOf } from '#app/server/auth.server.ts'
import { account, carts, session, user } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { createGuestCookie, createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from '#tests/oidc-provider.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

const STORE = 'http://localhost:3000'

let database: TestDatabase
let oidc: TestOidcProvider
let services: StoreServices
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  bookIds = (await listBooks(database.db)).map((book) => book.id)
  oidc = await startOidcProvider({ redirectUris: [`${STORE}/api/auth/callback/oidc`] })
  services = createStoreServices({
    db: database.db,
    env: parseEnv({
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      OIDC_NAME: 'Test ID',
    }),
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
  })
})
afterAll(async () => {
  await oidc?.close()
})

let ipCounter = 0
const freshIp = () => `203.0.113.${++ipCounter}`

/**
 * The whole round trip as a browser without JavaScript makes it: 'Sign in with Test ID' posted on /login,
 * the provider's login and consent pages, then the store's callback. Returns where the store sent the
 * browser and the cookies it then holds.
 */
async function signInWithProvider(
  login: string,
  options: { cookie?: string; deny?: boolean; dropStateCookie?: boolean } = {},
) {
  const clientIp = freshIp()
  const started = (await loginAction(
    routeArgs({
      db: database.db,
      services,
      path: '/login',
      cookie: options.cookie,
      clientIp,
      init: {
        method: 'POST',
        body: new URLSearchParams({ intent: 'provider', provider: 'oidc', redirectTo: '/cart' }),
      },
    }),
  )) as Response
  expect(started.status).toBe(303)
  const authorizationUrl = started.headers.get('Location')!
  expect(authorizationUrl.startsWith(`${oidc.issuer}/`)).toBe(true)
  let cookie = cookieHeader(
    started.headers
      .getSetCookie()
      .filter((header) => !(options.dropStateCookie && /^better-auth\.state=/.test(header))),
    options.cookie ?? '',
  )
  const back = await signInAtProvider(authorizationUrl, { login, deny: options.deny })
  expect(`${back.origin}${back.pathname}`).toBe(`${STORE}/api/auth/callback/oidc`)
  const answer = await callbackLoader(
    routeArgs({
      db: database.db,
      services,
      path: `${back.pathname}${back.search}`,
      cookie,
      clientIp,
      params: { provider: 'oidc' },
    }),
  )
  cookie = cookieHeader(answer, cookie)
  return { status: answer.status, location: new URL(answer.headers.get('Location')!, STORE), cookie }
}

async function whoIs(cookie: string) {
  const found = await services.auth.api.getSession({ headers: new Headers({ Cookie: cookie }) })
  return found?.user ?? null
}

describe('signing in with an OpenID Connect provider (a real oidc-provider on 127.0.0.1)', () => {
  test('the first sign-in creates the account, with the provider linked and no password', async () => {
    oidc.accounts.set('ada', { email: 'ada@example.com', emailVerified: true, name: 'Ada' })
    const signedIn = await signInWithProvider('ada')
    expect(signedIn.status).toBe(302)
    expect(signedIn.location.pathname).toBe('/cart')
    const who = await whoIs(signedIn.cookie)
    expect(who?.email).toBe('ada@example.com')
    const links = await database.db
      .select({ providerId: account.providerId, accountId: account.accountId, password: account.password })
      .from(account)
      .where(eq(account.userId, who!.id))
    expect(links).toEqual([{ providerId: 'oidc', accountId: 'ada', password: null }])
    // A second sign-in finds the same account.
    const again = await signInWithProvider('ada')
    expect((await whoIs(again.cookie))?.id).toBe(who!.id)
  })

  test('a sign-in with the email of an existing, verified account links the provider to it', async () => {
    const reader = await createReader(database.db)
    await database.db.update(user).set({ emailVerified: true }).where(eq(user.id, reader.userId))
    oidc.accounts.set('grace', { email: reader.email, emailVerified: true, name: 'Grace' })
    const signedIn = await signInWithProvider('grace')
    expect((await whoIs(signedIn.cookie))?.id).toBe(reader.userId)
    const providers = await database.db
      .select({ providerId: account.providerId })
      .from(account)
      .where(eq(account.userId, reader.userId))
    expect(providers.map((row) => row.providerId).sort()).toEqual(['credential', 'oidc'])
  })

  test('an existing account whose email is not verified is not taken over: the login page says why', async () => {
    const reader = await createReader(database.db)
    oidc.accounts.set('mallory', { email: reader.email, emailVerified: true, name: 'Mallory' })
    const refused = await signInWithProvider('mallory')
    expect(refused.location.pathname).toBe('/login')
    expect(refused.location.searchParams.get('error')).toBe('account_not_linked')
    expect(await whoIs(refused.cookie)).toBeNull()
    const providers = await database.db
      .select({ providerId: account.providerId })
      .from(account)
      .where(eq(account.userId, reader.userId))
    expect(providers.map((row) => row.providerId)).toEqual(['credential'])
    const page = await loginLoader(
      routeArgs({
        db: database.db,
        services,
        path: `${refused.location.pathname}${refused.location.search}`,
      }),
    )
    expect(page.providerError).toMatch(/already exists.*log in with your password/i)
  })

  test('nor is one the provider has not verified the email of', async () => {
    const reader = await createReader(database.db)
    await database.db.update(user).set({ emailVerified: true }).where(eq(user.id, reader.userId))
    oidc.accounts.set('eve', { email: reader.email, emailVerified: false, name: 'Eve' })
    const refused = await signInWithProvider('eve')
    expect(refused.location.searchParams.get('error')).toBe('account_not_linked')
    expect(await whoIs(refused.cookie)).toBeNull()
  })

  test("a guest's cart follows them into the account they sign in to, and the guest goes", async () => {
    const guestCookie = await createGuestCookie(servicesFor(database.db).db)
    const guest = await whoIs(guestCookie)
    const guestCart = await requireUserCart(database.db, guest!.id)
    await addToCart(database.db, guestCart, bookIds[0]!)
    await addToCart(database.db, guestCart, bookIds[1]!)
    oidc.accounts.set('linus', { email: 'linus@example.com', emailVerified: true, name: 'Linus' })
    const signedIn = await signInWithProvider('linus', { cookie: guestCookie })
    const who = await whoIs(signedIn.cookie)
    expect(who?.email).toBe('linus@example.com')
    const [cart] = await database.db.select({ id: carts.id }).from(carts).where(eq(carts.userId, who!.id))
    expect((await listCartBookIds(database.db, cart!.id)).sort()).toEqual([bookIds[0], bookIds[1]].sort())
    expect(await database.db.select().from(user).where(eq(user.id, guest!.id))).toEqual([])
  })

  test('a denied consent returns to the login page with a message, signed out', async () => {
    oidc.accounts.set('bob', { email: 'bob@example.com', emailVerified: true, name: 'Bob' })
    const denied = await signInWithProvider('bob', { deny: true })
    expect(denied.location.pathname).toBe('/login')
    expect(denied.location.searchParams.get('error')).toBe('access_denied')
    expect(await whoIs(denied.cookie)).toBeNull()
    const page = await loginLoader(
      routeArgs({ db: database.db, services, path: `${denied.location.pathname}${denied.location.search}` }),
    )
    expect(page.providerError).toBe(
      'You did not allow CodeBook to use that account, so you are not signed in.',
    )
    expect(await database.db.select().from(user).where(eq(user.email, 'bob@example.com'))).toEqual([])
  })

  test('a callback that reaches another browser than the one that started it signs nobody in (login CSRF)', async () => {
    oidc.accounts.set('trudy', { email: 'trudy@example.com', emailVerified: true, name: 'Trudy' })
    const replayed = await signInWithProvider('trudy', { dropStateCookie: true })
    expect(replayed.location.pathname).toBe('/login')
    expect(replayed.location.searchParams.get('error')).toBe('state_mismatch')
    expect(await whoIs(replayed.cookie)).toBeNull()
  })

  test('a callback whose state the store did not issue signs nobody in', async () => {
    const answer = await callbackLoader(
      routeArgs({
        db: database.db,
        services,
        path: '/api/auth/callback/oidc?code=forged&state=forged',
        params: { provider: 'oidc' },
      }),
    )
    expect(answer.status).toBe(302)
    const location = new URL(answer.headers.get('Location')!, STORE)
    expect(location.pathname).toBe('/login')
    expect(location.searchParams.get('error')).toBeTruthy()
    expect(answer.headers.getSetCookie().some((cookie) => /session_token=[^;]/.test(cookie))).toBe(false)
  })
})

describe('deleting an account that signs in only with a provider', () => {
  test('confirmed by a sign-in within 10 minutes; an older session must sign in again first', async () => {
    oidc.accounts.set('kay', { email: 'kay@example.com', emailVerified: true, name: 'Kay' })
    const signedIn = await signInWithProvider('kay')
    const who = (await whoIs(signedIn.cookie))!
    const post = () =>
      deleteAction(
        routeArgs({
          db: database.db,
          services,
          path: '/account/delete',
          cookie: signedIn.cookie,
          init: { method: 'POST', body: new URLSearchParams({ intent: 'delete' }) },
        }),
      )
    await database.db
      .update(session)
      .set({ createdAt: new Date(Date.now() - 11 * 60 * 1000) })
      .where(eq(session.userId, who.id))
    const stale = (await post()) as { data: { formError?: string }; init?: ResponseInit }
    expect(stale.init?.status).toBe(400)
    expect(stale.data.formError).toMatch(/sign in again with your provider/)
    // 'Sign in again with Test ID' on the delete page: the provider, then back to the delete page.
    const reauth = (await deleteAction(
      routeArgs({
        db: database.db,
        services,
        path: '/account/delete',
        cookie: signedIn.cookie,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'reauth', provider: 'oidc' }) },
      }),
    )) as Response
    expect(reauth.status).toBe(303)
    const back = await signInAtProvider(reauth.headers.get('Location')!, { login: 'kay' })
    const callback = await callbackLoader(
      routeArgs({
        db: database.db,
        services,
        path: `${back.pathname}${back.search}`,
        cookie: cookieHeader(reauth, signedIn.cookie),
        params: { provider: 'oidc' },
      }),
    )
    expect(new URL(callback.headers.get('Location')!, STORE).pathname).toBe('/account/delete')
    const freshCookie = cookieHeader(callback, signedIn.cookie)
    expect((await whoIs(freshCookie))?.id).toBe(who.id)
    const deleted = (await deleteAction(
      routeArgs({
        db: database.db,
        services,
        path: '/account/delete',
        cookie: freshCookie,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'delete' }) },
      }),
    )) as Response
    expect(deleted.status).toBe(303)
    const [tombstone] = await database.db.select().from(user).where(eq(user.id, who.id))
    expect(tombstone?.email).toBe(`deleted-${who.id}@invalid`)
    // Signing in with the provider again makes a new, empty account: the old one is not found by its link.
    const fresh = await signInWithProvider('kay')
    expect((await whoIs(fresh.cookie))?.id).not.toBe(who.id)
  })
})

describe('provider buttons and configuration', () => {
  test('the login page offers only the configured providers', async () => {
    const configured = await loginLoader(routeArgs({ db: database.db, services, path: '/login' }))
    expect(configured.providers).toEqual([{ id: 'oidc', name: 'Test ID' }])
    const plain = await loginLoader(routeArgs({ db: database.db, path: '/login' }))
    expect(plain.providers).toEqual([])
  })

  test('an unconfigured provider cannot be started, nor its callback reached', async () => {
    const refused = await loginAction(
      routeArgs({
        db: database.db,
        path: '/login',
        clientIp: freshIp(),
        init: { method: 'POST', body: new URLSearchParams({ intent: 'provider', provider: 'github' }) },
      }),
    )
    expect(refused).toMatchObject({ init: { status: 400 } })
    const missing = await thrownBy(() =>
      callbackLoader(
        routeArgs({ db: database.db, path: '/api/auth/callback/github', params: { provider: 'github' } }),
      ),
    )
    expect(missing).toMatchObject({ init: { status: 404 } })
  })

  test('GitHub is configured with both variables or neither (it cannot be reached from here: config only)', async () => {
    expect(() => parseEnv({ GITHUB_CLIENT_ID: 'abc' })).toThrow(/GITHUB_CLIENT_ID, GITHUB_CLIENT_SECRET/)
    expect(() => parseEnv({ OIDC_ISSUER: 'https://id.example' })).toThrow(/OIDC_ISSUER, OIDC_CLIENT_ID/)
    const env = parseEnv({ GITHUB_CLIENT_ID: 'Iv1.abc', GITHUB_CLIENT_SECRET: 'shh' })
    expect(signInProvidersOf(env)).toEqual({
      github: { clientId: 'Iv1.abc', clientSecret: 'shh' },
      oidc: undefined,
    })
    const auth = createAuth({
      db: database.db,
      secret: 'test-secret-that-is-long-enough-0123456789',
      baseURL: STORE,
      providers: signInProvidersOf(env),
      logger: createLogger('silent'),
    })
    // Better Auth builds GitHub's authorization URL with our client id and callback.
    const { response } = await auth.api.signInSocial({
      body: { provider: 'github', callbackURL: '/', disableRedirect: true },
      returnHeaders: true,
    })
    const url = new URL((response as { url: string }).url)
    expect(`${url.origin}${url.pathname}`).toBe('https://github.com/login/oauth/authorize')
    expect(url.searchParams.get('client_id')).toBe('Iv1.abc')
    expect(url.searchParams.get('redirect_uri')).toBe(`${STORE}/api/auth/callback/github`)
    expect(url.searchParams.get('scope')).toContain('user:email')
    expect(url.searchParams.get('state')).toBeTruthy()
  })
})
