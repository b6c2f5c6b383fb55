import { describe, expect } from 'vitest'
import routes from '#app/routes.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createGuestCookie, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'

/**
 * Every route under /admin, read from app/routes.ts itself: a route added there later is covered without
 * anyone remembering this file. Each loader and action must answer anyone but an admin with the 404.
 */
type RouteEntry = { path?: string; file: string; index?: boolean; children?: RouteEntry[] }
function adminRoutes(): { path: string; file: string }[] {
  const admin = (routes as RouteEntry[]).find((route) => route.path === 'admin')
  if (!admin) throw new Error('no /admin route in app/routes.ts')
  return [
    { path: '/admin', file: admin.file },
    ...(admin.children ?? []).map((child) => ({
      path: child.index ? '/admin' : `/admin/${child.path}`,
      file: child.file,
    })),
  ]
}

let database: TestDatabase
let params: Record<string, string>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  const [book] = await listBooks(database.db)
  // Real ids, so that an admin gets the page itself (not a 404 for an unknown book or order).
  const buyer = await createBuyer(database.db, [book!.id])
  params = { bookId: book!.id, orderId: buyer.orderId, slug: 'about', userId: buyer.userId }
})

const guestCookie = () => createGuestCookie(database.db)

describe('every /admin loader and action is behind requireAdmin', () => {
  test('the route list is what we expect to guard', () => {
    expect(adminRoutes().length).toBeGreaterThanOrEqual(12)
  })

  test.each(adminRoutes())('$path ($file)', async ({ path, file }) => {
    const module = (await import(`../../app/${file}`)) as {
      loader?: (args: unknown) => unknown
      action?: (args: unknown) => unknown
    }
    expect(module.loader ?? module.action, `${file} has neither loader nor action`).toBeDefined()
    const customer = await createReader(database.db)
    const url = path.replace(/:(\w+)/g, (_, name: string) => params[name] ?? name)
    for (const cookie of [undefined, await guestCookie(), customer.cookie]) {
      if (module.loader) {
        const thrown = await thrownBy(() =>
          module.loader!(routeArgs({ db: database.db, path: url, cookie, params })),
        )
        expect(thrown, `GET ${url}`).toMatchObject({ init: { status: 404 } })
      }
      if (module.action) {
        const init = {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'intent=delete&reason=x',
        }
        const thrown = await thrownBy(() =>
          module.action!(routeArgs({ db: database.db, path: url, cookie, params, init })),
        )
        expect(thrown, `POST ${url}`).toMatchObject({ init: { status: 404 } })
      }
    }
    // And an admin is let through the guard (whatever the page then answers, it is not the guard's 404).
    const admin = await createAdmin(database.db)
    if (module.loader) {
      const answer = await Promise.resolve()
        .then(() => module.loader!(routeArgs({ db: database.db, path: url, cookie: admin.cookie, params })))
        .catch((thrown: unknown) => thrown)
      expect((answer as { data?: { title?: string } } | null)?.data?.title).not.toBe('Page not found')
    }
  })
})
