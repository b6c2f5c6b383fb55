import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const book = { title: 'The Future of Design Systems', slug: 'the-future-of-design-systems' }
const author = { name: 'Lucía Ferreira', slug: 'lucia-ferreira' }

describe("a book's author", () => {
  test.each(themes)(
    "from the byline to the author's page and back to the book; accessible (%s)",
    async (colorScheme) => {
      const page = await newPage(browser, { colorScheme })
      await visit(page, `${baseURL}/books/${book.slug}`)
      const about = page.getByRole('region', { name: 'About the author' })
      expect(await about.innerText()).toContain(`${author.name} writes about design systems`)
      await expectHealthyPage(page)

      await page.getByRole('heading', { level: 1, name: book.title }).waitFor()
      await page.locator('main').getByRole('link', { name: author.name, exact: true }).first().click()
      await page.waitForURL(`${baseURL}/authors/${author.slug}`)
      await page.getByRole('heading', { level: 1, name: author.name }).waitFor()
      const trail = page.getByRole('navigation', { name: 'Breadcrumb' })
      expect(await trail.innerText()).toMatch(new RegExp(`Home\\s*›\\s*${author.name}`))
      const books = page.getByRole('region', { name: /^eBooks by / })
      expect(await books.getByRole('heading', { level: 3 }).allInnerTexts()).toEqual([book.title])
      await expectHealthyPage(page)

      await books.getByRole('link', { name: book.title }).click()
      await page.waitForURL(`${baseURL}/books/${book.slug}`)
      await page.getByRole('heading', { level: 1, name: book.title }).waitFor()
      await page.context().close()
    },
  )

  test('without JavaScript the byline is a plain link', async () => {
    const page = await newPage(browser, { javaScriptEnabled: false })
    await visit(page, `${baseURL}/books/${book.slug}`)
    await page.getByRole('link', { name: `More about ${author.name} and their books` }).click()
    await page.waitForURL(`${baseURL}/authors/${author.slug}`)
    await page.getByRole('heading', { level: 1, name: author.name }).waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  })

  test("an unknown author's address is the store's 404 page", async () => {
    const page = await newPage(browser)
    const response = await page.goto(`${baseURL}/authors/nobody-writes-this`)
    expect(response?.status()).toBe(404)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    await page.context().close()
  })
})
