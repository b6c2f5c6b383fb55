import { eq } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { loader as rootLoader } from '#app/root.tsx'
import AccountOrders, { loader as accountOrdersLoader } from '#app/routes/account-orders.tsx'
import Order, { loader as orderLoader } from '#app/routes/order.tsx'
import { orders } from '#app/server/db/schema/index.server.ts'
import { visitorKey } from '#app/visitor-key.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { renderRoute } from '#tests/render-route.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'
import { createBuyer } from '#harness/factories/buyers.ts'

let database: TestDatabase
let buyer: Awaited<ReturnType<typeof createBuyer>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  const [first] = await listBooks(database.db)
  buyer = await createBuyer(database.db, [first!.id])
  // Late in the evening in UTC: already the next day east of it, which the page must not show.
  await database.db
    .update(orders)
    .set({ createdAt: new Date('2026-03-04T23:30:00Z') })
    .where(eq(orders.id, buyer.orderId))
})

/** The root's data and the page's, as a reader whose browser sends `acceptLanguage` would get them. */
async function asReader(
  path: string,
  acceptLanguage: string | undefined,
  params: Record<string, string> = {},
) {
  const args = () =>
    routeArgs({
      db: database.db,
      path,
      cookie: buyer.cookie,
      params,
      init: acceptLanguage === undefined ? {} : { headers: { 'Accept-Language': acceptLanguage } },
    })
  return { root: await rootLoader(args()), args }
}

describe('dates in the reader’s locale, from Accept-Language', () => {
  test('an order’s page: German for de-DE, American for en-US and for a header that says nothing usable', async () => {
    const path = `/orders/${buyer.orderId}`
    const cases = [
      ['de-DE,de;q=0.9,en;q=0.8', 'de-DE', '04.03.2026'],
      ['en-US,en;q=0.9', 'en-US', 'Mar 4, 2026'],
      ['en-GB', 'en-GB', '4 Mar 2026'],
      [undefined, 'en-US', 'Mar 4, 2026'],
      [';;;q=x, *;q=banana, x-pig-latin', 'en-US', 'Mar 4, 2026'],
    ] as const
    for (const [header, locale, date] of cases) {
      const { root, args } = await asReader(path, header, { orderId: buyer.orderId })
      expect(root.locale).toBe(locale)
      const html = renderRoute({
        Component: Order as never,
        pattern: 'orders/:orderId',
        path,
        loaderData: await orderLoader(args() as never),
        rootData: root,
      })
      expect(html).toMatch(
        new RegExp(`<time id="[^"]+" dateTime="2026-03-04T23:30:00.000Z" lang="${locale}">${date}</time>`),
      )
    }
  })

  test('My orders lists the same date the same way', async () => {
    for (const [header, date] of [
      ['de', '04.03.2026'],
      ['en-US', 'Mar 4, 2026'],
    ] as const) {
      const { root, args } = await asReader('/account/orders', header)
      const html = renderRoute({
        Component: AccountOrders as never,
        pattern: 'account/orders',
        path: '/account/orders',
        loaderData: await accountOrdersLoader(args() as never),
        rootData: root,
      })
      expect(html).toContain(`>${date}</time>`)
    }
  })
})

describe('the page cache keys on the resolved locale', () => {
  const keyOf = (acceptLanguage?: string) =>
    visitorKey(
      new Request('http://store/', {
        headers: acceptLanguage === undefined ? {} : { 'Accept-Language': acceptLanguage },
      }),
      servicesFor(database.db),
    )

  test('readers of two locales get two keys; the spellings of one locale, one key', async () => {
    const german = await keyOf('de-DE')
    expect(german).toBeDefined()
    expect(await keyOf('en-US')).not.toBe(german)
    for (const same of ['de-DE,de;q=0.9', 'de-de', 'de-DE-u-ca-buddhist', 'tlh, de-DE;q=0.5'])
      expect(await keyOf(same)).toBe(german)
    const american = await keyOf('en-US')
    for (const same of [undefined, '', '*', 'en-US,en;q=0.9', ';;;', 'x-pig-latin'])
      expect(await keyOf(same)).toBe(american)
  })
})
