/**
 * `npm run bench`: throughput and latency of the production build on the embedded database, with autocannon
 * (20 connections, 10 s per scenario, after a 2 s warm-up). Prints numbers; asserts nothing.
 * Targets (issue 3, this 2-core machine): first-time `/` ≥ 1,000 req/s, `/` with a cart ≥ 400 req/s, p99 ≤ 100 ms.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import autocannon from 'autocannon'
import { spawnStore, waitUntilReady } from '#tests/store-process.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
if (!fs.existsSync('build/server/index.js') || process.argv.includes('--build')) {
  const build = spawnSync('npx', ['react-router', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

const store = await spawnStore({ LOG_LEVEL: 'info' }, { discardOutput: true })
await waitUntilReady(store)

/** A visitor with three books in the cart, made through the store's own form posts. */
async function cartCookie(): Promise<string> {
  const page = await (await fetch(`${store.url}/AllBooks`)).text()
  const ids = [
    ...new Set([...page.matchAll(/name="bookId" value="([0-9a-f-]{36})"/g)].map((match) => match[1]!)),
  ]
  let cookie = ''
  for (const bookId of ids.slice(0, 3)) {
    const response = await fetch(`${store.url}/cart`, {
      method: 'POST',
      body: new URLSearchParams({ intent: 'add', bookId, redirectTo: '/' }),
      headers: cookie ? { Cookie: cookie } : {},
      redirect: 'manual',
    })
    cookie = response.headers.get('set-cookie')?.split(';')[0] ?? cookie
  }
  const home = await (await fetch(`${store.url}/`, { headers: { Cookie: cookie } })).text()
  if (!home.includes('Cart, 3 books')) throw new Error('could not fill a cart for the benchmark')
  return cookie
}

/** A registered reader's session cookie (registering signs in), made through the register form. */
async function sessionCookie(): Promise<string> {
  const response = await fetch(`${store.url}/Register`, {
    method: 'POST',
    body: new URLSearchParams({
      email: 'bench.reader@example.com',
      password: 'correct horse battery staple',
    }),
    redirect: 'manual',
  })
  const session = response.headers.getSetCookie().find((cookie) => cookie.includes('session_token='))
  if (response.status !== 303 || !session) throw new Error('could not register the benchmark reader')
  return session.split(';')[0]!
}

const browserHeaders = { 'Accept-Encoding': 'gzip, deflate, br', Accept: 'text/html' }
const cart = await cartCookie()
const session = await sessionCookie()
const scenarios = [
  { name: '/ first-time visitor', path: '/', headers: browserHeaders },
  { name: '/ with a cart of 3 books', path: '/', headers: { ...browserHeaders, Cookie: cart } },
  // An unknown cookie keeps every request out of the page cache: the cost of rendering for one visitor.
  {
    name: '/ with a cart, rendered every time',
    path: '/',
    headers: { ...browserHeaders, Cookie: `${cart}; bench_bypass=1` },
  },
  // A session is looked up in the database and the page rendered for its reader, on every request.
  { name: '/ signed in', path: '/', headers: { ...browserHeaders, Cookie: session } },
  { name: '/AllBooks', path: '/AllBooks', headers: browserHeaders },
  { name: '/search?q=react', path: '/search?q=react', headers: browserHeaders },
]

const rows = []
try {
  for (const scenario of scenarios) {
    const run = (duration: number) =>
      autocannon({
        url: `${store.url}${scenario.path}`,
        connections: 20,
        duration,
        headers: scenario.headers,
      })
    await run(2)
    const result = await run(seconds)
    rows.push({
      scenario: scenario.name,
      'req/s': Math.round(result.requests.average),
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      'non-2xx': result.non2xx,
      errors: result.errors + result.timeouts,
    })
  }
} finally {
  await store.stop()
}
console.table(rows)
