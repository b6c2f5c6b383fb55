import { describe, expect } from 'vitest'
import { recordAudit } from '#app/features/admin/audit.server.ts'
import { listCustomers } from '#app/features/admin/customers.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { loader as customerLoader } from '#app/routes/admin/customer.tsx'
import { loader as customersLoader } from '#app/routes/admin/customers.tsx'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createGuestCookie, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'

describe('customers in the back office', () => {
  test('search by email (any case, wildcards literal), keyset pages, guests left out; a customer’s page', async ({
    database,
  }) => {
    const { db } = database
    const admin = await createAdmin(db)
    const [book] = await listBooks(db)
    const buyer = await createBuyer(db, [book!.id], { email: 'Zed_Reader@Example.com' })
    await createReader(db, { email: 'zedXreader@example.com' })
    await createGuestCookie(db)
    await recordAudit(db, {
      actor: admin.actor,
      action: 'user.grant-admin',
      entityType: 'user',
      entityId: buyer.userId,
    })
    const list = (search: string) =>
      customersLoader(routeArgs({ db, path: `/admin/customers${search}`, cookie: admin.cookie }))

    // '_' is a letter here, not 'any character': only the buyer matches.
    const found = await list('?q=zed_READER')
    expect(found.customers.map((customer) => customer.email)).toEqual(['zed_reader@example.com'])

    const all = await list('')
    expect(all.customers.every((customer) => !customer.email.includes('guest'))).toBe(true)
    const emails = all.customers.map((customer) => customer.email)
    expect(emails).toEqual(emails.toSorted())

    const firstPage = await customersLoader(
      routeArgs({ db, path: '/admin/customers?q=zed', cookie: admin.cookie }),
    )
    expect(firstPage.customers).toHaveLength(2)
    expect(firstPage.next).toBeNull()
    const one = await listCustomers(db, { query: 'zed', limit: 1 })
    const two = await listCustomers(db, { query: 'zed', limit: 1, afterEmail: one.nextAfterEmail! })
    expect(two.nextAfterEmail).toBeNull()
    expect([...one.rows, ...two.rows].map((row) => row.email).toSorted()).toEqual(
      ['zed_reader@example.com', 'zedxreader@example.com'].toSorted(),
    )

    const page = await customerLoader(
      routeArgs({
        db,
        path: `/admin/customers/${buyer.userId}`,
        cookie: admin.cookie,
        params: { userId: buyer.userId },
      }),
    )
    expect(page.customer.email).toBe('zed_reader@example.com')
    expect(page.orders.map((order) => order.number)).toEqual([buyer.orderNumber])
    expect(page.library.map((item) => item.title)).toEqual([book!.title])
    expect(page.audit.map((entry) => entry.action)).toEqual(['user.grant-admin'])

    const missing = (await thrownBy(() =>
      customerLoader(
        routeArgs({
          db,
          path: '/admin/customers/nobody',
          cookie: admin.cookie,
          params: { userId: 'nobody' },
        }),
      ),
    )) as { init: { status: number } }
    expect(missing.init.status).toBe(404)
  })
})
