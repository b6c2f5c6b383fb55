import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { commandLineActor, listAuditLog, recordAudit } from '#app/features/admin/audit.server.ts'
import { applyAdminEmails, listAdmins, setRole } from '#app/features/admin/roles.server.ts'
import { loader as auditLoader } from '#app/routes/admin/audit.tsx'
import { loader as layoutLoader } from '#app/routes/admin/layout.tsx'
import { loader as rootLoader } from '#app/root.tsx'
import { openDatabase } from '#app/server/db/database.server.ts'
import { user } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
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
    const reader = await createReader(database.db)
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
    const reader = await createReader(database.db)
    const missing = await applyAdminEmails(database.db, [reader.email, 'later@example.com'], commandLineActor)
    expect(missing).toEqual(['later@example.com'])
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

describe('npm run admin', () => {
  test('grant, list and revoke on the embedded database; unknown accounts and bad usage are refused', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'codebook-admin-cli-'))
    const embedded = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') })
    await embedded.migrate()
    const reader = await createReader(embedded.db, { email: 'owner@example.com' })
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
    expect(await cli('list')).toMatchObject({ code: 0, stdout: /owner@example.com/ })
    expect(await cli('grant', 'nobody@example.com')).toMatchObject({ code: 1, stderr: /No account/ })
    expect(await cli('promote', 'owner@example.com')).toMatchObject({ code: 2, stderr: /Unknown command/ })
    expect(await cli()).toMatchObject({ code: 2, stderr: /Usage/ })
    expect(await cli('revoke', 'owner@example.com')).toMatchObject({ code: 0, stdout: /no longer an admin/ })
    const reopened = await openDatabase({ kind: 'pglite', dataDir: path.join(dataDir, 'db') })
    const [row] = await reopened.db.select({ role: user.role }).from(user).where(eq(user.id, reader.userId))
    expect(row?.role).toBe('customer')
    const { rows } = await listAuditLog(reopened.db)
    expect(rows.map((entry) => entry.action)).toEqual(['user.revoke-admin', 'user.grant-admin'])
    await reopened.close()
  }, 60_000)
})
