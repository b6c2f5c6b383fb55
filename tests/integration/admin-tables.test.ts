import { expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import AuditLog, { loader as auditLoader } from '#app/routes/admin/audit.tsx'
import Customer, { loader as customerLoader } from '#app/routes/admin/customer.tsx'
import Customers, { loader as customersLoader } from '#app/routes/admin/customers.tsx'
import AdminOrder, { loader as orderLoader } from '#app/routes/admin/order.tsx'
import AdminOrders, { loader as ordersLoader } from '#app/routes/admin/orders.tsx'
import AdminOverview, { loader as overviewLoader } from '#app/routes/admin/overview.tsx'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { renderRoute } from '#tests/render-route.ts'
import { routeArgs } from '#tests/route-args.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer } from '#harness/factories/buyers.ts'

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
let buyer: Awaited<ReturnType<typeof createBuyer>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
  const [first] = await listBooks(database.db)
  buyer = await createBuyer(database.db, [first!.id], {
    email: 'a.very.long.reader.address@subdomain.example.com',
  })
})

/** A back-office page as the server renders it from its loader's data, for the admin. */
async function adminPage(
  pattern: string,
  path: string,
  Component: unknown,
  loader: (args: never) => Promise<unknown>,
  params: Record<string, string> = {},
) {
  const loaderData = await loader(routeArgs({ db: database.db, path, cookie: admin.cookie, params }) as never)
  return renderRoute({ Component: Component as never, pattern, path, loaderData })
}

// `break-all` broke an email at whatever letter its column ended on ('a.very.long.reader.addr' / 'ess@…').
test('emails and ids in the back office break at their @ and dots, never mid-word: no break-all', async () => {
  const pages = {
    orders: await adminPage('admin/orders', '/admin/orders', AdminOrders, ordersLoader),
    order: await adminPage(
      'admin/orders/:orderId',
      `/admin/orders/${buyer.orderId}`,
      AdminOrder,
      orderLoader,
      {
        orderId: buyer.orderId,
      },
    ),
    overview: await adminPage('admin', '/admin', AdminOverview, overviewLoader),
    customers: await adminPage('admin/customers', '/admin/customers', Customers, customersLoader),
    customer: await adminPage(
      'admin/customers/:userId',
      `/admin/customers/${buyer.userId}`,
      Customer,
      customerLoader,
      {
        userId: buyer.userId,
      },
    ),
    audit: await adminPage('admin/audit', '/admin/audit', AuditLog, auditLoader),
  }
  const brokenAddress =
    'a<wbr/>.very<wbr/>.long<wbr/>.reader<wbr/>.address<wbr/>@subdomain<wbr/>.example<wbr/>.com'
  for (const [name, html] of Object.entries(pages)) {
    expect.soft(html, name).not.toMatch(/\bbreak-all\b/)
  }
  for (const name of ['orders', 'overview', 'customers', 'customer'] as const)
    expect.soft(pages[name], name).toContain(brokenAddress)
})
