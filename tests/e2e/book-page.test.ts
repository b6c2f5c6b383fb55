import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { registerAndBuy, uniqueEmail } from './shopper.ts'

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const book = { title: 'Build a Blockchain from Scratch in Go', slug: 'build-a-blockchain-from-scratch-in-go' }
const boughtWith = { title: 'Basics To Advanced In React', slug: 'basics-to-advanced-in-react' }

/** The 'Book details' section: its facts are a description list, term then value. */
async function fact(page: Page, term: string) {
  const details = page.getByRole('region', { name: 'Book details' })
  return details.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]').innerText()
}

/** Opens the table of contents and returns its chapters' lines. */
async function openContents(page: Page) {
  const summary = page.getByText('Table of contents', { exact: false }).first()
  const contents = page.locator('details', { has: summary })
  expect(await contents.evaluate((element: HTMLDetailsElement) => element.open)).toBe(false)
  await summary.click()
  expect(await contents.evaluate((element: HTMLDetailsElement) => element.open)).toBe(true)
  const chapters = contents.locator(':scope > ol > li')
  await chapters.first().waitFor()
  return chapters.allInnerTexts()
}

describe('the book page', () => {
  test.each(themes)(
    'pages, reading time, edition and formats show; the table of contents opens; accessible (%s)',
    async (colorScheme) => {
      const page = await newPage(browser, { colorScheme })
      await visit(page, `${baseURL}/books/${book.slug}`)
      expect(await fact(page, 'Pages')).toMatch(/^\d+ pages \(PDF\)$/)
      expect(await fact(page, 'Reading time')).toMatch(/^About (\d+ h )?\d+ min \([\d,]+ words\)$/)
      expect(await fact(page, 'Edition')).toMatch(/^1st edition, \w+ \d{1,2}, \d{4}$/)
      expect(await fact(page, 'Formats')).toMatch(/^PDF \(\d+ [KM]B\)\nEPUB \(\d+ [KM]B\)$/)
      const chapters = await openContents(page)
      expect(chapters.length).toBeGreaterThanOrEqual(3)
      expect(chapters[0]).toMatch(/^Chapter 1 · /)
      await expectHealthyPage(page)
      await page.context().close()
    },
  )

  test('without JavaScript the table of contents opens too', async () => {
    const page = await newPage(browser, { javaScriptEnabled: false })
    await visit(page, `${baseURL}/books/${book.slug}`)
    expect(await fact(page, 'Pages')).toMatch(/^\d+ pages \(PDF\)$/)
    const chapters = await openContents(page)
    expect(chapters.length).toBeGreaterThanOrEqual(3)
    await expectHealthyPage(page)
    await page.context().close()
  })

  test('a book bought with another shows it under Readers also bought', async () => {
    const page = await newPage(browser)
    await registerAndBuy(page, uniqueEmail('also-bought'), [book.title, boughtWith.title])
    await visit(page, `${baseURL}/books/${book.slug}`)
    const section = page.getByRole('region', { name: 'Readers also bought' })
    await section.getByRole('link', { name: boughtWith.title }).waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  })
})
