import type { PGlite } from '@electric-sql/pglite'
import { and, eq, like } from 'drizzle-orm'
import { drizzle as drizzlePostgres } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import type pg from 'pg'
import pino from 'pino'
import { afterAll, beforeEach, describe, expect, vi } from 'vitest'
import { emailLinkIdentifier } from '#app/features/identity/account-mail.server.ts'
import { accountMessages } from '#app/features/identity/account-forms.ts'
import { deleteStaleVerifications } from '#app/features/identity/email-verification.server.ts'
import { identityMessages } from '#app/features/identity/credentials.ts'
import { loader as rootLoader } from '#app/root.tsx'
import { action as accountAction, loader as accountLoader } from '#app/routes/account.tsx'
import { action as verifyAction, loader as verifyLoader } from '#app/routes/account-verify-email.tsx'
import { action as forgotAction } from '#app/routes/forgot-password.tsx'
import { action as loginAction } from '#app/routes/login.tsx'
import { action as registerAction } from '#app/routes/register.tsx'
import { action as resetAction, loader as resetLoader } from '#app/routes/reset-password.tsx'
import type { Db } from '#app/server/db/database.server.ts'
import * as schema from '#app/server/db/schema/index.server.ts'
import { emailOutbox, session, user, verification } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { Mailer } from '#app/server/mail.server.ts'
import { deliverDueEmails } from '#app/server/outbox.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'
import { mailerFor, startSmtpServer, type ReceivedMail, type TestSmtpServer } from '#tests/smtp.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'

const logger = createLogger('silent')
const PASSWORD = 'correct horse battery staple'
const NEW_PASSWORD = 'a brand new reading lamp'
const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'

let database: TestDatabase
let smtp: TestSmtpServer
let mailer: Mailer
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  smtp = await startSmtpServer()
  mailer = mailerFor(smtp, logger)
})
afterAll(async () => {
  await smtp.close()
})
beforeEach(async () => {
  // Mail queued by one test is never delivered to another's inbox.
  await database.db.delete(emailOutbox)
  smtp.received.length = 0
})

let ipCounter = 0
/** Each test posts from its own address, so that the per-IP limits of one test do not touch another. */
const freshIp = () => `203.0.113.${++ipCounter}`

type Outcome = {
  status: number
  body: Record<string, unknown> | null
  setCookies: string[]
  location: string | null
  headers: Headers
}

type Handler = (args: ReturnType<typeof routeArgs>) => Promise<unknown>

/** Calls a loader or action as a browser would (a thrown redirect is an answer too), and reads its answer. */
async function call(
  handler: Handler,
  path: string,
  options: {
    fields?: Record<string, string>
    cookie?: string
    clientIp?: string
    userAgent?: string
    /** Other services than the test database's (a logger that records, say). */
    services?: StoreServices
  } = {},
): Promise<Outcome> {
  const args = routeArgs({
    db: database.db,
    path,
    services: options.services,
    cookie: options.cookie,
    clientIp: options.clientIp ?? freshIp(),
    init: {
      ...(options.fields ? { method: 'POST', body: new URLSearchParams(options.fields) } : {}),
      headers: options.userAgent ? { 'User-Agent': options.userAgent } : {},
    },
  })
  const result = await handler(args).catch((thrown: unknown) => thrown)
  if (result instanceof Response) {
    return {
      status: result.status,
      body: null,
      setCookies: result.headers.getSetCookie(),
      location: result.headers.get('Location'),
      headers: result.headers,
    }
  }
  if (result && typeof result === 'object' && 'type' in result && result.type === 'DataWithResponseInit') {
    const { data, init } = result as unknown as { data: Record<string, unknown>; init?: ResponseInit }
    return {
      status: init?.status ?? 200,
      body: data,
      setCookies: [],
      location: null,
      headers: new Headers(init?.headers),
    }
  }
  return {
    status: 200,
    body: result as Record<string, unknown>,
    setCookies: [],
    location: null,
    headers: new Headers(),
  }
}

let emailCounter = 0
const freshEmail = (label: string) => `${label}-${++emailCounter}-${Date.now()}@example.com`

async function register(email: string, userAgent = CHROME) {
  const outcome = await call(registerAction, '/Register', {
    fields: { email, password: PASSWORD },
    userAgent,
  })
  expect(outcome.status).toBe(303)
  return cookieHeader(outcome.setCookies)
}

async function logIn(email: string, password: string, userAgent = CHROME) {
  const outcome = await call(loginAction, '/login', { fields: { email, password }, userAgent })
  expect(outcome.status).toBe(303)
  return cookieHeader(outcome.setCookies)
}

/** Sends what the outbox holds through the real SMTP server, and returns what arrived. */
async function deliver(): Promise<ReceivedMail[]> {
  await deliverDueEmails(database.db, mailer, { logger })
  return smtp.received.splice(0)
}

async function mailTo(address: string): Promise<ReceivedMail> {
  const mails = (await deliver()).filter((mail) => mail.envelope.to.includes(address))
  expect(mails).toHaveLength(1)
  return mails[0]!
}

/** The store link in a mail's text, as a path with its query. */
function linkIn(mail: ReceivedMail, path: string): string {
  const match = mail.parsed.text?.match(new RegExp(`http://localhost:3000${path}\\?token=[A-Za-z0-9_%-]+`))
  expect(match, `a ${path} link in: ${mail.parsed.text}`).toBeTruthy()
  return new URL(match![0]).pathname + new URL(match![0]).search
}

const tokenOf = (path: string) => new URL(path, 'http://localhost:3000').searchParams.get('token')!

async function userRow(email: string) {
  const [row] = await database.db.select().from(user).where(eq(user.email, email))
  return row
}

async function sessionCount(userId: string) {
  return (await database.db.select().from(session).where(eq(session.userId, userId))).length
}

describe('email verification', () => {
  test('registration mails a link; following it once confirms the email; a second use gets a clear page', async () => {
    const email = freshEmail('verify')
    const cookie = await register(email)
    expect((await rootLoader(routeArgs({ db: database.db, path: '/', cookie }))).user).toMatchObject({
      email,
      emailVerified: false,
    })

    const mail = await mailTo(email)
    expect(mail.parsed.subject).toBe('Confirm your CodeBook email')
    const link = linkIn(mail, '/account/verify-email')
    // Opening the link changes nothing (mail scanners open links): the page asks for a click.
    expect((await call(verifyLoader, link)).body).toMatchObject({ state: 'valid', token: tokenOf(link) })
    expect((await userRow(email))!.emailVerified).toBe(false)

    const verified = await call(verifyAction, link, { fields: { token: tokenOf(link) } })
    expect(verified).toMatchObject({ status: 200, body: { state: 'verified' } })
    expect((await userRow(email))!.emailVerified).toBe(true)
    expect((await rootLoader(routeArgs({ db: database.db, path: '/', cookie }))).user).toMatchObject({
      emailVerified: true,
    })

    expect((await call(verifyLoader, link)).body).toMatchObject({ state: 'used', token: null })
    expect((await call(verifyAction, link, { fields: { token: tokenOf(link) } })).body).toMatchObject({
      state: 'used',
    })
  })

  test('an expired link (24 hours) is refused with a way to get a new one, which works', async () => {
    const email = freshEmail('expired')
    const cookie = await register(email)
    const link = linkIn(await mailTo(email), '/account/verify-email')
    const [row] = await database.db
      .select()
      .from(verification)
      .where(eq(verification.identifier, emailLinkIdentifier(tokenOf(link))))
    const hours = (row!.expiresAt.getTime() - Date.now()) / 3_600_000
    expect(hours).toBeGreaterThan(23.9)
    expect(hours).toBeLessThanOrEqual(24)
    await database.db
      .update(verification)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(verification.id, row!.id))

    expect((await call(verifyLoader, link, { cookie })).body).toMatchObject({
      state: 'expired',
      canResend: true,
    })
    expect((await call(verifyAction, link, { fields: { token: tokenOf(link) } })).body).toMatchObject({
      state: 'expired',
    })
    expect((await userRow(email))!.emailVerified).toBe(false)

    const resent = await call(verifyAction, '/account/verify-email', { fields: { intent: 'resend' }, cookie })
    expect(resent).toMatchObject({
      status: 200,
      body: { state: 'sent', notice: accountMessages.verificationSent(email) },
    })
    const fresh = linkIn(await mailTo(email), '/account/verify-email')
    expect(fresh).not.toBe(link)
    expect((await call(verifyAction, fresh, { fields: { token: tokenOf(fresh) } })).body).toMatchObject({
      state: 'verified',
    })
  })

  test('resending is limited to 3 an hour per account: then 429 with Retry-After', async () => {
    const email = freshEmail('resend')
    const cookie = await register(email)
    for (let attempt = 0; attempt < 3; attempt++)
      expect(
        (await call(verifyAction, '/account/verify-email', { fields: { intent: 'resend' }, cookie })).status,
      ).toBe(200)
    const refused = await call(verifyAction, '/account/verify-email', {
      fields: { intent: 'resend' },
      cookie,
    })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    expect((await deliver()).filter((mail) => mail.envelope.to.includes(email))).toHaveLength(4)
  })

  test('links expired over a week ago are swept; newer expired ones stay to say "expired"', async () => {
    const email = freshEmail('sweep')
    await register(email)
    const link = linkIn(await mailTo(email), '/account/verify-email')
    const identifier = emailLinkIdentifier(tokenOf(link))
    const now = new Date()
    const setExpiry = (daysAgo: number) =>
      database.db
        .update(verification)
        .set({ expiresAt: new Date(now.getTime() - daysAgo * 86_400_000) })
        .where(eq(verification.identifier, identifier))
    await setExpiry(6)
    await deleteStaleVerifications(database.db, now)
    expect((await call(verifyLoader, link)).body).toMatchObject({ state: 'expired' })
    await setExpiry(8)
    expect(await deleteStaleVerifications(database.db, now)).toBeGreaterThanOrEqual(1)
    expect((await call(verifyLoader, link)).body).toMatchObject({ state: 'used' })
  })

  test('a made-up token is refused as used, without a database error', async () => {
    expect((await call(verifyLoader, '/account/verify-email?token=nonsense')).body).toMatchObject({
      state: 'used',
    })
    expect((await call(verifyLoader, '/account/verify-email')).body).toMatchObject({ state: 'used' })
    expect(
      (await call(verifyAction, '/account/verify-email', { fields: { token: 'x'.repeat(5000) } })).body,
    ).toMatchObject({
      state: 'used',
    })
  })
})

describe('password reset', () => {
  test('known and unknown emails get the same answer; only the known one is mailed', async () => {
    const email = freshEmail('forgot')
    await register(email)
    await deliver()
    const unknown = freshEmail('nobody')

    const known = await call(forgotAction, '/forgot-password', { fields: { email } })
    const none = await call(forgotAction, '/forgot-password', { fields: { email: unknown } })
    expect(known.status).toBe(200)
    expect(none.status).toBe(200)
    expect(known.body).toEqual({ notice: accountMessages.resetRequested(email), email })
    expect(none.body).toEqual({ notice: accountMessages.resetRequested(unknown), email: unknown })

    const mails = await deliver()
    expect(mails.map((mail) => mail.envelope.to)).toEqual([[email]])
    expect(mails[0]!.parsed.subject).toBe('Reset your CodeBook password')
  })

  test('a bad email is refused next to its field', async () => {
    const outcome = await call(forgotAction, '/forgot-password', { fields: { email: 'reader@' } })
    expect(outcome).toMatchObject({
      status: 400,
      body: { fieldErrors: { email: identityMessages.emailInvalid } },
    })
  })

  test('the link (1 hour) sets a new password once: other sessions revoked, a mail says so', async () => {
    const email = freshEmail('reset')
    await register(email)
    await logIn(email, PASSWORD, FIREFOX)
    const userId = (await userRow(email))!.id
    expect(await sessionCount(userId)).toBe(2)
    await deliver()

    await call(forgotAction, '/forgot-password', { fields: { email } })
    const link = linkIn(await mailTo(email), '/reset-password')
    const token = tokenOf(link)
    const [row] = await database.db
      .select()
      .from(verification)
      .where(eq(verification.identifier, `reset-password:${token}`))
    const minutes = (row!.expiresAt.getTime() - Date.now()) / 60_000
    expect(minutes).toBeGreaterThan(59)
    expect(minutes).toBeLessThanOrEqual(60)
    expect((await call(resetLoader, link)).body).toEqual({ token })

    for (const [newPassword, message] of [
      ['short', identityMessages.passwordTooShort],
      ['password123', identityMessages.passwordCommon],
      ['x'.repeat(129), identityMessages.passwordTooLong],
    ] as const) {
      const refused = await call(resetAction, link, { fields: { token, newPassword } })
      expect(refused).toMatchObject({ status: 400, body: { fieldErrors: { newPassword: message } } })
    }

    const done = await call(resetAction, link, { fields: { token, newPassword: NEW_PASSWORD } })
    expect(done).toMatchObject({ status: 303, location: '/login?passwordReset=1' })
    expect(await sessionCount(userId)).toBe(0)
    const changed = await mailTo(email)
    expect(changed.parsed.subject).toBe('Your CodeBook password was changed')

    // Used: the page says so, and a second post changes nothing.
    expect((await call(resetLoader, link)).body).toEqual({ token: null })
    const again = await call(resetAction, link, {
      fields: { token, newPassword: 'yet another reading lamp' },
    })
    expect(again).toMatchObject({ status: 400, body: { formError: accountMessages.resetLinkUnusable } })
    await logIn(email, NEW_PASSWORD)
    const old = await call(loginAction, '/login', { fields: { email, password: PASSWORD } })
    expect(old.status).toBe(401)
  })

  test('a token holding a NUL character is a form that cannot be read (400), not a 503 (drill:fuzz)', async () => {
    // PostgreSQL refuses text holding NUL: the reset used to fail in the database and answer 'try again'.
    const outcome = await call(resetAction, '/reset-password', {
      fields: { token: 'abc\0', newPassword: NEW_PASSWORD },
    })
    expect(outcome).toMatchObject({ status: 400, body: { title: 'This form could not be read' } })
  })

  test('an expired link is refused with a way to get a new one', async () => {
    const email = freshEmail('reset-expired')
    await register(email)
    await deliver()
    await call(forgotAction, '/forgot-password', { fields: { email } })
    const link = linkIn(await mailTo(email), '/reset-password')
    const token = tokenOf(link)
    await database.db
      .update(verification)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(verification.identifier, `reset-password:${token}`))
    expect((await call(resetLoader, link)).body).toEqual({ token: null })
    const refused = await call(resetAction, link, { fields: { token, newPassword: NEW_PASSWORD } })
    expect(refused).toMatchObject({ status: 400, body: { formError: accountMessages.resetLinkUnusable } })
    await logIn(email, PASSWORD)
  })

  /** Asks for a reset link for `email` and returns it, as mailed. */
  async function resetLinkFor(email: string): Promise<string> {
    await call(forgotAction, '/forgot-password', { fields: { email } })
    return linkIn(await mailTo(email), '/reset-password')
  }

  test("using a link cancels the account's other links: an older one is refused as a used one (issue 28)", async () => {
    const email = freshEmail('reset-twice')
    const other = freshEmail('reset-other')
    await register(email)
    await register(other)
    await deliver()
    const older = await resetLinkFor(email)
    const newer = await resetLinkFor(email)
    const othersLink = await resetLinkFor(other)

    const done = await call(resetAction, newer, {
      fields: { token: tokenOf(newer), newPassword: NEW_PASSWORD },
    })
    expect(done).toMatchObject({ status: 303, location: '/login?passwordReset=1' })
    await deliver()

    expect((await call(resetLoader, older)).body).toEqual({ token: null })
    const refused = await call(resetAction, older, {
      fields: { token: tokenOf(older), newPassword: 'yet another reading lamp' },
    })
    expect(refused).toMatchObject({ status: 400, body: { formError: accountMessages.resetLinkUnusable } })
    await logIn(email, NEW_PASSWORD)
    // Another account's link is its own business.
    expect((await call(resetLoader, othersLink)).body).toEqual({ token: tokenOf(othersLink) })
  })

  test('changing the password on the account page cancels the reset links asked for before (issue 28)', async () => {
    const email = freshEmail('reset-then-change')
    const cookie = await register(email)
    await deliver()
    const link = await resetLinkFor(email)

    const changed = await call(accountAction, '/account', {
      fields: { intent: 'change-password', currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      cookie,
    })
    expect(changed.status).toBe(303)
    expect((await call(resetLoader, link)).body).toEqual({ token: null })
    const refused = await call(resetAction, link, {
      fields: { token: tokenOf(link), newPassword: 'yet another reading lamp' },
    })
    expect(refused).toMatchObject({ status: 400, body: { formError: accountMessages.resetLinkUnusable } })
    await logIn(email, NEW_PASSWORD)
  })

  /** This test file's database through a Drizzle that tells `record` the text of every statement it runs. */
  function recordingDb(record: (statement: string) => void): Db {
    const logger = { logQuery: (statement: string) => record(statement) }
    const client = (database.db as unknown as { $client: unknown }).$client
    return database.kind === 'pglite'
      ? drizzlePglite({ client: client as PGlite, schema, logger })
      : drizzlePostgres({ client: client as pg.Pool, schema, logger })
  }

  test('an address with an account and one without: the same statements, and the mail sent only after the answer (issue 28)', async () => {
    const email = freshEmail('same-work')
    await register(email)
    await deliver()
    const statements: string[] = []
    let kicks = 0
    const services = createStoreServices({
      db: recordingDb((statement) => statements.push(statement)),
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger,
      kickOutbox: () => kicks++,
    })
    const workFor = async (address: string) => {
      statements.length = 0
      const answer = await call(forgotAction, '/forgot-password', { fields: { email: address }, services })
      expect(answer.status).toBe(200)
      return [...statements]
    }
    const known = await workFor(email)
    const unknown = await workFor(freshEmail('nobody-same-work'))
    expect(known.length).toBeGreaterThan(0)
    expect(unknown).toEqual(known)
    // The worker is woken once both answers have gone, for each alike.
    expect(kicks).toBe(0)
    await vi.waitFor(() => expect(kicks).toBe(2), { timeout: 5_000 })
    expect((await deliver()).map((mail) => [mail.envelope.to, mail.parsed.subject])).toEqual([
      [[email], 'Reset your CodeBook password'],
    ])
  })

  test('requests are limited per address (3 an hour, known or not) and per IP (10 an hour): 429 + Retry-After', async () => {
    const known = freshEmail('limited')
    await register(known)
    for (const email of [known, freshEmail('limited-unknown')]) {
      for (let attempt = 0; attempt < 3; attempt++)
        expect((await call(forgotAction, '/forgot-password', { fields: { email } })).status).toBe(200)
      const refused = await call(forgotAction, '/forgot-password', { fields: { email } })
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
    }
    const clientIp = freshIp()
    for (let attempt = 0; attempt < 10; attempt++)
      expect(
        (await call(forgotAction, '/forgot-password', { fields: { email: freshEmail('ip') }, clientIp }))
          .status,
      ).toBe(200)
    const refused = await call(forgotAction, '/forgot-password', {
      fields: { email: freshEmail('ip') },
      clientIp,
    })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
  })
})

describe('the account page', () => {
  test('asks a signed-out visitor to log in', async () => {
    expect(await call(accountLoader, '/account')).toMatchObject({
      status: 302,
      location: '/login?redirectTo=%2Faccount',
    })
  })

  test('a new email takes effect only through the link mailed to it; the old address is told', async () => {
    const email = freshEmail('old')
    const newEmail = freshEmail('new')
    const cookie = await register(email)
    await deliver()

    const same = await call(accountAction, '/account', {
      fields: { intent: 'change-email', newEmail: email },
      cookie,
    })
    expect(same).toMatchObject({
      status: 400,
      body: { fieldErrors: { newEmail: accountMessages.sameEmail } },
    })

    const asked = await call(accountAction, '/account', {
      fields: { intent: 'change-email', newEmail },
      cookie,
    })
    expect(asked).toMatchObject({ status: 200, body: { notice: accountMessages.emailChangeSent(newEmail) } })
    expect(await userRow(email)).toBeDefined()
    const mail = await mailTo(newEmail)
    expect(mail.parsed.subject).toBe('Confirm your new CodeBook email')
    const link = linkIn(mail, '/account/verify-email')

    expect((await call(verifyAction, link, { fields: { token: tokenOf(link) } })).body).toMatchObject({
      state: 'verified',
    })
    expect(await userRow(email)).toBeUndefined()
    expect(await userRow(newEmail)).toMatchObject({ emailVerified: true })
    const notice = await mailTo(email)
    expect(notice.parsed.subject).toBe('Your CodeBook email was changed')
    expect(notice.parsed.text).toContain(newEmail)
    // Single use.
    expect((await call(verifyAction, link, { fields: { token: tokenOf(link) } })).body).toMatchObject({
      state: 'used',
    })
  })

  /** The store's services on this test's database, logging every level into `lines`. */
  function servicesLoggingTo(lines: Array<{ level: number; msg: string }>): StoreServices {
    return createStoreServices({
      db: database.db,
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: pino({ level: 'trace' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
    })
  }

  /** An account that asked to move to `wanted`, and the link mailed there. */
  async function emailChangeTo(wanted: string) {
    const email = freshEmail('mover')
    const cookie = await register(email)
    await deliver()
    await call(accountAction, '/account', { fields: { intent: 'change-email', newEmail: wanted }, cookie })
    return { email, cookie, link: linkIn(await mailTo(wanted), '/account/verify-email') }
  }

  test('a new email another account registered before the link was followed: 409, a clear page, the old email kept, no error logged (issue 28)', async () => {
    const wanted = freshEmail('wanted')
    const { email, cookie, link } = await emailChangeTo(wanted)
    await register(wanted)
    await deliver()

    const lines: Array<{ level: number; msg: string }> = []
    const services = servicesLoggingTo(lines)
    const answer = await call(verifyAction, link, { fields: { token: tokenOf(link) }, cookie, services })
    expect(answer).toMatchObject({
      status: 409,
      body: { state: 'taken', formError: accountMessages.newEmailTaken(wanted) },
    })
    expect(accountMessages.newEmailTaken(wanted)).toMatch(/^That address now belongs to another account/)
    expect(await userRow(email)).toMatchObject({ email, emailVerified: false })
    expect((await call(accountLoader, '/account', { cookie })).body).toMatchObject({ email })
    expect(lines.filter((line) => line.level >= 50)).toEqual([])
    // Nobody is told of a change that did not happen.
    expect(await deliver()).toEqual([])
  })

  test('…and registered in the moment between that check and the change: the same answer (issue 28)', async () => {
    const wanted = freshEmail('wanted-race')
    const { email, cookie, link } = await emailChangeTo(wanted)
    const lines: Array<{ level: number; msg: string }> = []
    const logging = servicesLoggingTo(lines)
    const { verifyEmail } = logging.auth.api
    // Better Auth's confirmation, with the registration landing just before it writes.
    const services = {
      ...logging,
      auth: {
        ...logging.auth,
        api: {
          ...logging.auth.api,
          verifyEmail: (async (input: Parameters<typeof verifyEmail>[0]) => {
            await register(wanted)
            return verifyEmail(input)
          }) as typeof verifyEmail,
        },
      },
    }

    const answer = await call(verifyAction, link, { fields: { token: tokenOf(link) }, cookie, services })
    expect(answer).toMatchObject({ status: 409, body: { state: 'taken' } })
    expect(await userRow(email)).toMatchObject({ email })
    expect(lines.filter((line) => line.level >= 50)).toEqual([])
  })

  test("another account's email gets the same answer and no mail", async () => {
    const taken = freshEmail('taken')
    await register(taken)
    const cookie = await register(freshEmail('wants'))
    await deliver()
    const asked = await call(accountAction, '/account', {
      fields: { intent: 'change-email', newEmail: taken },
      cookie,
    })
    expect(asked).toMatchObject({ status: 200, body: { notice: accountMessages.emailChangeSent(taken) } })
    expect(await deliver()).toHaveLength(0)
  })

  test('a new password needs the current one; other sessions are signed out and a mail says so', async () => {
    const email = freshEmail('change-password')
    const cookie = await register(email)
    await logIn(email, PASSWORD, FIREFOX)
    const userId = (await userRow(email))!.id
    await deliver()

    const wrong = await call(accountAction, '/account', {
      fields: { intent: 'change-password', currentPassword: 'not my password', newPassword: NEW_PASSWORD },
      cookie,
    })
    expect(wrong).toMatchObject({
      status: 400,
      body: {
        intent: 'change-password',
        fieldErrors: { currentPassword: accountMessages.currentPasswordWrong },
      },
    })
    const common = await call(accountAction, '/account', {
      fields: { intent: 'change-password', currentPassword: PASSWORD, newPassword: 'iloveyou' },
      cookie,
    })
    expect(common).toMatchObject({
      status: 400,
      body: { fieldErrors: { newPassword: identityMessages.passwordCommon } },
    })
    expect(await sessionCount(userId)).toBe(2)

    const done = await call(accountAction, '/account', {
      fields: { intent: 'change-password', currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      cookie,
    })
    expect(done).toMatchObject({ status: 303, location: '/account?passwordChanged=1' })
    expect(await sessionCount(userId)).toBe(1)
    const newCookie = cookieHeader(done.setCookies)
    expect((await call(accountLoader, '/account', { cookie: newCookie })).body).toMatchObject({ email })
    expect((await mailTo(email)).parsed.subject).toBe('Your CodeBook password was changed')
    await logIn(email, NEW_PASSWORD)
  })

  test('wrong current passwords are limited per account: 429 + Retry-After', async () => {
    const cookie = await register(freshEmail('guessing'))
    const fields = { intent: 'change-password', currentPassword: 'guess', newPassword: NEW_PASSWORD }
    for (let attempt = 0; attempt < 10; attempt++)
      expect((await call(accountAction, '/account', { fields, cookie })).status).toBe(400)
    const refused = await call(accountAction, '/account', { fields, cookie })
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
  })

  test('lists the sessions (device, last seen, this one marked); signs out one, then everywhere else', async () => {
    const email = freshEmail('sessions')
    const cookie = await register(email, CHROME)
    const firefox = await logIn(email, PASSWORD, FIREFOX)
    await logIn(email, PASSWORD, 'curl/8.5.0')
    const stranger = await register(freshEmail('stranger'))

    const page = await call(accountLoader, '/account', { cookie })
    const sessions = page.body!.sessions as Array<{
      id: string
      device: string
      current: boolean
      lastSeen: string
    }>
    expect(sessions.map((s) => [s.device, s.current])).toEqual(
      expect.arrayContaining([
        ['Chrome on Linux', true],
        ['Firefox on Windows', false],
        ['curl', false],
      ]),
    )
    expect(sessions).toHaveLength(3)
    expect(sessions[0]!.current).toBe(true)
    expect(new Date(sessions[0]!.lastSeen).getTime()).toBeGreaterThan(Date.now() - 60_000)

    // Someone else's session id does nothing.
    const strangerSessions = (await call(accountLoader, '/account', { cookie: stranger })).body!
      .sessions as Array<{ id: string }>
    await call(accountAction, '/account', {
      fields: { intent: 'revoke-session', sessionId: strangerSessions[0]!.id },
      cookie,
    })
    expect((await call(accountLoader, '/account', { cookie: stranger })).status).toBe(200)

    const firefoxSession = sessions.find((s) => s.device === 'Firefox on Windows')!
    const revoked = await call(accountAction, '/account', {
      fields: { intent: 'revoke-session', sessionId: firefoxSession.id },
      cookie,
    })
    expect(revoked).toMatchObject({ status: 200, body: { notice: accountMessages.sessionRevoked } })
    expect(await call(accountLoader, '/account', { cookie: firefox })).toMatchObject({ status: 302 })
    expect(((await call(accountLoader, '/account', { cookie })).body!.sessions as unknown[]).length).toBe(2)

    const everywhere = await call(accountAction, '/account', {
      fields: { intent: 'revoke-other-sessions' },
      cookie,
    })
    expect(everywhere).toMatchObject({ status: 200, body: { notice: accountMessages.otherSessionsRevoked } })
    const left = (await call(accountLoader, '/account', { cookie })).body!.sessions as Array<{
      current: boolean
    }>
    expect(left).toEqual([expect.objectContaining({ current: true, device: 'Chrome on Linux' })])
  })

  test('an unknown form is a 400, not a 500', async () => {
    const cookie = await register(freshEmail('unknown-form'))
    expect((await call(accountAction, '/account', { fields: { intent: 'nonsense' }, cookie })).status).toBe(
      400,
    )
  })
})

test('a guest who registers is mailed a confirmation link and keeps the account signed in', async () => {
  const guest = await call(loginAction, '/login', { fields: { intent: 'guest' } })
  const email = freshEmail('guest')
  const outcome = await call(registerAction, '/Register', {
    fields: { email, password: PASSWORD },
    cookie: cookieHeader(guest.setCookies),
  })
  expect(outcome.status).toBe(303)
  expect((await mailTo(email)).parsed.subject).toBe('Confirm your CodeBook email')
  const rows = await database.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.kind, 'verify-email'), like(emailOutbox.to, email)))
  expect(rows).toHaveLength(1)
})
