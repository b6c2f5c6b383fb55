import { expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { loader as exportLoader } from '#app/routes/admin/orders-export.ts'
import { loader as ordersLoader } from '#app/routes/admin/orders.tsx'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { routeArgs } from '#tests/route-args.ts'

// The orders back office's date filters at the ends of what its form accepts (four-digit years). Found by
// `npm run drill:fuzz`: `?to=9999-12-31` made the end bound the year 10000, which JavaScript writes
// '+010000-01-01T00:00:00.000Z' and PostgreSQL refuses (22009). The export's stream failed after its 200 (the
// CSV cut short), and the same URL asked for as React Router data (`export.csv.data`), which reads the whole
// body before answering, was a 500.
let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
let buyer: Awaited<ReturnType<typeof createBuyer>>

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
  const [book] = await listBooks(database.db)
  buyer = await createBuyer(database.db, [book!.id])
})

const today = () => new Date().toISOString().slice(0, 10)

async function pageOrders(query: string) {
  const result = await ordersLoader(
    routeArgs({ db: database.db, path: `/admin/orders${query}`, cookie: admin.cookie }),
  )
  const { status, body } =
    'init' in result
      ? { status: result.init?.status ?? 200, body: result.data }
      : { status: 200, body: result }
  return { status, ids: body.orders.map((order) => order.id), errors: body.errors }
}

async function exportOrders(query: string, dataRequest = false) {
  const response = (await exportLoader(
    routeArgs({
      db: database.db,
      path: `/admin/orders/export.csv${query}`,
      cookie: admin.cookie,
      dataRequest,
    }),
  )) as Response
  // Read whole, as React Router does for a `.data` request.
  return { status: response.status, text: await response.text() }
}

test('the widest dates the form accepts list the orders, on the page and in the CSV, as data too', async () => {
  const buyerOnly = `buyer=${encodeURIComponent(buyer.email)}`
  for (const query of [
    `?${buyerOnly}&to=9999-12-31`,
    `?${buyerOnly}&from=0001-01-01&to=9999-12-31`,
    `?${buyerOnly}&from=${today()}&to=${today()}`,
  ]) {
    const page = await pageOrders(query)
    expect(page.status, query).toBe(200)
    expect(page.ids, query).toEqual([buyer.orderId])
    for (const dataRequest of [false, true]) {
      const csv = await exportOrders(query, dataRequest)
      expect(csv.status, query).toBe(200)
      expect(csv.text, query).toContain(`${buyer.orderNumber},${buyer.orderId},`)
    }
  }
})

test('the bounds stay whole UTC days: an order made today is outside a range that ends yesterday or starts tomorrow', async () => {
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
  const buyerOnly = `buyer=${encodeURIComponent(buyer.email)}`
  for (const query of [`?${buyerOnly}&to=${day(-1)}`, `?${buyerOnly}&from=${day(1)}&to=9999-12-31`]) {
    expect((await pageOrders(query)).ids, query).toEqual([])
    expect((await exportOrders(query)).text, query).not.toContain(buyer.orderId)
  }
})

test('a year 0000 (PostgreSQL has none) is a 400 naming the field, never a 500', async () => {
  for (const [query, field] of [
    ['?from=0000-01-01', 'from'],
    ['?to=0000-12-31', 'to'],
  ] as const) {
    const page = await pageOrders(query)
    expect(page.status, query).toBe(400)
    expect(page.errors[field], query).toMatch(/not a real date/)
    const csv = await exportOrders(query)
    expect(csv.status, query).toBe(400)
    expect(csv.text, query).toContain(`- ${field}: This is not a real date.`)
  }
})
