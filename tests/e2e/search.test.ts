import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes } from './browser.ts'

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const header = (page: Page) => page.getByRole('navigation', { name: 'Main' })
const searchButton = (page: Page) => header(page).getByRole('button', { name: 'Search', exact: true })

/** Opens the header's search box and returns its combobox (focused). */
async function openHeaderSearch(page: Page) {
  await page.getByRole('heading', { level: 1 }).first().waitFor()
  // The button is a plain submit button until React has hydrated the header.
  await page.waitForFunction(() => document.querySelector('button[aria-label="Search"][aria-expanded]'))
  await searchButton(page).click()
  await expect.poll(() => searchButton(page).getAttribute('aria-expanded')).toBe('true')
  const box = header(page).getByRole('combobox', { name: 'Search books' })
  await box.waitFor()
  expect(await box.getAttribute('placeholder')).toBe('search')
  await expect.poll(() => box.evaluate((input) => input === document.activeElement)).toBe(true)
  return box
}

async function expectResultTitles(page: Page, titles: string[]) {
  // After a client-side navigation the URL changes before React renders the new page: the page being left may
  // still show its own cards for a moment, so wait for these.
  const headings = page.getByRole('main').getByRole('article').getByRole('heading', { level: 2 })
  await expect.poll(() => headings.allTextContents(), { timeout: 5_000 }).toEqual(titles)
}

test('search from the header: a misspelt title finds the book, with a count', async () => {
  const page = await newPage(browser)
  await page.goto(baseURL)
  const box = await openHeaderSearch(page)
  await box.pressSequentially('djnago')
  await box.press('Enter')
  await page.waitForURL(`${baseURL}/search?q=djnago`)
  await expectResultTitles(page, ['Django Framework'])
  const main = page.getByRole('main')
  expect(await main.textContent()).toContain('No books match “djnago”. 1 result for “django”.')
  expect(await page.title()).toBe('Search: djnago — CodeBook')
  expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex')
  // The header's box closed behind the visitor; the page's own box holds the query.
  await expect.poll(() => searchButton(page).getAttribute('aria-expanded')).toBe('false')
  expect(await main.getByRole('combobox', { name: 'Search books' }).inputValue()).toBe('djnago')
  await page.context().close()
})

test('suggestions by keyboard: type, ArrowDown, Enter opens the book', async () => {
  const page = await newPage(browser)
  await page.goto(`${baseURL}/AllBooks`)
  const box = await openHeaderSearch(page)
  await box.pressSequentially('java')
  const list = header(page).getByRole('listbox', { name: 'Suggested books' })
  await list.waitFor()
  await expect.poll(() => box.getAttribute('aria-expanded')).toBe('true')
  expect(await box.getAttribute('aria-controls')).toBe(await list.getAttribute('id'))
  const options = list.getByRole('option')
  expect(await options.evaluateAll((all) => all.map((option) => option.firstChild?.textContent))).toEqual([
    'JavaScript Basics To Advance',
    'Basics To Advanced In React',
    'Frontend Fastlane Plan With Projects',
  ])
  expect(await box.getAttribute('aria-activedescendant')).toBeNull()
  await box.press('ArrowDown')
  await box.press('ArrowDown')
  await box.press('ArrowUp')
  const first = options.first()
  const firstId = await first.getAttribute('id')
  await expect.poll(() => box.getAttribute('aria-activedescendant')).toBe(firstId)
  expect(await first.getAttribute('aria-selected')).toBe('true')
  expect(await options.nth(1).getAttribute('aria-selected')).toBe('false')
  await box.press('Enter')
  await page.waitForURL(`${baseURL}/books/javascript-basics-to-advance`)
  await page.getByRole('heading', { level: 1, name: 'JavaScript Basics To Advance' }).waitFor()
  await page.context().close()
})

test('Escape closes the suggestions, then the box, and focus returns to the search button', async () => {
  const page = await newPage(browser)
  await page.goto(baseURL)
  const box = await openHeaderSearch(page)
  await box.pressSequentially('react')
  const list = header(page).getByRole('listbox', { name: 'Suggested books' })
  await list.waitFor()
  await box.press('Escape')
  await list.waitFor({ state: 'hidden' })
  await expect.poll(() => box.getAttribute('aria-expanded')).toBe('false')
  expect(await box.isVisible()).toBe(true)
  await box.press('Escape')
  await box.waitFor({ state: 'hidden' })
  await expect.poll(() => searchButton(page).getAttribute('aria-expanded')).toBe('false')
  expect(await searchButton(page).evaluate((button) => button === document.activeElement)).toBe(true)
  // The icon toggles: open, then closed again.
  await searchButton(page).click()
  await box.waitFor()
  await searchButton(page).click()
  await box.waitFor({ state: 'hidden' })
  await page.context().close()
})

test('no results: a friendly message and a way to every book, while typing and on the page', async () => {
  const page = await newPage(browser)
  await page.goto(`${baseURL}/search`)
  const main = page.getByRole('main')
  const box = main.getByRole('combobox', { name: 'Search books' })
  await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'combobox')
  await box.pressSequentially('qqqxzv')
  await main.getByText('No books match “qqqxzv”.').waitFor()
  expect(await main.getByRole('link', { name: 'Browse all eBooks' }).getAttribute('href')).toBe('/AllBooks')
  await box.press('Enter')
  await page.waitForURL(`${baseURL}/search?q=qqqxzv`)
  await main.getByText('Check the spelling').waitFor()
  expect(await main.getByRole('article').count()).toBe(0)
  await main.getByRole('link', { name: 'Browse all eBooks' }).click()
  await page.waitForURL(`${baseURL}/AllBooks`)
  await page.context().close()
})

test('JavaScript off: the header search control leads to a working search', async () => {
  const page = await newPage(browser, { javaScriptEnabled: false })
  await page.goto(`${baseURL}/books/django-framework`)
  await searchButton(page).click()
  await page.waitForURL(/\/search\??$/)
  const box = page.getByRole('main').getByRole('combobox', { name: 'Search books' })
  await box.fill('blockchain')
  await box.press('Enter')
  await page.waitForURL(`${baseURL}/search?q=blockchain`)
  await expectResultTitles(page, ['Build a Blockchain from Scratch in Go'])
  expect(await page.getByRole('main').textContent()).toContain('1 result for “blockchain”.')
  await page.context().close()
})

describe.each(themes)('accessibility in the %s theme', (colorScheme) => {
  test('/search with results, without results, and with suggestions open', async () => {
    const page = await newPage(browser, { colorScheme })
    const found = await page.goto(`${baseURL}/search?q=react`)
    expect(found?.status()).toBe(200)
    await expectResultTitles(page, ['Basics To Advanced In React', 'The Future of Design Systems'])
    await expectHealthyPage(page)

    const none = await page.goto(`${baseURL}/search?q=${encodeURIComponent('zz & !(top)')}`)
    expect(none?.status()).toBe(200)
    await page.getByRole('main').getByText('No books match “zz & !(top)”.').waitFor()
    await expectHealthyPage(page)

    const box = await openHeaderSearch(page)
    await box.pressSequentially('b')
    await header(page).getByRole('listbox', { name: 'Suggested books' }).waitFor()
    await box.press('ArrowDown')
    await expectHealthyPage(page)
    await page.context().close()
  })
})
