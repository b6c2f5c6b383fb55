import { expect, inject, test } from 'vitest'

/**
 * The identity forms over real HTTP against the production build: what React Router does with the several
 * Set-Cookie headers of one answer, for a plain form post (JavaScript off) and for its own data request
 * (JavaScript on), and whether the page cache keeps signed-in pages to their owner.
 */
const baseURL = inject('baseURL')
let visitor = 0

/** A request from a visitor of its own (an address of its own), unless `ip` says who. */
function send(path: string, init: { body?: Record<string, string>; cookie?: string; ip?: string } = {}) {
  visitor++
  return fetch(`${baseURL}${path}`, {
    method: init.body ? 'POST' : 'GET',
    body: init.body ? new URLSearchParams(init.body) : undefined,
    headers: {
      Origin: baseURL,
      'X-Forwarded-For': init.ip ?? `10.250.${process.pid % 250}.${visitor % 250}`,
      ...(init.cookie ? { Cookie: init.cookie } : {}),
    },
    redirect: 'manual',
  })
}

const cookiePair = (setCookie: string) => setCookie.split(';')[0]!

async function visitorWithCart() {
  const page = await (await send('/AllBooks')).text()
  const bookId = /name="bookId" value="([0-9a-f-]{36})"/.exec(page)![1]!
  const added = await send('/cart', { body: { intent: 'add', bookId, redirectTo: '/' } })
  expect(added.status).toBe(303)
  return cookiePair(added.headers.getSetCookie()[0]!)
}

const unique = () => `http-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`
const password = 'correct horse battery staple'

test.each([
  ['a plain form post (JavaScript off)', '/Register', 303],
  ['React Router’s data request (JavaScript on)', '/Register.data', 202],
])(
  'registering by %s sets the session and deletes the cart cookie in one answer',
  async (_, path, status) => {
    const cartCookie = await visitorWithCart()
    const response = await send(path, { body: { email: unique(), password }, cookie: cartCookie })
    expect(response.status).toBe(status)
    const cookies = response.headers.getSetCookie()
    expect(cookies.find((cookie) => cookie.startsWith('better-auth.session_token='))).toMatch(
      /HttpOnly.*SameSite=Lax|SameSite=Lax.*HttpOnly/i,
    )
    expect(cookies.some((cookie) => /^cb_cart=;.*Max-Age=0/.test(cookie))).toBe(true)

    // The new session sees the cart the visitor had; the signed-in page is never served from the shared cache.
    const session = cookiePair(cookies.find((cookie) => cookie.startsWith('better-auth.session_token='))!)
    const home = await send('/', { cookie: session })
    expect(home.headers.get('x-page-cache')).toBeNull()
    const html = await home.text()
    expect(html).toContain(`aria-label="Cart, 1 book"`)
    const anonymous = await (await send('/')).text()
    expect(anonymous).not.toContain('@example.com')
  },
)

test('logging out revokes the session: the old cookie, replayed, is signed out', async () => {
  const registered = await send('/Register', { body: { email: unique(), password } })
  const session = cookiePair(
    registered.headers.getSetCookie().find((cookie) => cookie.startsWith('better-auth.session_token='))!,
  )
  const out = await send('/logout', { body: { redirectTo: '/AllBooks' }, cookie: session })
  expect(out.status).toBe(303)
  expect(out.headers.get('location')).toBe('/AllBooks')
  expect(out.headers.getSetCookie().some((cookie) => /session_token=;/.test(cookie))).toBe(true)
  const replayed = await (await send('/AllBooks', { cookie: session })).text()
  expect(replayed).toContain('>Login<')
})

test('GET /logout changes nothing', async () => {
  const registered = await send('/Register', { body: { email: unique(), password } })
  const session = cookiePair(
    registered.headers.getSetCookie().find((cookie) => cookie.startsWith('better-auth.session_token='))!,
  )
  const page = await send('/logout', { cookie: session })
  expect(page.status).toBe(200)
  expect(page.headers.getSetCookie().some((cookie) => /session_token=;/.test(cookie))).toBe(false)
  expect(await (await send('/AllBooks', { cookie: session })).text()).toContain('Log out')
})

test('after 10 failed logins for an account from one address: 429 with Retry-After, by form post and data request', async () => {
  const email = unique()
  expect((await send('/Register', { body: { email, password } })).status).toBe(303)
  // An address no other test uses: the store counts failed logins per account and address.
  const ip = `10.251.${process.pid % 250}.1`
  for (let attempt = 1; attempt <= 10; attempt++) {
    const failed = await send('/login', { body: { email, password: `guess ${attempt}!` }, ip })
    expect(failed.status).toBe(401)
    expect(failed.headers.get('Retry-After')).toBeNull()
  }
  for (const path of ['/login', '/login.data']) {
    const refused = await send(path, { body: { email, password }, ip })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(14 * 60)
    expect(Number(refused.headers.get('Retry-After'))).toBeLessThanOrEqual(15 * 60)
    expect(refused.headers.getSetCookie()).toEqual([])
    expect(await refused.text()).toContain('Too many attempts. Try again in 15 minutes.')
  }
  // The owner, from elsewhere, is not locked out.
  expect((await send('/login', { body: { email, password } })).status).toBe(303)
})

test.each([
  ['no cookie', undefined],
  ['a forged session cookie', 'better-auth.session_token=forged.c2lnbmF0dXJl'],
])('logging out with %s goes back to the page, signed out', async (_, cookie) => {
  const out = await send('/logout', { body: { redirectTo: '/AllBooks' }, cookie })
  expect(out.status).toBe(303)
  expect(out.headers.get('location')).toBe('/AllBooks')
})

test.each(['/книги', '/😀?q=ü'])(
  'a redirectTo of %s is followed percent-encoded, and a login with it sets the session (issue 28)',
  async (target) => {
    const location = new URL(target, 'http://store').pathname + new URL(target, 'http://store').search
    const bookId = /name="bookId" value="([0-9a-f-]{36})"/.exec(await (await send('/AllBooks')).text())![1]!
    const email = unique()
    const registered = await send('/Register', { body: { email, password, redirectTo: target } })
    expect([registered.status, registered.headers.get('location')]).toEqual([303, location])
    const session = cookiePair(
      registered.headers.getSetCookie().find((cookie) => cookie.startsWith('better-auth.session_token='))!,
    )
    for (const path of ['/login', '/Register']) {
      const onward = await send(`${path}?${new URLSearchParams({ redirectTo: target })}`, { cookie: session })
      expect([path, onward.status, onward.headers.get('location')]).toEqual([path, 302, location])
    }
    for (const [path, body] of [
      ['/theme', { theme: 'dark', redirectTo: target }],
      ['/cart', { intent: 'add', bookId, redirectTo: `${target}#cart` }],
      ['/logout', { redirectTo: target }],
      ['/login', { intent: 'guest', redirectTo: target }],
    ] as const) {
      const answer = await send(path, { body })
      expect([path, answer.status, answer.headers.get('location')?.replace(/#.*/, '')]).toEqual([
        path,
        303,
        location,
      ])
    }
    const login = await send('/login', { body: { email, password, redirectTo: target } })
    expect([login.status, login.headers.get('location')]).toEqual([303, location])
    expect(
      login.headers.getSetCookie().some((cookie) => cookie.startsWith('better-auth.session_token=')),
    ).toBe(true)
  },
)
