import { AxeBuilder } from '@axe-core/playwright'
import JSZip from 'jszip'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, themes, visit } from './browser.ts'
import { bookA, newShopper, registerAndBuy, uniqueEmail } from './shopper.ts'

/**
 * Issue 33 on the production build: a reader makes an app password on /account, copies it, and a scripted
 * reading app (plain HTTP, as KOReader does) finds the library feed, lists the book and downloads its EPUB,
 * stamped for this reader. Revoking it shuts the app out. Send to Kindle: the reader saves their Kindle's
 * address and sends a book from the library (the mail itself, with its attachment, is read from an SMTP
 * server in tests/integration/kindle.test.ts).
 */

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

test('an app password made on /account lets a reading app list the library and download the book', async () => {
  const page = await newShopper(browser, true)
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
  const email = uniqueEmail('app-reader')
  await registerAndBuy(page, email, [bookA])

  await visit(page, `${baseURL}/account`)
  const panel = page.locator('#app-passwords')
  // The address to paste into the app, as the page shows it (the store's public URL).
  const feedUrl = (await panel.locator('code').first().textContent())!
  expect(feedUrl).toMatch(/^http:\/\/[^/]+\/opds\/library$/)
  const origin = new URL(feedUrl).origin
  await panel.getByLabel('App name').fill('KOReader on my Kobo')
  await panel.getByRole('button', { name: 'Create app password' }).click()
  const shown = panel.getByRole('status').filter({ hasText: 'it is shown only this once' })
  await shown.waitFor()
  await panel.getByRole('button', { name: 'Copy' }).click()
  await panel.getByRole('button', { name: 'Copied' }).waitFor()
  const password = await page.evaluate(() => navigator.clipboard.readText())
  expect(password).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){4}$/)
  expect(await panel.getByRole('list', { name: 'Your app passwords' }).textContent()).toContain(
    'KOReader on my Kobo',
  )
  await expectHealthyPage(page)

  // The app: from the public catalogue's root to the library, signing in when asked.
  const root = await (await fetch(`${origin}/opds`)).text()
  const libraryHref = /<link rel="subsection" href="([^"]+\/opds\/library)"/.exec(root)?.[1]
  expect(libraryHref).toBe(feedUrl)
  const challenge = await fetch(libraryHref!)
  expect(challenge.status).toBe(401)
  expect(challenge.headers.get('WWW-Authenticate')).toContain('Basic')
  const authorization = `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`
  const feed = await (await fetch(libraryHref!, { headers: { Authorization: authorization } })).text()
  expect(feed).toContain(`<title>${bookA}</title>`)
  const epubHref = /<link rel="http:\/\/opds-spec.org\/acquisition" href="([^"]+\.epub)"/.exec(feed)?.[1]
  expect(epubHref).toMatch(/\/library\/django-framework\/download\.epub$/)
  const epub = await fetch(epubHref!, { headers: { Authorization: authorization } })
  expect(epub.status).toBe(200)
  const zip = await JSZip.loadAsync(await epub.arrayBuffer())
  expect(await zip.file('OEBPS/prepared-for.xhtml')!.async('string')).toContain(email)

  // The account page shows its use; revoking it shuts the app out.
  await visit(page, `${baseURL}/account`)
  await expect.poll(() => panel.textContent()).toContain('last used')
  await panel.getByRole('button', { name: 'Revoke the app password KOReader on my Kobo' }).click()
  await panel.getByRole('status').filter({ hasText: 'was revoked' }).waitFor()
  expect((await fetch(libraryHref!, { headers: { Authorization: authorization } })).status).toBe(401)
  await page.context().close()
})

test.each(themes)('the Reading apps panel with an error has no axe violations (%s theme)', async (theme) => {
  const page = await newShopper(browser, true)
  await page.emulateMedia({ colorScheme: theme })
  await registerAndBuy(page, uniqueEmail('app-axe'), [bookA])
  await visit(page, `${baseURL}/account`)
  const panel = page.locator('#app-passwords')
  // Blank after trimming: the server refuses it with a message by the field.
  await panel.getByLabel('App name').fill('   ')
  await panel.getByRole('button', { name: 'Create app password' }).click()
  await expect.poll(() => panel.getByLabel('App name').getAttribute('aria-invalid')).toBe('true')
  expect(await panel.textContent()).toContain('Name the app this password is for')
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze()
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
  await page.context().close()
})

test('Send to Kindle: the address is checked on /account; a library book is queued, sent, and not sent twice in an hour', async () => {
  const page = await newShopper(browser, true)
  await registerAndBuy(page, uniqueEmail('kindle-reader'), [bookA])

  // Before an address is saved, the library says where to set it up.
  await visit(page, `${baseURL}/account/library`)
  await page.getByRole('link', { name: 'Set up Send to Kindle' }).click()
  await page.waitForURL(/\/account#kindle$/)
  const panel = page.locator('#kindle')
  await panel.getByLabel('Your Kindle’s email address').fill('me@gmail.com')
  await panel.getByRole('button', { name: 'Save Kindle address' }).click()
  await expect
    .poll(() => panel.getByLabel('Your Kindle’s email address').getAttribute('aria-invalid'))
    .toBe('true')
  expect(await panel.textContent()).toContain('it ends in @kindle.com')
  await panel.getByLabel('Your Kindle’s email address').fill('Ada.Reader@kindle.com')
  await panel.getByRole('button', { name: 'Save Kindle address' }).click()
  await panel.getByRole('status').filter({ hasText: 'go to ada.reader@kindle.com' }).waitFor()
  expect(await panel.textContent()).toContain('orders@')

  await visit(page, `${baseURL}/account/library`)
  const book = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: bookA }) })
  await book.getByRole('button', { name: `Send to Kindle: ${bookA}` }).click()
  await book.getByRole('status').filter({ hasText: 'is on its way to ada.reader@kindle.com' }).waitFor()
  // The outbox sends it at once (this store writes its mail to files): a reload shows it sent.
  await expect
    .poll(async () => {
      await visit(page, `${baseURL}/account/library`)
      return book.textContent()
    })
    .toContain('Sent to your Kindle')
  await expectHealthyPage(page)
  for (const theme of themes) {
    await page.emulateMedia({ colorScheme: theme })
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
      .analyze()
    expect(results.violations.map((violation) => `${theme} ${violation.id}: ${violation.help}`)).toEqual([])
  }

  await book.getByRole('button', { name: `Send to Kindle: ${bookA}` }).click()
  await book.getByRole('alert').filter({ hasText: 'less than an hour ago' }).waitFor()
  await page.context().close()
})
