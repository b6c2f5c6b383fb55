import fs from 'node:fs/promises'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, Download, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, themes, visit } from './browser.ts'
import { bookA, bookB, newShopper, register, registerAndBuy, uniqueEmail } from './shopper.ts'

const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const slugA = 'django-framework'

/** Clicks `link` and returns the browser's download, saved, with its size on disk. */
async function downloadFrom(page: Page, link: Locator) {
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
  return { download, size: (await fs.stat((await download.path())!)).size }
}

/**
 * axe-core alone, with expectHealthyPage's rules: a refusal page is a document answered 4xx, which Chrome
 * reports as a console error that expectHealthyPage would count against it.
 */
async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'])
    .analyze()
  expect(results.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([])
}

/** The size a download button lists: 'Download PDF of … (22 KB)' → 22. */
function listedKbOf(label: string): number {
  const kb = /\((\d+(?:\.\d)?) KB\)/.exec(label)?.[1]
  if (!kb) throw new Error(`no size in KB in ${JSON.stringify(label)}`)
  return Number(kb)
}

async function expectPdf(download: Download) {
  const bytes = await fs.readFile((await download.path())!)
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-')
}

describe('the reader’s library', () => {
  test('buy → My Library → download both formats (file names, sizes near those listed) → counted', async () => {
    const page = await newShopper(browser, true)
    await registerAndBuy(page, uniqueEmail('reader'), [bookA, bookB])
    await page.getByRole('link', { name: 'Download your eBooks from My Library' }).click()
    await page.waitForURL(`${baseURL}/account/library`)
    await page.getByRole('heading', { level: 1, name: 'My Library' }).waitFor()
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: bookA }) })
    expect(await item.textContent()).toContain('downloaded 0 times')
    await expectHealthyPage(page)

    const pdfLink = item.getByRole('link', { name: /^Download PDF/ })
    const listedKb = listedKbOf((await pdfLink.textContent())!)
    // As laid out on screen, a space before the size: not 'Download PDF(21 KB)' (issue 34).
    const shown = await pdfLink.evaluate((link) => {
      // What the eye reads: the text laid out on screen, without the words for screen readers only.
      const hidden = [...link.querySelectorAll('.sr-only')].map(
        (element) => [element, element.parentNode!] as const,
      )
      const next = hidden.map(([element]) => element.nextSibling)
      for (const [element] of hidden) element.remove()
      const text = (link as HTMLElement).innerText
      hidden.forEach(([element, parent], index) => parent.insertBefore(element, next[index] ?? null))
      return text
    })
    expect(shown).toMatch(/^Download PDF \(\d+ KB\)$/)
    const pdf = await downloadFrom(page, pdfLink)
    expect(pdf.download.suggestedFilename()).toBe(`${slugA}.pdf`)
    await expectPdf(pdf.download)
    // The size listed is the book's file; the stamped copy adds a footer line per page and its metadata.
    expect(pdf.size / 1024).toBeGreaterThan(listedKb * 0.9)
    expect(pdf.size / 1024).toBeLessThan(listedKb * 1.5)

    const epubLink = item.getByRole('link', { name: /^Download EPUB/ })
    const listedEpubKb = listedKbOf((await epubLink.textContent())!)
    const epub = await downloadFrom(page, epubLink)
    expect(epub.download.suggestedFilename()).toBe(`${slugA}.epub`)
    const epubBytes = await fs.readFile((await epub.download.path())!)
    expect(epubBytes.subarray(30, 58).toString('latin1')).toBe('mimetypeapplication/epub+zip')
    // The stamped EPUB adds a 'Prepared for' page and metadata, compressed.
    expect(epub.size / 1024).toBeGreaterThan(listedEpubKb * 0.9)
    expect(epub.size / 1024).toBeLessThan(listedEpubKb * 1.5)
    // A download leaves the library in place.
    expect(page.url()).toBe(`${baseURL}/account/library`)

    await visit(page, `${baseURL}/account/library`)
    expect(await item.textContent()).toContain('downloaded 2 times')

    // The person menu leads here too.
    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('menuitem', { name: 'My Library' }).click()
    await page.waitForURL(`${baseURL}/account/library`)
    await page.context().close()
  })

  test('someone who has not bought the book is refused, and so is a signed-out visitor', async () => {
    const page = await newShopper(browser, true)
    const downloadUrl = `${baseURL}/library/${slugA}/download.pdf`
    expect((await page.request.get(downloadUrl)).status()).toBe(403)
    await visit(page, `${baseURL}/Register`)
    await register(page, uniqueEmail('not-a-buyer'))
    await page.waitForURL(`${baseURL}/`)
    const refused = await page.request.get(downloadUrl)
    expect(refused.status()).toBe(403)
    expect(await refused.text()).toContain('Only the buyer of this eBook can download it.')
    expect((await page.request.get(`${baseURL}/library/..%2F..%2Fetc/download.pdf`)).status()).toBe(404)
    await page.context().close()
  })

  test('at the daily limit a download button shows the reason on the page, where a download would fail silently', async () => {
    const page = await newShopper(browser, true)
    await registerAndBuy(page, uniqueEmail('limit'), [bookA])
    await visit(page, `${baseURL}/account/library`)
    const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: bookA }) })
    const epub = await downloadFrom(page, item.getByRole('link', { name: /^Download EPUB/ }))
    expect(epub.download.suggestedFilename()).toBe(`${slugA}.epub`)
    // The other 49 of the day, with the page's cookies (the stamped copy is cached: each is a file read).
    const epubUrl = `${baseURL}/library/${slugA}/download.epub`
    for (let count = 2; count <= 50; count++) expect((await page.request.get(epubUrl)).status()).toBe(200)

    let downloads = 0
    page.on('download', () => downloads++)
    await item.getByRole('link', { name: /^Download PDF/ }).click()
    await page.getByRole('heading', { level: 1, name: 'Too many downloads' }).waitFor()
    expect(page.url()).toBe(`${baseURL}/library/${slugA}/download.pdf`)
    await page
      .getByText(
        /^You have downloaded this eBook 50 times today, the daily limit\. You can download it again in \d+ hours?\.$/,
      )
      .waitFor()
    expect(downloads).toBe(0)
    await expectNoAxeViolations(page)
    await page.getByRole('link', { name: 'Go to my library' }).click()
    await page.waitForURL(`${baseURL}/account/library`)
    await page.context().close()
  })

  test.each(themes)('an empty library explains itself, without axe violations (%s theme)', async (theme) => {
    const page = await newShopper(browser, true)
    await page.emulateMedia({ colorScheme: theme })
    await visit(page, `${baseURL}/Register`)
    await register(page, uniqueEmail('empty'))
    await page.waitForURL(`${baseURL}/`)
    await visit(page, `${baseURL}/account/library`)
    await page.getByText('Your library is empty.').waitFor()
    await page.getByRole('main').getByRole('link', { name: 'Browse all eBooks' }).waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  })
})

test('the free sample downloads from the book’s page, signed out, with JavaScript off', async () => {
  const page = await newShopper(browser, false)
  await visit(page, `${baseURL}/books/${slugA}`)
  const badges = await page.getByRole('list', { name: 'About this eBook' }).textContent()
  expect(badges).toMatch(/PDF \d+(\.\d)? KB/)
  expect(badges).toMatch(/EPUB \d+(\.\d)? KB/)
  const sample = await downloadFrom(page, page.getByRole('link', { name: /^Free sample/ }))
  expect(sample.download.suggestedFilename()).toBe(`${slugA}-sample.pdf`)
  await expectPdf(sample.download)
  await page.context().close()
})
