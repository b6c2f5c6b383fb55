import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { loader as rootLoader } from '#app/root.tsx'
import { action as cartAction } from '#app/routes/cart.tsx'
import { action as loginAction, loader as loginLoader } from '#app/routes/login.tsx'
import { action as logoutAction } from '#app/routes/logout.tsx'
import { action as registerAction, loader as registerLoader } from '#app/routes/register.tsx'
import { action as themeAction } from '#app/routes/theme.ts'
import { user } from '#app/server/db/schema/index.server.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'
import { createGuestCookie, createReader, testPassword } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

/**
 * Issue 28: a redirectTo holding a character above U+00FF ('/книги', an emoji) made every redirect that follows
 * it a 500 ('Cannot convert argument to a ByteString': a Location header holds bytes), and a good login with
 * one handed the guest's cart over before failing, so no session cookie was set. Every such target is followed
 * percent-encoded, as a browser would have sent it.
 */
const targets = [
  { target: '/книги', location: '/%D0%BA%D0%BD%D0%B8%D0%B3%D0%B8' },
  { target: '/😀?q=ü', location: '/%F0%9F%98%80?q=%C3%BC' },
]

let database: TestDatabase
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  bookIds = (await listBooks(database.db)).map((book) => book.id)
})

let ipCounter = 0
/** Each post from an address of its own: the per-IP limits of logins and sign-ups stay out of the way. */
const freshIp = () => `198.51.100.${++ipCounter}`

/** What an action answered: a redirect's status, Location and cookies, or a data answer's status. */
async function post(
  action: (args: ReturnType<typeof routeArgs>) => Promise<unknown>,
  path: string,
  fields: Record<string, string>,
  cookie?: string,
) {
  const args = routeArgs({
    db: database.db,
    path,
    cookie,
    clientIp: freshIp(),
    init: { method: 'POST', body: new URLSearchParams(fields) },
  })
  const result = await action(args).catch((thrown: unknown) => thrown)
  if (result instanceof Response)
    return {
      status: result.status,
      location: result.headers.get('Location'),
      setCookies: result.headers.getSetCookie(),
    }
  if (result instanceof Error) throw result
  const { init } = result as { init?: ResponseInit }
  return { status: init?.status ?? 200, location: null, setCookies: [] }
}

const sessionCookieOf = (setCookies: string[]) =>
  setCookies.find((cookie) => cookie.startsWith('better-auth.session_token='))

describe.each(targets)('redirectTo=$target', ({ target, location }) => {
  test('GET /login and /Register send a signed-in reader on, encoded', async () => {
    const { cookie } = await createReader(database.db)
    const path = `?${new URLSearchParams({ redirectTo: target })}`
    for (const [loader, page] of [
      [loginLoader, '/login'],
      [registerLoader, '/Register'],
    ] as const) {
      const thrown = await thrownBy(() =>
        loader(routeArgs({ db: database.db, path: `${page}${path}`, cookie })),
      )
      expect(thrown, page).toBeInstanceOf(Response)
      expect((thrown as Response).status).toBe(302)
      expect((thrown as Response).headers.get('Location')).toBe(location)
    }
    // A visitor not signed in gets the form, which posts the target back encoded.
    const form = await loginLoader(routeArgs({ db: database.db, path: `/login${path}` }))
    expect(form.redirectTo).toBe(location)
  })

  test('POST /theme, /cart and /logout go back there, encoded', async () => {
    expect(await post(themeAction, '/theme', { theme: 'dark', redirectTo: target })).toMatchObject({
      status: 303,
      location,
    })
    const added = await post(cartAction, '/cart', { intent: 'add', bookId: bookIds[0]!, redirectTo: target })
    expect(added).toMatchObject({ status: 303, location: `${location}#book-${bookIds[0]}` })
    const { cookie } = await createReader(database.db)
    expect(await post(logoutAction, '/logout', { redirectTo: target }, cookie)).toMatchObject({
      status: 303,
      location,
    })
  })

  test('POST /login (guest), /Register: signed in with the session cookie, sent on encoded', async () => {
    const guest = await post(loginAction, '/login', { intent: 'guest', redirectTo: target })
    expect(guest).toMatchObject({ status: 303, location })
    expect(sessionCookieOf(guest.setCookies)).toBeDefined()
    const registered = await post(registerAction, '/Register', {
      email: `going-${crypto.randomUUID()}@example.com`,
      password: testPassword,
      redirectTo: target,
    })
    expect(registered).toMatchObject({ status: 303, location })
    expect(sessionCookieOf(registered.setCookies)).toBeDefined()
  })

  test('a good login from a guest with a cart sets the session cookie, and the cart comes along', async () => {
    const reader = await createReader(database.db)
    const guestCookie = await createGuestCookie(database.db)
    const guestId = (await servicesFor(database.db).auth.api.getSession({
      headers: new Headers({ Cookie: guestCookie }),
    }))!.user.id
    const added = await post(
      cartAction,
      '/cart',
      { intent: 'add', bookId: bookIds[1]!, redirectTo: '/' },
      guestCookie,
    )
    expect(added.status).toBe(303)

    const login = await post(
      loginAction,
      '/login',
      { email: reader.email, password: testPassword, redirectTo: target },
      guestCookie,
    )
    expect(login).toMatchObject({ status: 303, location })
    expect(sessionCookieOf(login.setCookies)).toBeDefined()
    const root = await rootLoader(
      routeArgs({ db: database.db, path: '/', cookie: cookieHeader(login.setCookies, guestCookie) }),
    )
    expect(root.user).toMatchObject({ email: reader.email, isGuest: false })
    expect(root.cartBookIds).toEqual([bookIds[1]])
    expect(await database.db.select().from(user).where(eq(user.id, guestId))).toHaveLength(0)
  })
})
