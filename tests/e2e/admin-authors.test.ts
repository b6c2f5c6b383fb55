import fs from 'node:fs/promises'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { testPassword } from '#harness/factories/buyers.ts'
import { startStoreWithAdmin, type StoreProcess } from '#harness/store-process.ts'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { logIn } from './shopper.ts'

/** The back office's authors in Chromium, on a store of its own (its admin named in ADMIN_EMAILS). */
let store: StoreProcess
let browser: Browser
let files: string
let adminEmail: string

beforeAll(async () => {
  const started = await startStoreWithAdmin()
  store = started.store
  adminEmail = started.admin.email
  browser = await launchBrowser()
  files = await fs.mkdtemp(path.join(store.dataDir, 'uploads-'))
}, 180_000)

afterAll(async () => {
  await browser?.close()
  await store?.stop()
})

const signIn = (page: Page) =>
  logIn(page, { email: adminEmail, password: testPassword }, { storeUrl: store.url })

async function openAuthor(page: Page, search: string, name: string) {
  await visit(page, `${store.url}/admin`)
  await page.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Authors' }).click()
  await page.getByRole('heading', { level: 1, name: 'Authors' }).waitFor()
  await page.getByLabel('Name contains').fill(search)
  await page.getByRole('main').getByRole('button', { name: 'Search' }).click()
  await page.getByRole('link', { name }).click()
  await page.getByRole('heading', { level: 1, name: `Edit ‘${name}’` }).waitFor()
}

describe('the back office’s authors', () => {
  test.each(themes)('list and edit page are accessible (%s)', async (colorScheme) => {
    const page = await newPage(browser, { colorScheme })
    await signIn(page)
    await visit(page, `${store.url}/admin/authors`)
    await expectHealthyPage(page)
    await openAuthor(page, 'moreau', 'Daniel Moreau')
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('a bad photo is refused next to the field; a good one is shown; a rename reaches the book page', async () => {
    const page = await newPage(browser)
    await signIn(page)
    await openAuthor(page, 'okafor', 'Marisol Okafor')

    const text = path.join(files, 'not-a-photo.png')
    await fs.writeFile(text, 'plain text, whatever its name says')
    await page.getByLabel('New photo').setInputFiles(text)
    await page.getByRole('button', { name: 'Upload photo' }).click()
    await page.waitForURL(/photo-error=notAnImage/)
    const field = page.getByLabel('New photo')
    expect(await field.getAttribute('aria-invalid')).toBe('true')
    expect(
      await page
        .locator(`#${await field.getAttribute('aria-describedby').then((ids) => ids!.split(' ')[1])}`)
        .innerText(),
    ).toMatch(/^This file is not a JPEG, PNG, WebP or AVIF image/)

    const photo = path.join(files, 'photo.png')
    await fs.writeFile(
      photo,
      await sharp({ create: { width: 500, height: 500, channels: 3, background: '#996633' } })
        .png()
        .toBuffer(),
    )
    await page.getByLabel('New photo').setInputFiles(photo)
    await page.getByRole('button', { name: 'Upload photo' }).click()
    await page.getByText('The new photo was saved.').waitFor()
    await page.getByRole('img', { name: 'Current photo of Marisol Okafor' }).waitFor()

    await page.getByLabel('Name', { exact: true }).fill('Marisol A. Okafor')
    await page.getByRole('button', { name: 'Save author' }).click()
    await page.getByText('The author was saved.').waitFor()
    await visit(page, `${store.url}/books/complete-guide-to-backend-development`)
    await page.getByText('by Marisol A. Okafor').waitFor()
    const about = page.getByRole('region', { name: 'About the author' })
    await about.getByRole('img', { name: 'Photo of Marisol A. Okafor' }).waitFor()
    // The old address of the author's page leads to the new one.
    await visit(page, `${store.url}/authors/marisol-okafor`)
    expect(page.url()).toBe(`${store.url}/authors/marisol-a-okafor`)
    await expectHealthyPage(page)
    await page.context().close()
  })
})
