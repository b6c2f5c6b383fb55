import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import pino from 'pino'
import { commandLineActor, listAuditLog, recordAudit } from '#app/features/admin/audit.server.ts'
import { applyAdminEmails, listAdmins, setRole } from '#app/features/admin/roles.server.ts'
import { action as accountAction } from '#app/routes/account.tsx'
import { action as verifyAction } from '#app/routes/account-verify-email.tsx'
import { loader as auditLoader } from '#app/routes/admin/audit.tsx'
import { loader as layoutLoader } from '#app/routes/admin/layout.tsx'
import { loader as rootLoader } from '#app/root.tsx'
import { openDatabase, type Db } from '#app/server/db/database.server.ts'
import { emailOutbox, user } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { applyConfiguredAdmins } from '#app/startup.server.ts'
// No alias reaches scripts/: the command's logic is imported by its path.
import { parseAdminCommand, runAdminCommand, usage } from '../../scripts/admin-command.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createGuestCookie, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'

const run = promisify(execFile)

let database: TestDatabase
test.beforeAll(({ database: fileDatabase }) => {
  database = fileDatabase
})

const guestCookie = () => createGuestCookie(database.db)

/** What following the link mailed at registration does to the account. */
async function confirmEmail(db: Db, userId: string) {
  await db.update(user).set({ emailVerified: true }).where(eq(user.id, userId))
}

async function roleOf(userId: string) {
  const [row] = await database.db.select({ role: user.role }).from(user).where(eq(user.id, userId))
  return row?.role
}

describe('who may open the back office', () => {
  test('nobody, a guest and a customer get the ordinary 404; an admin gets the page', async () => {
    const customer = await createReader(database.db)
    const admin = await createAdmin(database.db)
    for (const cookie of [undefined, await guestCookie(), customer.cookie]) {
      const thrown = await thrownBy(() =>
        layoutLoader(routeArgs({ db: database.db, path: '/admin', cookie })),
      )
      expect(thrown).toMatchObject({ init: { status: 404 }, data: { title: 'Page not found' } })
      const audit = await thrownBy(() =>
        auditLoader(routeArgs({ db: database.db, path: '/admin/audit', cookie })),
      )
      expect(audit).toMatchObject({ init: { status: 404 } })
    }
    expect(await layoutLoader(routeArgs({ db: database.db, path: '/admin', cookie: admin.cookie }))).toEqual({
      adminEmail: admin.email,
    })
  })

  test('the root tells the header who is an admin (the Back office link), and revoking takes effect at once', async () => {
    const admin = await createAdmin(database.db)
    const root = async () =>
      (await rootLoader(routeArgs({ db: database.db, path: '/', cookie: admin.cookie }))) as {
        user: { isAdmin: boolean }
      }
    expect((await root()).user.isAdmin).toBe(true)
    await setRole(database.db, admin.email, 'customer', commandLineActor)
    expect((await root()).user.isAdmin).toBe(false)
    const thrown = await thrownBy(() =>
      layoutLoader(routeArgs({ db: database.db, path: '/admin', cookie: admin.cookie })),
    )
    expect(thrown).toMatchObject({ init: { status: 404 } })
  })

  test('sign-up cannot make itself an admin', async () => {
    const email = `sneaky-${crypto.randomUUID()}@example.com`
    await servicesFor(database.db)
      .auth.api.signUpEmail({
        body: { email, password: 'correct horse battery staple', name: email, role: 'admin' } as never,
      })
      .catch(() => undefined)
    const [row] = await database.db.select({ role: user.role }).from(user).where(eq(user.email, email))
    expect(row?.role ?? 'customer').toBe('customer')
  })

  test('a guest is never made an admin', async () => {
    const cookie = await guestCookie()
    const session = await servicesFor(database.db).auth.api.getSession({
      headers: new Headers({ Cookie: cookie }),
    })
    expect(await setRole(database.db, session!.user.email, 'admin', commandLineActor)).toEqual({
      outcome: 'guest',
    })
  })
})

describe('roles and the audit log', () => {
  test('grant and revoke are recorded, who and what, before → after; a repeat changes nothing', async () => {
    const reader = await createReader(database.db, { confirmed: true })
    const actor = { id: null, email: 'cli' }
    expect(await setRole(database.db, reader.email.toUpperCase(), 'admin', actor)).toEqual({
      outcome: 'changed',
      email: reader.email,
    })
    expect(await setRole(database.db, reader.email, 'admin', actor)).toMatchObject({ outcome: 'unchanged' })
    expect((await listAdmins(database.db)).map((admin) => admin.email)).toContain(reader.email)
    await setRole(database.db, reader.email, 'customer', actor)
    const { rows } = await listAuditLog(database.db, { entity: { type: 'user', id: reader.userId } })
    expect(rows.map((row) => [row.action, row.before, row.after, row.actorEmail])).toEqual([
      [
        'user.revoke-admin',
        { email: reader.email, role: 'admin' },
        { email: reader.email, role: 'customer' },
        'cli',
      ],
      [
        'user.grant-admin',
        { email: reader.email, role: 'customer' },
        { email: reader.email, role: 'admin' },
        'cli',
      ],
    ])
    expect(await setRole(database.db, 'nobody@example.com', 'admin', actor)).toEqual({
      outcome: 'unknown-account',
    })
  })

  test('ADMIN_EMAILS is parsed (trimmed, lower-cased) and applied to the accounts that exist', async () => {
    expect(parseEnv({ ADMIN_EMAILS: ' Owner@Example.com, second@example.com ,' }).ADMIN_EMAILS).toEqual([
      'owner@example.com',
      'second@example.com',
    ])
    expect(() => parseEnv({ ADMIN_EMAILS: 'owner@example.com, not-an-email' })).toThrow(/ADMIN_EMAILS/)
    const reader = await createReader(database.db, { confirmed: true })
    const applied = await applyAdminEmails(database.db, [reader.email, 'later@example.com'], commandLineActor)
    expect(applied).toEqual({ notRegistered: ['later@example.com'], unconfirmed: [] })
    expect((await listAdmins(database.db)).map((admin) => admin.email)).toContain(reader.email)
  })

  test('the audit page lists newest first and pages by keyset', async () => {
    const admin = await createAdmin(database.db)
    for (let index = 0; index < 55; index++)
      await recordAudit(database.db, {
        actor: admin.actor,
        action: 'test.touch',
        entityType: 'test',
        entityId: String(index),
        after: { index },
      })
    const first = await auditLoader(
      routeArgs({ db: database.db, path: '/admin/audit', cookie: admin.cookie }),
    )
    expect(first.entries).toHaveLength(50)
    expect(first.entries[0]).toMatchObject({ action: 'test.touch', entity: 'test 54', actor: admin.email })
    const second = await auditLoader(
      routeArgs({ db: database.db, path: `/admin/audit?before=${first.nextBeforeId}`, cookie: admin.cookie }),
    )
    expect(second.entries[0]).toMatchObject({ entity: 'test 4' })
    expect(second.isFirstPage).toBe(false)
    // A malformed cursor shows the newest page rather than failing.
    const bad = await auditLoader(
      routeArgs({ db: database.db, path: '/admin/audit?before=1%27%20or%201=1', cookie: admin.cookie }),
    )
    expect(bad.isFirstPage).toBe(true)
  })
})

describe('only a confirmed email is made an admin (issue 28)', () => {
  test('a grant to an unconfirmed email is refused and changes nothing; revoking needs no confirmation', async () => {
    const reader = await createReader(database.db)
    expect(await setRole(database.db, reader.email, 'admin', commandLineActor)).toEqual({
      outcome: 'unconfirmed-email',
      email: reader.email,
    })
    expect(await roleOf(reader.userId)).toBe('customer')
    const { rows } = await listAuditLog(database.db, { entity: { type: 'user', id: reader.userId } })
    expect(rows).toEqual([])

    await confirmEmail(database.db, reader.userId)
    expect(await setRole(database.db, reader.email, 'admin', commandLineActor)).toMatchObject({
      outcome: 'changed',
    })
    // An admin granted before this rule, whose address is unconfirmed, can still be made a customer.
    await database.db.update(user).set({ emailVerified: false }).where(eq(user.id, reader.userId))
    expect(await setRole(database.db, reader.email, 'customer', commandLineActor)).toMatchObject({
      outcome: 'changed',
    })
    expect(await roleOf(reader.userId)).toBe('customer')
  })

  test('ADMIN_EMAILS at start-up grants only confirmed addresses and warns, naming each unconfirmed one', async () => {
    const confirmed = await createReader(database.db, { confirmed: true })
    const squatter = await createReader(database.db)
    const lines: Array<{ level: number; msg: string; emails?: string[] }> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
    await applyConfiguredAdmins({
      db: database.db,
      env: { ADMIN_EMAILS: [confirmed.email, squatter.email, 'later@example.com'] },
      logger,
    })
    expect(await roleOf(confirmed.userId)).toBe('admin')
    expect(await roleOf(squatter.userId)).toBe('customer')
    const warnings = lines.filter((line) => line.level === 40)
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ emails: [squatter.email], msg: expect.stringMatching(/not confirmed/) }),
        expect.objectContaining({ emails: ['later@example.com'], msg: expect.stringMatching(/no account/) }),
      ]),
    )
    expect(lines.some((line) => line.level >= 50)).toBe(false)
  })

  test('npm run admin -- grant refuses an unconfirmed email, says why, exits 1', async () => {
    const reader = await createReader(database.db)
    const out: string[] = []
    const err: string[] = []
    const io = { log: (line: string) => out.push(line), error: (line: string) => err.push(line) }
    expect(await runAdminCommand(database.db, { command: 'grant', email: reader.email }, io)).toBe(1)
    expect(err.join('\n')).toMatch(/has not confirmed|not confirmed/)
    expect(err.join('\n')).toContain(reader.email)
    expect(await roleOf(reader.userId)).toBe('customer')

    await confirmEmail(database.db, reader.userId)
    expect(await runAdminCommand(database.db, { command: 'grant', email: reader.email }, io)).toBe(0)
    expect(out.at(-1)).toBe(`${reader.email} is now an admin.`)
    expect(await runAdminCommand(database.db, { command: 'revoke', email: reader.email }, io)).toBe(0)
    expect(await roleOf(reader.userId)).toBe('customer')
  })

  test("an admin's email changes only through the link mailed to the new address: still an admin, still confirmed", async () => {
    const admin = await createAdmin(database.db)
    const newEmail = `moved-${crypto.randomUUID()}@example.com`
    await database.db.delete(emailOutbox)
    await accountAction(
      routeArgs({
        db: database.db,
        path: '/account',
        cookie: admin.cookie,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'change-email', newEmail }) },
      }),
    )
    const [mail] = await database.db.select().from(emailOutbox).where(eq(emailOutbox.to, newEmail))
    const token = mail!.text.match(/verify-email\?token=([A-Za-z0-9_-]+)/)![1]!
    // Until then the account keeps its confirmed address.
    expect(await database.db.select().from(user).where(eq(user.id, admin.userId))).toEqual([
      expect.objectContaining({ email: admin.email, emailVerified: true, role: 'admin' }),
    ])
    await verifyAction(
      routeArgs({
        db: database.db,
        path: '/account/verify-email',
        init: { method: 'POST', body: new URLSearchParams({ token }) },
      }),
    )
    expect(await database.db.select().from(user).where(eq(user.id, admin.userId))).toEqual([
      expect.objectContaining({ email: newEmail, emailVerified: true, role: 'admin' }),
    ])
  })
})

describe('npm run admin', () => {
  test('list, an unknown account and bad usage (in-process: the command after its database is open)', async () => {
    const admin = await createAdmin(database.db)
    const out: string[] = []
    const err: string[] = []
    const io = { log: (line: string) => out.push(line), error: (line: string) => err.push(line) }
    expect(await runAdminCommand(database.db, { command: 'list' }, io)).toBe(0)
    expect(out.some((line) => line.startsWith(`${admin.email}\tsince `))).toBe(true)
    expect(await runAdminCommand(database.db, { command: 'grant', email: 'nobody@example.com' }, io)).toBe(1)
    expect(err.at(-1)).toMatch(/No account/)
    expect(parseAdminCommand(['promote', 'owner@example.com'])).toEqual({
      usageError: expect.stringMatching(/^Unknown command "promote"/),
    })
    expect(parseAdminCommand(['list', 'owner@example.com'])).toEqual({ usageError: usage })
    expect(parseAdminCommand(['revoke', 'owner@example.com'])).toEqual({
      command: 'revoke',
      email: 'owner@example.com',
    })
  })

  // Each process migrates and opens the embedded database: 5-30 s apiece on a loaded 2-core machine, so the
  // commands' other cases are above, in-process.
  test('as a process on the embedded database: grant, an unknown account (exit 1), bad usage (exit 2)', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'codebook-admin-cli-'))
    const embedded = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') })
    await embedded.migrate()
    const reader = await createReader(embedded.db, { email: 'owner@example.com', confirmed: true })
    await embedded.close()
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }
    const cli = (...args: string[]) =>
      run('npx', ['tsx', 'scripts/admin.ts', ...args], { env }).then(
        (out) => ({ code: 0, ...out }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      )
    expect(await cli('grant', 'Owner@Example.com')).toMatchObject({
      code: 0,
      stdout: /owner@example.com is now an admin/,
    })
    expect(await cli('grant', 'nobody@example.com')).toMatchObject({ code: 1, stderr: /No account/ })
    expect(await cli()).toMatchObject({ code: 2, stderr: /Usage/ })
    const reopened = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') })
    const [row] = await reopened.db.select({ role: user.role }).from(user).where(eq(user.id, reader.userId))
    expect(row?.role).toBe('admin')
    const { rows } = await listAuditLog(reopened.db)
    expect(rows.map((entry) => entry.action)).toEqual(['user.grant-admin'])
    await reopened.close()
    // Four openings of the embedded database (one here, three by the processes): 240 s leaves room for the
    // slowest seen at load ~10 (CI with other work beside it timed out at 120 s).
  }, 240_000)
})
