import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { expectHealthyPage, newPage, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { addToCart, fillCard, logIn, payButton, register, submit, uniqueEmail } from './shopper.ts'

const run = promisify(execFile)

/**
 * Issue 31's journey in a real browser, on a store of its own: the owner sets the seller's identity; a buyer
 * whose connection is in Germany (an address of Strato's, Berlin) sees Germany's eBook VAT, pays with a German
 * card and downloads the invoice (its text read back by poppler's pdftotext); the owner refunds one of the two
 * books; the credit note follows, and so do the back office's figures (gross, refunds, tax, net).
 */
const GERMAN_IP = '85.214.132.117'
const titles = ['The Future of Design Systems', 'Build a Blockchain from Scratch in Go'] as const
const own = ownStoreWithAdmin(seedCatalog)

/** A document's PDF through the page's session (its cookies), as text: pdftotext, whitespace collapsed. */
async function pdfText(page: Page, href: string): Promise<string> {
  const response = await page.request.get(new URL(href, own.store.url).toString())
  expect(response.status()).toBe(200)
  expect(response.headers()['content-type']).toBe('application/pdf')
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'codebook-invoice-'))
  try {
    const file = path.join(dir, 'document.pdf')
    await fs.writeFile(file, await response.body())
    const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', file, '-'])
    return stdout.replace(/\s+/g, ' ')
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
}

/** '€12.34' or '$12.34' as cents. */
const cents = (text: string) => Math.round(Number(text.replace(/[^\d.-]/g, '')) * 100)

describe('VAT, invoice, a partial refund and net revenue, end to end', () => {
  test('a German buyer pays German eBook VAT and gets an invoice; one book refunded: a credit note, and net revenue follows', async () => {
    // The owner: the seller's legal identity, which every invoice carries.
    const owner = await newPage(own.browser)
    await logIn(owner, own.admin, { storeUrl: own.store.url, redirectTo: '/admin/settings' })
    await owner.getByLabel('Legal name').fill('CodeBook GmbH')
    await owner.getByLabel('Postal address').fill('Hauptstraße 1\n10115 Berlin')
    await submit(owner, () => owner.getByRole('button', { name: 'Save settings' }).click())
    await owner.getByText(/saved/i).first().waitFor()
    await visit(owner, `${own.store.url}/admin/tax`)
    await owner.getByLabel('Seller’s country').selectOption('DE')
    await owner.getByLabel('Seller’s VAT number').fill('DE136695976')
    await submit(owner, () => owner.getByRole('button', { name: 'Save settings' }).click())
    await owner.getByText('The tax settings were saved.').waitFor()

    // The buyer, in Germany by their connection.
    const buyer = await newPage(own.browser, { extraHTTPHeaders: { 'X-Forwarded-For': GERMAN_IP } })
    await visit(buyer, `${own.store.url}/Register`)
    await register(buyer, uniqueEmail('german-buyer'))
    await buyer.waitForURL(`${own.store.url}/`)
    await visit(buyer, `${own.store.url}/AllBooks`)
    for (const title of titles) await addToCart(buyer, title)
    await visit(buyer, `${own.store.url}/checkout`)
    expect(await buyer.getByLabel('Billing country').inputValue()).toBe('DE')
    const taxLine = buyer.getByText(/^Includes VAT 7 % \(Germany\)/)
    await taxLine.waitFor()
    await expectHealthyPage(buyer)
    await buyer.getByLabel('Name or company on the invoice (optional)').fill('Jürgen Łukasiewicz')
    await buyer.getByLabel('Address on the invoice (optional)').fill('Unter den Linden 1\n10117 Berlin')
    await fillCard(buyer, '4000 0027 6000 0016')
    await submit(buyer, () => payButton(buyer).click())
    await buyer.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
    const orderId = buyer.url().split('/').pop()!

    // The invoice, from the order page.
    const invoiceLink = buyer.getByRole('link', { name: /Download invoice \(PDF\)/ })
    const invoice = await pdfText(buyer, (await invoiceLink.getAttribute('href'))!)
    const year = new Date().getUTCFullYear()
    expect(invoice).toMatch(new RegExp(`INV-${year}-\\d{6}`))
    expect(invoice).toContain('CodeBook GmbH')
    expect(invoice).toContain('Hauptstraße 1')
    expect(invoice).toContain('DE136695976')
    expect(invoice).toContain('Jürgen Łukasiewicz Unter den Linden 1 10117 Berlin')
    for (const title of titles) expect(invoice).toContain(title)
    expect(invoice).toMatch(/7(\.0+)?\s?%/)
    expect(invoice).toContain('Germany')
    expect(invoice).not.toMatch(/reverse charge/i)

    // The owner refunds one of the two books from the order's page.
    await visit(owner, `${own.store.url}/admin/orders/${orderId}`)
    await owner.getByLabel(/^The books ticked below/).check()
    await owner.getByRole('checkbox', { name: new RegExp(`^${titles[0]}`) }).check()
    await owner.getByLabel(/^Yes, refund order/).check()
    await owner.getByRole('button', { name: 'Refund', exact: true }).click()
    await owner.getByRole('status').filter({ hasText: 'The refund went through' }).waitFor()
    await expectHealthyPage(owner)
    const evidence = await owner.getByRole('definition').filter({ hasText: 'Billing address:' }).textContent()
    expect(evidence).toContain('Billing address: Germany · connection: Germany · card: Germany')

    // The credit note: the buyer's order page lists it beside the invoice.
    await visit(buyer, `${own.store.url}/orders/${orderId}`)
    const creditLink = buyer.getByRole('link', { name: /credit note/i })
    const credit = await pdfText(buyer, (await creditLink.getAttribute('href'))!)
    expect(credit).toMatch(new RegExp(`CN-${year}-\\d{6}`))
    expect(credit).toMatch(new RegExp(`INV-${year}-\\d{6}`))
    expect(credit).toContain(titles[0])
    expect(credit).not.toContain(titles[1])

    // The back office's accounts: gross less refunds less tax is net, and tax is that of the book kept.
    await visit(owner, `${own.store.url}/admin/accounts`)
    const row = owner.getByRole('table', { name: /^Money in/ }).getByRole('row', { name: /^USD/ })
    const cells = (await row.getByRole('cell').allTextContents()).map((text) => text.trim())
    const [orders, gross, refunds, tax, net] = cells
    expect(orders).toBe('1')
    expect(cents(refunds!)).toBeGreaterThan(0)
    expect(cents(refunds!)).toBeLessThan(cents(gross!))
    expect(cents(tax!)).toBeGreaterThan(0)
    expect(cents(net!)).toBe(cents(gross!) - cents(refunds!) - cents(tax!))
    await expectHealthyPage(owner)
  })
})
