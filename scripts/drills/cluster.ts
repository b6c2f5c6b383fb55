/**
 * `npm run drill:cluster [-- --quick]`: two store instances on one PostgreSQL database behind nginx
 * (harness/cluster-process.ts), and proof that the store behaves as one: a session made on one instance is valid
 * on the other (directly and through nginx); a cart filled on one is seen on the other; failed logins count
 * across instances exactly as on one, keyed on the client address nginx saw; a revoked session stops on the
 * other instance within SESSION_CACHE_SECONDS; a back-office change shows on the other within the page
 * cache's TTL; queued mails go out once with two workers; nginx keeps serving when an instance is killed
 * with SIGKILL. Prints each figure; exits 1 when a check fails. `--quick` (or DRILL_QUICK=1): fewer mails and a
 * shorter load, for CI (≤ 90 s). Design: docs/decisions/022-scale-out.md.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import sharp from 'sharp'
import { sql } from 'drizzle-orm'
import { openDatabase } from '#app/server/db/database.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { startCluster, type Cluster } from '#harness/cluster-process.ts'
import { createReader, testPassword } from '#harness/factories/buyers.ts'
import { readStoredFiles, startDrillStorage, wholeFileProblem, type DrillStorage } from './files.ts'
import { parseDrillOptions } from './options.ts'

const { quick, storage: storageKind } = parseDrillOptions({
  name: 'cluster',
  summary:
    'Two store instances on one PostgreSQL database behind nginx, and proof that they behave as one store (sessions, carts, rate limits, revocations, the page cache, a cover uploaded, mail, an instance killed).',
  databases: [],
  builds: false,
  storages: true,
})
const MAILS = quick ? 200 : 1_000
const LOAD_SECONDS = quick ? 6 : 20
/** The instances' session cache (the default): a revocation elsewhere must be seen within it. */
const SESSION_CACHE_SECONDS = 5
/** The host's page cache TTL (server/app.ts): an anonymous page may be this old. */
const PAGE_CACHE_SECONDS = 10
/** The failed-login limit per account and address (app/features/identity/account.server.ts). */
const FAILED_LOGIN_LIMIT = 10
const DEADLINE_MS = quick ? 90_000 : 240_000

const startedAt = Date.now()
const checks: { check: string; ok: boolean; figure: string }[] = []
function record(check: string, ok: boolean, figure: string) {
  checks.push({ check, ok, figure })
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${check}: ${figure}`)
}

let cluster: Cluster | undefined
let storage: DrillStorage | undefined
let finished = false
async function finish(code: number) {
  if (finished) return
  finished = true
  await cluster?.stop().catch((error: unknown) => console.error('could not stop the cluster:', error))
  await storage?.stop().catch((error: unknown) => console.error('could not stop the S3 server:', error))
  process.exit(code)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`\n${signal}: stopping`)
    void finish(130)
  })
setTimeout(() => {
  console.error(`\nFAIL the drill did not finish within ${DEADLINE_MS / 1000} s`)
  void finish(1)
}, DEADLINE_MS).unref()

if (!fs.existsSync('build/server/index.js')) {
  const build = spawnSync('npx', ['react-router', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

type Answer = { status: number; body: string; cookies: string[]; location: string | undefined }

/** One HTTP request with node:http: no redirects followed, and from a chosen local address if given. */
function send(
  url: string,
  options: { method?: string; cookie?: string; form?: Record<string, string>; from?: string } = {},
): Promise<Answer> {
  const body = options.form ? new URLSearchParams(options.form).toString() : undefined
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? (options.form ? 'POST' : 'GET'),
        localAddress: options.from,
        headers: {
          Accept: 'text/html',
          ...(options.cookie ? { Cookie: options.cookie } : {}),
          ...(options.form
            ? {
                'Content-Type': 'application/x-www-form-urlencoded',
                'Content-Length': String(Buffer.byteLength(body ?? '')),
              }
            : {}),
        },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: text,
            cookies: (response.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!),
            location: response.headers.location,
          }),
        )
      },
    )
    request.on('error', reject)
    request.setTimeout(15_000, () => request.destroy(new Error(`no answer from ${url} within 15 s`)))
    request.end(body)
  })
}

const sessionCookieOf = (answer: Answer) =>
  answer.cookies.find((cookie) => cookie.startsWith('better-auth.session_token='))

async function logIn(baseUrl: string, email: string, password = testPassword, from?: string) {
  return send(`${baseUrl}/login`, { form: { email, password }, from })
}

/** Signed in means /account answers its page (a visitor who is not is sent to /login). */
async function isSignedIn(baseUrl: string, cookie: string, email: string): Promise<boolean> {
  const answer = await send(`${baseUrl}/account`, { cookie })
  return answer.status === 200 && answer.body.includes(email)
}

/** Polls `test` every 100 ms until it holds; the milliseconds it took, or undefined past `limitMs`. */
async function timeUntil(test: () => Promise<boolean>, limitMs: number): Promise<number | undefined> {
  const start = Date.now()
  while (Date.now() - start <= limitMs) {
    if (await test()) return Date.now() - start
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return undefined
}

const people = {
  session: `drill-session-${Date.now()}@example.com`,
  revoked: `drill-revoked-${Date.now()}@example.com`,
  alternating: `drill-alternating-${Date.now()}@example.com`,
  single: `drill-single-${Date.now()}@example.com`,
  forwarded: `drill-forwarded-${Date.now()}@example.com`,
  admin: `drill-admin-${Date.now()}@example.com`,
}

try {
  console.log(
    `cluster drill${quick ? ' (quick)' : ''}: 2 instances on PostgreSQL behind nginx, files in ${storageKind === 's3' ? 'an S3 bucket (s3rver)' : 'one shared folder'}, ${MAILS} mails queued`,
  )
  storage = await startDrillStorage(storageKind)
  cluster = await startCluster({
    instances: 2,
    clientKeepaliveRequests: 1_000_000,
    env: {
      SESSION_CACHE_SECONDS: String(SESSION_CACHE_SECONDS),
      ADMIN_EMAILS: people.admin,
      ...storage.env,
    },
    prepare: async (databaseUrl) => {
      const database = await openDatabase({ kind: 'postgres', url: databaseUrl, poolSize: 2 })
      try {
        for (const email of Object.values(people))
          await createReader(database.db, { email, confirmed: email === people.admin })
        // Queued before the instances start: both workers find them at once and claim them side by side.
        for (let i = 0; i < MAILS; i++)
          await enqueueEmail(database.db, {
            kind: 'drill',
            subjectKey: `mail-${i}`,
            to: `reader-${i}@example.com`,
            subject: `Drill mail ${i}`,
            text: `Mail number ${i}.`,
            html: `<p>Mail number ${i}.</p>`,
          })
      } finally {
        await database.close()
      }
    },
  })
  const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]]
  console.log(
    `started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s: nginx ${cluster.url}, instances ${a.url} ${b.url}`,
  )
  const database = await openDatabase({ kind: 'postgres', url: cluster.databaseUrl, poolSize: 2 })
  try {
    await checkMail(database.db, cluster)
    await checkSession(a.url, b.url, cluster.url)
    await checkCart(database.db, a.url, b.url, cluster.url)
    await checkLoginLimits(a.url, b.url, cluster.url)
    await checkRevocation(a.url, b.url)
    await checkAdminChange(database.db, a.url, b.url)
    await checkCover(database.db, a.url, b.url, cluster)
    await checkFailover(cluster)
  } finally {
    await database.close()
  }
} catch (error) {
  record('drill', false, error instanceof Error ? (error.stack ?? error.message) : String(error))
}

type Db = Awaited<ReturnType<typeof openDatabase>>['db']

async function checkMail(db: Db, cluster: Cluster) {
  const sentWithin = await timeUntil(async () => {
    const result = (await db.execute(
      sql`select count(*)::int as unsent from email_outbox where kind = 'drill' and sent_at is null`,
    )) as unknown as { rows: { unsent: number }[] }
    return result.rows[0]!.unsent === 0
  }, 30_000)
  const attempts = (await db.execute(
    sql`select coalesce(sum(attempts), 0)::int as attempts from email_outbox where kind = 'drill'`,
  )) as unknown as { rows: { attempts: number }[] }
  const perInstance = cluster.instances.map((instance) => {
    const dir = path.join(instance.dataDir, 'outbox')
    const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith('.eml')) : []
    return files
      .map((name) => /^Subject: (.*)$/m.exec(fs.readFileSync(path.join(dir, name), 'utf8'))?.[1])
      .filter((subject) => subject?.startsWith('Drill mail '))
  })
  const subjects = perInstance.flat()
  const distinct = new Set(subjects).size
  const counts = perInstance.map((files) => files.length).join(' + ')
  record(
    'mail sent once with two workers',
    sentWithin !== undefined &&
      subjects.length === MAILS &&
      distinct === MAILS &&
      attempts.rows[0]!.attempts === MAILS,
    `${MAILS} queued, ${subjects.length} written (${counts} by instance), ${distinct} distinct, ${attempts.rows[0]!.attempts} attempts, all sent within ${sentWithin ?? '>30000'} ms`,
  )
}

async function checkSession(a: string, b: string, balancer: string) {
  const login = await logIn(a, people.session)
  const cookie = sessionCookieOf(login)
  if (login.status !== 303 || !cookie) throw new Error(`login on instance 1 answered ${login.status}`)
  const onB = await isSignedIn(b, cookie, people.session)
  const onA = await isSignedIn(a, cookie, people.session)
  let throughNginx = 0
  for (let i = 0; i < 6; i++) if (await isSignedIn(balancer, cookie, people.session)) throughNginx++
  record(
    'session made on one instance is valid on the other',
    onA && onB && throughNginx === 6,
    `signed in on instance 1: ${onA}, on instance 2: ${onB}, through nginx: ${throughNginx}/6 requests`,
  )
}

async function checkCart(db: Db, a: string, b: string, balancer: string) {
  const result = (await db.execute(
    sql`select id, slug from books where status = 'published' order by slug limit 2`,
  )) as unknown as { rows: { id: string; slug: string }[] }
  const [first, second] = result.rows
  if (!first || !second) throw new Error('no published books to put in a cart')
  const added = await send(`${a}/cart`, { form: { intent: 'add', bookId: first.id, redirectTo: '/cart' } })
  const cookie = added.cookies.find((value) => /^(__Host-)?cb_cart=/.test(value))
  if (added.status !== 303 || !cookie)
    throw new Error(`adding to the cart on instance 1 answered ${added.status}`)
  const again = await send(`${b}/cart`, {
    cookie,
    form: { intent: 'add', bookId: second.id, redirectTo: '/cart' },
  })
  const shows = async (url: string) => {
    const page = await send(`${url}/cart`, { cookie })
    return page.body.includes(`/books/${first.slug}`) && page.body.includes(`/books/${second.slug}`)
  }
  const onA = await shows(a)
  const onB = await shows(b)
  const viaNginx = await shows(balancer)
  record(
    'cart filled on one instance is seen on the other',
    again.status === 303 && onA && onB && viaNginx,
    `book added on instance 1 then on instance 2; both in the cart on instance 1: ${onA}, instance 2: ${onB}, nginx: ${viaNginx}`,
  )
}

/** How many wrong passwords in a row are refused with 401 before the first 429, sent by `target(i)`. */
async function attemptsUntilLimited(email: string, target: (attempt: number) => string, from?: string) {
  for (let attempt = 1; attempt <= FAILED_LOGIN_LIMIT + 5; attempt++) {
    const answer = await logIn(target(attempt), email, 'not the right password', from)
    if (answer.status === 429) return attempt - 1
    if (answer.status !== 401) throw new Error(`a wrong password answered ${answer.status}`)
  }
  return Infinity
}

async function checkLoginLimits(a: string, b: string, balancer: string) {
  const single = await attemptsUntilLimited(people.single, () => a)
  const alternating = await attemptsUntilLimited(people.alternating, (attempt) => (attempt % 2 ? a : b))
  // Through nginx from two client addresses: the limit is per account and address, and the address is the
  // one nginx saw (X-Forwarded-For), not nginx's own.
  const fromFirst = await attemptsUntilLimited(people.forwarded, () => balancer, '127.0.0.2')
  const otherAddress = await logIn(balancer, people.forwarded, 'not the right password', '127.0.0.3')
  record(
    'failed logins count across instances',
    single === FAILED_LOGIN_LIMIT && alternating === FAILED_LOGIN_LIMIT,
    `refused after ${single} failures on one instance, after ${alternating} alternating between the two (limit ${FAILED_LOGIN_LIMIT})`,
  )
  record(
    'the limit is keyed on the client address from X-Forwarded-For',
    fromFirst === FAILED_LOGIN_LIMIT && otherAddress.status === 401,
    `through nginx from 127.0.0.2: refused after ${fromFirst}; the same account from 127.0.0.3 then: ${otherAddress.status} (not 429)`,
  )
}

async function checkRevocation(a: string, b: string) {
  const login = await logIn(b, people.revoked)
  const cookie = sessionCookieOf(login)
  if (login.status !== 303 || !cookie) throw new Error(`login on instance 2 answered ${login.status}`)
  // Instance 1 reads the session now, and keeps it in its session cache.
  if (!(await isSignedIn(a, cookie, people.revoked)))
    throw new Error('the session did not work on instance 1')
  const loggedOut = await send(`${b}/logout`, { cookie, form: {} })
  const onBAtOnce = !(await isSignedIn(b, cookie, people.revoked))
  const limitMs = SESSION_CACHE_SECONDS * 1000 + 1000
  const stoppedOnA = await timeUntil(async () => !(await isSignedIn(a, cookie, people.revoked)), limitMs)
  record(
    'a revoked session stops on the other instance within SESSION_CACHE_SECONDS',
    loggedOut.status === 303 &&
      onBAtOnce &&
      stoppedOnA !== undefined &&
      stoppedOnA <= SESSION_CACHE_SECONDS * 1000 + 500,
    `logged out on instance 2 (${loggedOut.status}; stopped there at once: ${onBAtOnce}); instance 1 stopped accepting it after ${stoppedOnA ?? `> ${limitMs}`} ms (limit ${SESSION_CACHE_SECONDS} s)`,
  )
}

async function checkAdminChange(db: Db, a: string, b: string) {
  const login = await logIn(a, people.admin)
  const cookie = sessionCookieOf(login)
  if (login.status !== 303 || !cookie) throw new Error(`the admin's login answered ${login.status}`)
  const result = (await db.execute(
    sql`select id, slug, version from books where status = 'published' order by slug desc limit 1`,
  )) as unknown as { rows: { id: string; slug: string; version: number }[] }
  const book = result.rows[0]!
  // Instance 2 shows the book to an anonymous visitor: that page is now in its page cache.
  const before = await send(`${b}/books/${book.slug}`)
  if (before.status !== 200) throw new Error(`the book page answered ${before.status} before the change`)
  const archived = await send(`${a}/admin/books/${book.id}`, {
    cookie,
    form: { intent: 'archive', version: String(book.version) },
  })
  if (archived.status !== 303) throw new Error(`archiving on instance 1 answered ${archived.status}`)
  const limitMs = PAGE_CACHE_SECONDS * 1000 + 2000
  const [anonymous, signedIn] = await Promise.all([
    timeUntil(async () => (await send(`${b}/books/${book.slug}`)).status === 404, limitMs),
    // A signed-in visitor's pages are never from the page cache: at once.
    timeUntil(async () => (await send(`${b}/books/${book.slug}`, { cookie })).status === 404, limitMs),
  ])
  record(
    'a back-office change shows on the other instance within the page cache TTL',
    anonymous !== undefined &&
      anonymous <= PAGE_CACHE_SECONDS * 1000 + 500 &&
      signedIn !== undefined &&
      signedIn <= 500,
    `book archived on instance 1; its page is 404 on instance 2 after ${signedIn ?? `> ${limitMs}`} ms signed in, ${anonymous ?? `> ${limitMs}`} ms anonymous (page cache ${PAGE_CACHE_SECONDS} s)`,
  )
}

/**
 * A cover uploaded through one instance is served by the other, the same bytes, whole: they share one files
 * folder, or one bucket (then nothing is written to the folder, and what both serve is the bucket's object).
 */
async function checkCover(db: Db, a: string, b: string, cluster: Cluster) {
  const login = await logIn(a, people.admin)
  const cookie = sessionCookieOf(login)
  if (login.status !== 303 || !cookie) throw new Error(`the admin's login answered ${login.status}`)
  const result = (await db.execute(
    sql`select id, slug, version from books where status = 'published' order by slug limit 1`,
  )) as unknown as { rows: { id: string; slug: string; version: number }[] }
  const book = result.rows[0]!
  const png = await sharp({
    create: { width: 600, height: 900, channels: 3, background: { r: 30, g: 90, b: 160 } },
  })
    .png()
    .toBuffer()
  const form = new FormData()
  form.set('version', String(book.version))
  form.set('cover', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cover.png')
  const uploaded = await fetch(`${a}/admin/books/${book.id}/cover`, {
    method: 'POST',
    body: form,
    headers: { Cookie: cookie, Accept: 'application/json' },
  })
  const outcome = (await uploaded.json()) as { ok: boolean; message: string }
  // Signed in: not from the page cache, so the page names the new cover at once.
  const page = await send(`${b}/books/${book.slug}`, { cookie })
  const files = [...new Set(page.body.match(/\/media\/covers\/[a-z0-9._-]+/g) ?? [])]
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
  const fetchFile = async (url: string) => {
    const response = await fetch(url, { signal: AbortSignal.timeout(15_000) })
    const bytes = new Uint8Array(await response.arrayBuffer())
    const length = Number(response.headers.get('Content-Length') ?? bytes.length)
    return { status: response.status, bytes, problem: await wholeFileProblem(bytes, 'image', length) }
  }
  const stored = new Map(
    (await readStoredFiles(storage!, cluster.instances[0]!.dataDir, 'covers/')).map((file) => [
      `/media/${file.key}`,
      sha256(file.bytes),
    ]),
  )
  let same = 0
  const problems: string[] = []
  for (const file of files) {
    const [fromA, fromB] = await Promise.all([fetchFile(`${a}${file}`), fetchFile(`${b}${file}`)])
    if (fromB.status !== 200 || fromA.status !== 200)
      problems.push(`${file}: ${fromA.status} on instance 1, ${fromB.status} on instance 2`)
    else if (fromB.problem) problems.push(`${file} from instance 2: ${fromB.problem}`)
    else if (sha256(fromA.bytes) !== sha256(fromB.bytes) || stored.get(file) !== sha256(fromB.bytes))
      problems.push(`${file}: instance 2's bytes differ from instance 1's or from the stored file`)
    else same++
  }
  // On S3 the shared folder stays empty: the cover went through the bucket.
  const inFolder = fs.existsSync(path.join(cluster.filesDir, 'covers'))
    ? fs.readdirSync(path.join(cluster.filesDir, 'covers')).length
    : 0
  if (storageKind === 's3' && inFolder > 0) problems.push(`${inFolder} cover files written to the folder`)
  record(
    `a cover uploaded on one instance is served by the other (${storageKind === 's3' ? 'S3 bucket' : 'shared folder'})`,
    outcome.ok && files.length > 0 && problems.length === 0,
    `uploaded on instance 1 (${uploaded.status}: ${outcome.message}); instance 2 serves ${same}/${files.length} of its files whole, the same bytes as instance 1 and as ${storageKind === 's3' ? 'the bucket holds' : 'the folder holds'}${storageKind === 's3' ? ` (none in the folder: ${inFolder === 0})` : ''}${problems.length ? `; ${problems.join('; ')}` : ''}`,
  )
}

/** Counts a load's client errors by kind (ECONNRESET, a timeout…), for the drill's report. */
function errorKinds(load: Promise<autocannon.Result>) {
  const kinds = new Map<string, number>()
  // Without a callback autocannon returns its instance made thenable; its types only name the promise.
  ;(load as unknown as autocannon.Instance).on('reqError', (error: NodeJS.ErrnoException) => {
    const kind = error.code ?? error.message
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  })
  return {
    describe: () =>
      kinds.size ? ` (${[...kinds].map(([kind, count]) => `${count} × ${kind}`).join(', ')})` : '',
  }
}

async function checkFailover(cluster: Cluster) {
  const victim = cluster.instances[1]!
  const load = autocannon({
    url: cluster.url,
    connections: 10,
    duration: LOAD_SECONDS,
    requests: [{ path: '/' }, { path: '/AllBooks' }, { path: '/search?q=react' }, { path: '/readyz' }],
  })
  const killAt = Math.round((LOAD_SECONDS * 1000) / 3)
  setTimeout(() => victim.child.kill('SIGKILL'), killAt)
  const firstErrors = errorKinds(load)
  const result = await load
  await victim.exited
  // A response nginx had begun relaying when its instance died cannot be sent again (a client sees its
  // connection cut and retries): at most one per connection, at the moment of the kill. After it, nothing may
  // fail: a second load, on the survivor alone.
  const afterLoad = autocannon({
    url: cluster.url,
    connections: 10,
    duration: 2,
    requests: [{ path: '/' }, { path: '/AllBooks' }, { path: '/readyz' }],
  })
  const afterErrors = errorKinds(afterLoad)
  const after = await afterLoad
  // Writes after the loss: a cart post through nginx (not retried by nginx unless the connection was refused).
  let posts = 0
  for (let i = 0; i < 5; i++) {
    const answer = await send(`${cluster.url}/theme`, {
      form: { theme: i % 2 ? 'dark' : 'light', redirectTo: '/' },
    })
    if (answer.status === 303) posts++
  }
  const refused = cluster
    .nginxLog()
    .split('\n')
    .filter((line) => /connect\(\) failed|upstream prematurely closed|reset by peer/.test(line)).length
  record(
    'nginx keeps serving when an instance is killed',
    result.errors + result.timeouts <= 10 &&
      result.non2xx === 0 &&
      after.errors + after.timeouts + after.non2xx === 0 &&
      posts === 5,
    `${result.requests.total} requests in ${LOAD_SECONDS} s through nginx (instance 2 killed with SIGKILL at ${killAt / 1000} s): ${result.non2xx} non-2xx, ${result.errors + result.timeouts} errors${firstErrors.describe()} (cut mid-response at the kill; at most one per connection, 10); then ${after.requests.total} requests on the survivor: ${after.non2xx} non-2xx, ${after.errors + after.timeouts} errors${afterErrors.describe()}; ${posts}/5 form posts after it answered; nginx logged ${refused} upstream failures and retried them`,
  )
}

const failed = checks.filter((entry) => !entry.ok)
console.log(
  `\n${failed.length === 0 ? 'PASS' : 'FAIL'}: ${checks.length - failed.length}/${checks.length} checks in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (load average ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')})`,
)
await finish(failed.length === 0 ? 0 : 1)
