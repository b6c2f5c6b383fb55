import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Browser, Download, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { startStoreWithAdmin } from '#harness/store-process.ts'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { mailInOutbox } from './outbox.ts'
import { addToCart, bookCard, fillCard, logIn, payButton, register, submit, uniqueEmail } from './shopper.ts'

const run = promisify(execFile)

const baseURL = inject('baseURL')
const admin = inject('admin')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

describe('who may open the back office', () => {
  test('a visitor and a customer get the ordinary 404 on every /admin URL, and no Back office link', async () => {
    const page = await newPage(browser)
    const paths = [
      '/admin',
      '/admin/books',
      '/admin/orders',
      '/admin/analytics',
      '/admin/accounts',
      '/admin/audit',
    ]
    for (const path of paths) expect((await page.goto(`${baseURL}${path}`))?.status(), path).toBe(404)
    // The same page as any unknown URL: title, heading and message.
    const shown = async (path: string) => {
      expect((await page.goto(`${baseURL}${path}`))?.status()).toBe(404)
      return [await page.title(), await page.getByRole('main').innerText()]
    }
    expect(await shown('/admin/books')).toEqual(await shown('/no-such-page'))

    await visit(page, `${baseURL}/Register`)
    await register(page, uniqueEmail('customer'))
    await page.waitForURL(`${baseURL}/`)
    for (const path of paths) expect((await page.goto(`${baseURL}${path}`))?.status(), path).toBe(404)
    expect(await shown('/admin')).toEqual(await shown('/no-such-page'))
    await visit(page, `${baseURL}/`)
    await page.getByRole('button', { name: 'Account menu' }).click()
    await expect.poll(() => page.getByRole('menuitem', { name: 'Back office' }).count()).toBe(0)
  })

  test.each(themes)(
    'the owner (ADMIN_EMAILS) reaches it from the person menu; audit log shows the grant (%s)',
    async (colorScheme) => {
      const page = await newPage(browser, { colorScheme })
      await logIn(page, admin)
      await page.getByRole('button', { name: 'Account menu' }).click()
      await page.getByRole('menuitem', { name: 'Back office' }).click()
      await page.waitForURL(`${baseURL}/admin`)
      await page.getByRole('heading', { level: 1, name: 'Back office' }).waitFor()
      await expectHealthyPage(page)
      await page
        .getByRole('navigation', { name: 'Back office' })
        .getByRole('link', { name: 'Audit log' })
        .click()
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
      const grant = page.getByRole('row').filter({ hasText: 'user.grant-admin' })
      await expect.poll(() => grant.count()).toBeGreaterThan(0)
      await expect.poll(() => grant.first().textContent()).toContain('cli')
      await expectHealthyPage(page)
      // The accounts (decision 039): this month's money and tax table, and its files, readable in both themes.
      await page
        .getByRole('navigation', { name: 'Back office' })
        .getByRole('link', { name: 'Accounts' })
        .click()
      await page.getByRole('heading', { level: 1, name: 'Accounts' }).waitFor()
      await page.getByRole('link', { name: 'All four as one workbook (XLSX)' }).waitFor()
      await expectHealthyPage(page)
    },
  )
})

/** A desktop Chrome's user agent: headless Chromium says 'HeadlessChrome', which analytics counts as a bot. */
const desktopChrome =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'

/** The text of a downloaded PDF, through poppler's pdftotext, whitespace collapsed. */
async function pdfText(download: Download): Promise<string> {
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', (await download.path())!, '-'])
  return stdout.replace(/\s+/g, ' ')
}

/** The mail a store wrote to `email` with `subject`, once it is there. */
function mailTo(dataDir: string, email: string, subject: string) {
  return mailInOutbox(
    dataDir,
    (mail) => mail.subject === subject && JSON.stringify(mail.to).includes(email),
    15_000,
  )
}

async function downloadPdf(page: Page, title: string): Promise<Download> {
  const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: title }) })
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    item.getByRole('link', { name: /^Download PDF/ }).click(),
  ])
  return download
}

async function publishEdition(page: Page, bookUrl: string, manuscript: string, changelog: string) {
  await visit(page, `${bookUrl}/manuscript`)
  await page.getByLabel('Manuscript (Markdown)').fill(manuscript)
  await page.getByLabel(/What changed in this edition/).fill(changelog)
  await page.getByRole('button', { name: /^Publish new edition/ }).click()
  await page
    .getByRole('status')
    .getByText(/Edition \d+ is published/)
    .waitFor({ timeout: 30_000 })
}

describe('the owner runs the store from the back office', () => {
  // A store of its own: the book made here would change what the shared store's other tests list.
  let own: Awaited<ReturnType<typeof startStoreWithAdmin>>
  let shopUrl: string
  beforeAll(async () => {
    own = await startStoreWithAdmin()
    shopUrl = own.store.url
  }, 60_000)
  afterAll(() => own?.store.stop())

  test('create a book with a cover and a manuscript → publish → a reader finds, buys and downloads it → second edition mailed and downloaded → refund → analytics shows the purchase', async () => {
    const suffix = Math.random().toString(36).slice(2, 8)
    const title = `Rust Quillwork ${suffix}`
    const slug = `rust-quillwork-${suffix}`
    const firstMarker = `Quillwork first edition ${suffix}`
    const secondMarker = `Quillwork second edition ${suffix}`
    const fixture = await fs.readFile(path.join(import.meta.dirname, '../fixtures/manuscript.md'), 'utf8')
    const manuscriptWith = (marker: string) => fixture.replace('\n\n', `\n\n${marker}.\n\n`)

    // The owner creates the book (a draft), uploads its cover and publishes its first edition.
    const owner = await newPage(browser, { userAgent: desktopChrome })
    await logIn(owner, own.admin, { storeUrl: shopUrl })
    await visit(owner, `${shopUrl}/admin/books/new`)
    await owner.getByLabel('Title').fill(title)
    await owner.getByLabel('Slug').fill(slug)
    await owner.getByLabel('Author').fill('Ferris Crabbe')
    await owner.getByLabel('Description').fill('Ownership and borrowing, **without tears**.')
    await owner.getByLabel('Price', { exact: true }).fill('25')
    await owner.getByLabel('Topics').fill('rust, systems')
    await owner.getByRole('button', { name: 'Create book' }).click()
    await owner.waitForURL(/\/admin\/books\/[0-9a-f-]{36}\?saved=created$/)
    const bookUrl = owner.url().split('?')[0]!
    await expectHealthyPage(owner)

    const cover = await sharp({ create: { width: 600, height: 900, channels: 3, background: '#b7410e' } })
      .png()
      .toBuffer()
    await owner
      .getByLabel('New cover image')
      .setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: cover })
    await owner.getByRole('button', { name: 'Upload cover' }).click()
    await owner.getByRole('status').getByText(/cover/i).waitFor({ timeout: 30_000 })

    await owner.getByRole('link', { name: 'Edit the manuscript and publish an edition' }).click()
    await owner.waitForURL(`${bookUrl}/manuscript`)
    await publishEdition(owner, bookUrl, manuscriptWith(firstMarker), 'First edition.')
    await visit(owner, bookUrl)
    await owner.getByRole('button', { name: 'Publish', exact: true }).click()
    await owner.getByText('Status: published').waitFor()

    // A reader finds it in All eBooks and in search, with its uploaded cover, buys it and downloads the PDF.
    const reader = await newPage(browser, { userAgent: desktopChrome })
    const readerEmail = uniqueEmail('quillwork-reader')
    await visit(reader, `${shopUrl}/Register`)
    await register(reader, readerEmail)
    await reader.waitForURL(`${shopUrl}/`)
    await visit(reader, `${shopUrl}/AllBooks`)
    const card = bookCard(reader, title)
    await card.waitFor()
    await visit(reader, `${shopUrl}/search?q=${encodeURIComponent(`quillwork ${suffix}`)}`)
    await reader.getByRole('main').getByRole('link', { name: title }).first().click()
    await reader.waitForURL(`${shopUrl}/books/${slug}`)
    expect(await reader.locator('picture source[type="image/avif"]').count()).toBeGreaterThan(0)
    await expectHealthyPage(reader)
    await visit(reader, `${shopUrl}/AllBooks`)
    await addToCart(reader, title)
    await visit(reader, `${shopUrl}/cart`)
    await reader.getByRole('main').getByRole('link', { name: 'Checkout' }).click()
    await fillCard(reader, '4242 4242 4242 4242')
    await submit(reader, () => payButton(reader).click())
    await reader.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
    await visit(reader, `${shopUrl}/account/library`)
    expect(await pdfText(await downloadPdf(reader, title))).toContain(firstMarker)

    // The owner publishes a second edition: the reader is mailed, follows the mail's link, gets the new text.
    await publishEdition(owner, bookUrl, manuscriptWith(secondMarker), 'Second edition: a new paragraph.')
    const mail = await mailTo(
      own.store.dataDir,
      readerEmail,
      `A new edition of ${title} is in your CodeBook library`,
    )
    const link = /https?:\/\/\S+\/account\/library/.exec(mail.text ?? '')?.[0]
    expect(link, mail.text).toBeDefined()
    await visit(reader, `${shopUrl}${new URL(link!).pathname}`)
    await reader.getByText(/Edition 2 ·/).waitFor()
    const second = await pdfText(await downloadPdf(reader, title))
    expect(second).toContain(secondMarker)
    expect(second).not.toContain(firstMarker)

    // The owner finds the order by the buyer's email and refunds it: the book leaves the reader's library.
    await visit(owner, `${shopUrl}/admin/orders?buyer=${encodeURIComponent(readerEmail)}`)
    await owner
      .getByRole('main')
      .getByRole('link', { name: /^#\d+$/ })
      .first()
      .click()
    await owner.getByRole('heading', { level: 1, name: /^Order #\d+$/ }).waitFor()
    await owner.getByRole('checkbox', { name: /Yes, refund order/ }).check()
    await owner.getByRole('button', { name: 'Refund', exact: true }).click()
    await owner.getByText('The order was refunded: its books left the buyer’s library').waitFor()
    await visit(reader, `${shopUrl}/account/library`)
    await reader.getByRole('heading', { level: 1, name: 'My Library' }).waitFor()
    expect(await reader.getByRole('heading', { name: title }).count()).toBe(0)

    // The analytics page shows the purchase: the book is among the top books by revenue, at its price.
    // Events are written in batches about every second.
    await expect
      .poll(
        async () => {
          await visit(owner, `${shopUrl}/admin/analytics?range=7`)
          // The heading's own section (its parent), not the page's sections around it.
          const topByRevenue = owner
            .getByRole('heading', { name: 'Top books by revenue' })
            .locator('xpath=..')
          return topByRevenue.getByRole('row').filter({ hasText: title }).textContent()
        },
        { timeout: 15_000 },
      )
      .toMatch(/\$25/)
    await expectHealthyPage(owner)
  }, 180_000)
})
