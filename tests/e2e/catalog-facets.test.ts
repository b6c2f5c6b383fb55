import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { books } from '#app/server/db/schema/index.server.ts'
import { startStoreWithAdmin, type StoreProcess } from '#harness/store-process.ts'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

/** Waits for the page's one h1 to read `text` (client-side navigations render after the URL changes). */
async function expectPageHeading(page: Page, text: string) {
  const heading = page.getByRole('heading', { level: 1 })
  await heading.filter({ hasText: text }).waitFor({ timeout: 15_000 })
  expect(await heading.allTextContents()).toEqual([text])
}

const status = (page: Page) => page.getByRole('status').filter({ hasText: /Showing|No books/ })
const cardTitles = (page: Page) =>
  page.getByRole('main').getByRole('article').getByRole('heading').allTextContents()
const select = (page: Page, name: string) => page.getByRole('combobox', { name, exact: true })
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('name'))

// The shared store's 7 seed books: two at $19 (Django Framework, then the Go book), one at $49, four at $99.
describe.each(themes)('filtering All eBooks by keyboard with JavaScript, %s theme', (colorScheme) => {
  test('each change updates the list in place, announces the count, and back restores the state', async () => {
    const page = await newPage(browser, { colorScheme })
    await visit(page, `${baseURL}/AllBooks`)
    await expectPageHeading(page, 'All eBooks (7)')
    expect(await status(page).textContent()).toBe('Showing 1–7 of 7 books')
    await expectHealthyPage(page)
    // A full page load would lose this.
    await page.evaluate(() => Object.assign(window, { stillTheSamePage: true }))

    await select(page, 'Price').focus()
    // Under $10 has no book, so it is not offered: the first option after 'Any price' is $10 to $25.
    await page.keyboard.press('ArrowDown')
    await page.waitForURL(`${baseURL}/AllBooks?price=10-25`)
    await expectPageHeading(page, 'All eBooks (2)')
    expect(await status(page).textContent()).toBe('Showing 1–2 of 2 books')
    expect(await cardTitles(page)).toEqual(['Django Framework', 'Build a Blockchain from Scratch in Go'])
    expect(await focusedName(page)).toBe('price')
    expect(await select(page, 'Price').textContent()).toContain('$10 to $25 (2)')
    await expectHealthyPage(page)

    await select(page, 'Sort by').focus()
    await page.keyboard.press('ArrowDown') // Newest
    await page.waitForURL(`${baseURL}/AllBooks?price=10-25&sort=newest`)
    await expect
      .poll(() => cardTitles(page))
      .toEqual(['Build a Blockchain from Scratch in Go', 'Django Framework'])
    expect(await focusedName(page)).toBe('sort')
    expect(await page.evaluate(() => 'stillTheSamePage' in window)).toBe(true)

    await page.goBack()
    await page.waitForURL(`${baseURL}/AllBooks?price=10-25`)
    await expect
      .poll(() => cardTitles(page))
      .toEqual(['Django Framework', 'Build a Blockchain from Scratch in Go'])
    expect(await select(page, 'Sort by').inputValue()).toBe('relevance')
    await page.goBack()
    await page.waitForURL(`${baseURL}/AllBooks`)
    await expectPageHeading(page, 'All eBooks (7)')
    expect(await select(page, 'Price').inputValue()).toBe('')
    expect(await status(page).textContent()).toBe('Showing 1–7 of 7 books')
    await page.context().close()
  })
})

test('filtering All eBooks by keyboard without JavaScript: a GET form, and back restores the list', async () => {
  const page = await newPage(browser, { javaScriptEnabled: false })
  await visit(page, `${baseURL}/AllBooks`)
  await expectPageHeading(page, 'All eBooks (7)')
  await select(page, 'Price').focus()
  await page.keyboard.press('ArrowDown') // $10 to $25 (Under $10, with no book, is not offered)
  await select(page, 'Rating').focus()
  await page.keyboard.press('ArrowDown') // 4 stars & up
  await page.getByRole('button', { name: 'Apply' }).focus()
  await page.keyboard.press('Enter')
  await page.waitForURL((url) => url.searchParams.get('price') === '10-25')
  expect(new URL(page.url()).searchParams.get('rating')).toBe('4')
  await expectPageHeading(page, 'All eBooks (1)')
  expect(await cardTitles(page)).toEqual(['Build a Blockchain from Scratch in Go'])
  expect(await select(page, 'Price').inputValue()).toBe('10-25')
  await page.getByRole('link', { name: 'Clear filters' }).click()
  await page.waitForURL(`${baseURL}/AllBooks`)
  await expectPageHeading(page, 'All eBooks (7)')
  await page.goBack()
  await expectPageHeading(page, 'All eBooks (1)')
  await page.goBack()
  await expectPageHeading(page, 'All eBooks (7)')
  await page.context().close()
})

describe.each(themes)('topics, %s theme', (colorScheme) => {
  test('a book links its topics; a topic page and the topics index; an unknown topic is a 404', async () => {
    const page = await newPage(browser, { colorScheme })
    await visit(page, `${baseURL}/books/django-framework`)
    await page.getByRole('navigation', { name: 'Topics' }).getByRole('link', { name: 'Databases' }).click()
    await page.waitForURL(`${baseURL}/topics/databases`)
    await expectPageHeading(page, 'Databases (2)')
    expect(await cardTitles(page)).toEqual(['Complete Guide to Backend Development', 'Django Framework'])
    // The same facets, minus the topic.
    expect(await select(page, 'Topic').count()).toBe(0)
    await select(page, 'Price').focus()
    await page.keyboard.press('ArrowDown') // $10 to $25: the first price with a book
    await page.waitForURL(`${baseURL}/topics/databases?price=10-25`)
    await expectPageHeading(page, 'Databases (1)')
    await expectHealthyPage(page)

    await page.getByRole('link', { name: 'All topics' }).click()
    await page.waitForURL(`${baseURL}/topics`)
    await expectPageHeading(page, 'Topics')
    expect(await page.getByRole('link', { name: 'JavaScript 3 books' }).getAttribute('href')).toBe(
      '/topics/javascript',
    )
    await expectHealthyPage(page)

    const missing = await page.goto(`${baseURL}/topics/no-such-topic`)
    expect(missing?.status()).toBe(404)
    await expectPageHeading(page, 'Page not found')
    await page.context().close()
  })
})

describe('page links on a catalogue of more than one page', () => {
  let store: StoreProcess
  beforeAll(async () => {
    const started = await startStoreWithAdmin({}, async (db) => {
      await db.insert(books).values(
        Array.from({ length: 30 }, (_, n) => ({
          slug: `paged-book-${n + 1}`,
          title: `Paged Book ${n + 1}`,
          author: 'Page Author',
          description: 'A book that makes the catalogue longer than one page.',
          priceCents: 500 + n * 100,
          coverPath: '/covers/django-framework.svg',
          coverAlt: `Cover of Paged Book ${n + 1}`,
          rating: 3,
          fileSizeBytes: 1_000_000,
          topics: ['paging'],
          createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, n)),
        })),
      )
    })
    store = started.store
  }, 120_000)
  afterAll(() => store?.stop())

  test.each([
    ['on', true],
    ['off', false],
  ] as const)(
    'with JavaScript %s, the page links are plain links that work',
    async (_, javaScriptEnabled) => {
      const page = await newPage(browser, { javaScriptEnabled })
      await visit(page, `${store.url}/AllBooks?sort=price-asc`)
      await expectPageHeading(page, 'All eBooks (37)')
      const pages = page.getByRole('navigation', { name: 'Pages' })
      const first = await cardTitles(page)
      expect(first).toHaveLength(24)
      expect(await pages.getByRole('link', { name: 'Page 2' }).getAttribute('href')).toBe(
        '/AllBooks?sort=price-asc&page=2',
      )
      await pages.getByRole('link', { name: 'Next page' }).click()
      await page.waitForURL(`${store.url}/AllBooks?sort=price-asc&page=2`)
      await expect.poll(() => cardTitles(page)).toHaveLength(13)
      const second = await cardTitles(page)
      expect(new Set([...first, ...second]).size).toBe(37)
      expect(await status(page).textContent()).toBe('Showing 25–37 of 37 books')
      expect(await pages.locator('[aria-current="page"]').textContent()).toBe('Page 2')
      await pages.getByRole('link', { name: 'Previous page' }).click()
      await page.waitForURL(`${store.url}/AllBooks?sort=price-asc`)
      await expect.poll(() => cardTitles(page)).toEqual(first)
      await expectHealthyPage(page)
      await page.context().close()
    },
  )
})

describe.each([
  ['All eBooks', '/AllBooks'],
  ['a search', '/search?q=django'],
  ['a topic', '/topics/javascript'],
])('the filters on %s', (_, path) => {
  const firstCard = (page: Page) => page.getByRole('main').getByRole('article').first()
  const disclosure = (page: Page) => page.getByRole('group').filter({ has: page.getByText('Filters') })

  test.each([
    ['on', true],
    ['off', false],
  ] as const)(
    'at 390×844 fold into a closed “Filters” disclosure: the first book is on the first screen (JavaScript %s)',
    async (_, javaScriptEnabled) => {
      const page = await newPage(browser, { viewport: { width: 390, height: 844 }, javaScriptEnabled })
      await visit(page, `${baseURL}${path}`)
      const card = await firstCard(page).boundingBox()
      expect(card, 'a book card').not.toBeNull()
      expect(card!.y).toBeLessThan(844)
      expect(await select(page, 'Sort by').isVisible()).toBe(false)
      const summary = page.getByText('Filters', { exact: true })
      expect(await summary.isVisible()).toBe(true)
      await summary.click()
      await select(page, 'Sort by').waitFor({ state: 'visible' })
      expect(await disclosure(page).count()).toBe(1)
      await expectHealthyPage(page)
      await page.context().close()
    },
  )

  test.each(themes)(
    'at 1280×800 show as a form, open, with no disclosure to click (%s theme)',
    async (colorScheme) => {
      const page = await newPage(browser, { viewport: { width: 1280, height: 800 }, colorScheme })
      await visit(page, `${baseURL}${path}`)
      expect(await select(page, 'Sort by').isVisible()).toBe(true)
      expect(await page.getByRole('button', { name: 'Apply' }).isVisible()).toBe(true)
      expect(await page.getByText('Filters', { exact: true }).isVisible()).toBe(false)
      expect((await firstCard(page).boundingBox())!.y).toBeLessThan(800)
      await expectHealthyPage(page)
      await page.context().close()
    },
  )
})
