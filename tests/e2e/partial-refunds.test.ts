import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { logIn } from './shopper.ts'

/**
 * A partial refund in a real browser (issue 31), on a store of its own whose database has a buyer's order of two
 * books when it starts: the admin refunds one of them from the order's page.
 */
const titles = ['The Future of Design Systems', 'Build a Blockchain from Scratch in Go'] as const
const accounts = { buyer: '', orderId: '' }
const own = ownStoreWithAdmin(async (db) => {
  await seedCatalog(db)
  const idOf = async (title: string) =>
    (await db.select({ id: books.id }).from(books).where(eq(books.title, title)))[0]!.id
  const buyer = await createBuyer(db, await Promise.all(titles.map(idOf)))
  Object.assign(accounts, { buyer: buyer.email, orderId: buyer.orderId })
})

function logInAt(page: Page, email: string, redirectTo: string) {
  return logIn(page, { email, password: testPassword }, { storeUrl: own.store.url, redirectTo })
}

describe('a partial refund in the back office', () => {
  test('one book of an order: only that book leaves the library; an amount too large is told beside its field', async () => {
    const [refunded, kept] = titles
    const page = await newPage(own.browser)
    await logInAt(page, own.admin.email, `/admin/orders/${accounts.orderId}`)
    // More than the order: refused beside the field, nothing refunded.
    await page.getByLabel(/^An amount/).check()
    await page.getByLabel(/^Amount \(/).fill('1000')
    await page.getByLabel(/^Yes, refund order/).check()
    await page.getByRole('button', { name: 'Refund', exact: true }).click()
    await page.getByText(/^At most \$[\d.]+ is left to refund\.$/).waitFor()
    expect(await page.getByLabel(/^Amount \(/).getAttribute('aria-invalid')).toBe('true')
    await expectHealthyPage(page)

    await page.getByLabel(/^The books ticked below/).check()
    await page.getByRole('checkbox', { name: new RegExp(`^${refunded}`) }).check()
    await page.getByLabel(/^Yes, refund order/).check()
    await page.getByRole('button', { name: 'Refund', exact: true }).click()
    await page.getByRole('status').filter({ hasText: 'The refund went through' }).waitFor()
    expect(await page.getByRole('row', { name: new RegExp(refunded) }).textContent()).toContain('Revoked')
    expect(await page.getByRole('row', { name: new RegExp(kept) }).textContent()).not.toContain('Revoked')
    await expectHealthyPage(page)

    const reader = await newPage(own.browser)
    await logInAt(reader, accounts.buyer, '/account/library')
    await reader.getByRole('heading', { name: kept }).waitFor()
    expect(await reader.getByRole('heading', { name: refunded }).count()).toBe(0)
  })
})
