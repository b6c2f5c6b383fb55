import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, visit } from './browser.ts'
import { bookCard, fillCard, newShopper, payButton, shopperPassword, submit, uniqueEmail } from './shopper.ts'

/**
 * Issue 34's walk: a reader new to the store, on a phone and on a laptop, finds a book through the header's
 * sections, decides on its page (table of contents, page count), adds it, is told so, and checks out as a guest
 * by creating the account on the checkout page — with and without JavaScript.
 */
const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const book = { title: 'Build a Blockchain from Scratch in Go', slug: 'build-a-blockchain-from-scratch-in-go' }

async function chooseFromAllBooks(page: Page) {
  await visit(page, `${baseURL}/`)
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Browse' }).click()
  await page.waitForURL(`${baseURL}/AllBooks`)
  await bookCard(page, book.title).getByRole('link', { name: book.title }).first().click()
  await page.waitForURL(`${baseURL}/books/${book.slug}`)
}

describe.each([
  ['on a phone, with JavaScript', { width: 390, height: 844 }, true],
  ['on a laptop, without JavaScript', { width: 1280, height: 800 }, false],
])('a new reader %s', (_how, viewport, javaScriptEnabled) => {
  test('header sections → a book page to decide on → add → told so → checkout as a guest → library', async () => {
    const page: Page = await newShopper(browser, javaScriptEnabled)
    await page.setViewportSize(viewport)
    await chooseFromAllBooks(page)

    // Where they are, and what they would buy.
    const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' })
    await crumbs.getByRole('link', { name: 'Home' }).waitFor()
    expect(await crumbs.locator('[aria-current="page"]').innerText()).toBe(book.title)
    await page.getByText('Instant download · PDF + EPUB · DRM-free · free updates').waitFor()
    const details = page.getByRole('region', { name: 'Book details' })
    const pages = await details
      .locator('dt', { hasText: 'Pages' })
      .locator('xpath=following-sibling::dd[1]')
      .innerText()
    expect(Number(pages.match(/^(\d+) pages/)?.[1])).toBeGreaterThanOrEqual(40)
    const contents = page.locator('details', { has: page.getByText('Table of contents').first() })
    await page.getByText('Table of contents').first().click()
    expect(await contents.locator(':scope > ol > li').count()).toBeGreaterThanOrEqual(6)
    await expectHealthyPage(page)

    // Add it; the page says so, with the ways on.
    await submit(page, () =>
      page.getByRole('main').getByRole('button', { name: 'Add To Cart' }).first().click(),
    )
    const added = page.getByRole('status').filter({ hasText: 'Added to your cart.' })
    await added.waitFor()
    await added.getByRole('link', { name: 'Checkout' }).click()
    await page.waitForURL(`${baseURL}/checkout`)

    // Checkout as a guest: why an account, then one step.
    await page.getByRole('heading', { level: 2, name: 'Create your account to pay' }).waitFor()
    const email = uniqueEmail('new-reader')
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
    await submit(page, () => page.getByRole('button', { name: 'Create account and continue' }).click())
    await page.getByText(`The receipt goes to ${email}.`).waitFor()
    await fillCard(page, '4242 4242 4242 4242')
    await submit(page, () => payButton(page).click())
    await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
    await visit(page, `${baseURL}/account/library`)
    await page.getByRole('main').getByText(book.title).first().waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  })
})
