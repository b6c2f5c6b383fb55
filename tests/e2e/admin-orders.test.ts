import { eq } from 'drizzle-orm'
import { AxeBuilder } from '@axe-core/playwright'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { logIn } from './shopper.ts'

/**
 * The back office's orders in a real browser, on a store of its own whose database already has a buyer's
 * order when it starts, and an owner made an admin by ADMIN_EMAILS.
 */
const accounts = { buyer: '', orderId: '', orderNumber: 0 }
const title = 'Django Framework'
const own = ownStoreWithAdmin(async (db) => {
  // A buyer's order made before the store starts (the store seeds the catalogue at start; here first).
  await seedCatalog(db)
  const [book] = await db.select({ id: books.id }).from(books).where(eq(books.title, title))
  const buyer = await createBuyer(db, [book!.id])
  Object.assign(accounts, { buyer: buyer.email, orderId: buyer.orderId, orderNumber: buyer.orderNumber })
})

/** Signs `email` in on this file's store (the factories' password) and waits at `redirectTo`. */
function logInAt(page: Page, email: string, redirectTo: string) {
  return logIn(page, { email, password: testPassword }, { storeUrl: own.store.url, redirectTo })
}

describe('orders in the back office', () => {
  test.each(themes)('the list, a bad filter and the order page pass axe (%s theme)', async (theme) => {
    const page = await newPage(own.browser)
    await page.emulateMedia({ colorScheme: theme })
    await logInAt(page, own.admin.email, '/admin/orders')
    await page.getByLabel('Buyer email contains').fill(accounts.buyer.toUpperCase())
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/buyer=/)
    // The address changes as the navigation commits; React renders the filtered list just after, so wait
    // for the export link to carry the filter rather than reading it at once.
    await page.locator('a[href*="buyer="]', { hasText: 'Export CSV' }).waitFor()
    const link = page.getByRole('link', { name: `#${accounts.orderNumber}` })
    await link.waitFor()
    await expectHealthyPage(page)
    await link.click()
    await page.getByRole('heading', { level: 1, name: `Order #${accounts.orderNumber}` }).waitFor()
    await expectHealthyPage(page)

    // A bad filter: a 400 page (which Chrome logs as an error, so axe alone) with the message by its field.
    const bad = await visit(page, `${own.store.url}/admin/orders?from=2026-02-30`)
    expect(bad?.status()).toBe(400)
    const from = page.getByLabel('From (UTC)')
    expect(await from.getAttribute('aria-invalid')).toBe('true')
    await page.getByText('This is not a real date.').waitFor()
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
      .analyze()
    expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
    await page.close()
  })

  test('at 1280×800 the Buyer column keeps an email on one line, breaking no word; dates in the reader’s locale', async () => {
    const page = await newPage(own.browser, { viewport: { width: 1280, height: 800 }, locale: 'de-DE' })
    await logInAt(page, own.admin.email, '/admin/orders')
    const buyerCell = page.locator('td', { hasText: accounts.buyer }).first()
    await buyerCell.waitFor()
    const layout = await buyerCell.evaluate((cell) => {
      const range = document.createRange()
      range.selectNodeContents(cell)
      const lineTops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
      const inside = [cell, ...cell.querySelectorAll('*')].map(
        (element) => getComputedStyle(element).wordBreak,
      )
      return { lines: lineTops.size, wordBreaks: [...new Set(inside)] }
    })
    // `break-all` split the address at whatever letter the column ended on.
    expect(layout.wordBreaks).not.toContain('break-all')
    expect(layout.lines).toBe(1)
    // Chromium sends Accept-Language: de-DE; the page is written, and hydrated, in German.
    const date = await page.locator('td time').first().textContent()
    expect(date).toMatch(/^\d{1,2}\. \S+ \d{4}, \d{2}:\d{2} UTC$/)
    await expectHealthyPage(page)
    await page.close()
  })

  test('the admin refunds an order; the book leaves the buyer’s library', async () => {
    const page = await newPage(own.browser)
    await logInAt(page, own.admin.email, `/admin/orders/${accounts.orderId}`)
    await page.getByLabel('Reason (optional, kept in the audit log)').fill('Bought by mistake')
    await page.getByLabel(/^Yes, refund order/).check()
    await page.getByRole('button', { name: 'Refund' }).click()
    await page.getByRole('status').filter({ hasText: 'The order was refunded' }).waitFor()
    expect(await page.getByRole('row', { name: new RegExp(title) }).textContent()).toContain('Revoked')
    await expectHealthyPage(page)

    const reader = await newPage(own.browser)
    await logInAt(reader, accounts.buyer, '/account/library')
    await reader.getByText('Your library is empty.').waitFor()
    expect(await reader.getByRole('heading', { name: title }).count()).toBe(0)
  })
})
