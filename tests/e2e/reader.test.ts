import type { Browser, Frame } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import {
  bookPage,
  expectSectionWith,
  openReader,
  percentShown,
  readerChrome,
  readerReady,
  sectionText,
  highlightWithNote,
  selectWords,
  hiddenSectionWith,
  highlightedPixels,
  placeSection,
  pageInSection,
  swipe,
  watchPages,
} from './reader-page.ts'
import { bookA, logIn, registerAndBuy, shopperPassword, uniqueEmail } from './shopper.ts'

/**
 * The online reader (issue 29): the sample for everyone, the owner's book with their place, notes and errata.
 * The book's pages are foliate-js's frames (blob: documents); the chrome around them is the store's markup,
 * which axe scans.
 */

const baseURL = inject('baseURL')
const slug = 'django-framework'
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

describe.each(themes)('the sample reader in the %s theme', (colorScheme) => {
  test('opens on the text, moves by keyboard to the next section, goes anywhere from its contents', async () => {
    const page = await newPage(browser, { colorScheme, viewport: { width: 1280, height: 800 } })
    await openReader(page, `${baseURL}/read/${slug}/sample`)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('free sample')
    // Real text, where the book's text starts (its first chapter, past the cover and title page).
    await expectSectionWith(page, /Chapter 1/)
    // The reader follows the store's theme: the page behind the text is dark in the dark theme.
    const background = await (
      await bookPage(page)
    ).evaluate(() => getComputedStyle(document.documentElement).backgroundColor)
    expect(background).toBe(colorScheme === 'dark' ? 'rgb(30, 41, 59)' : 'rgb(255, 255, 255)')
    await expectHealthyPage(page, readerChrome)

    // The contents: a labelled list of buttons, the title page first.
    await page.getByRole('main').getByRole('button', { name: 'Contents', exact: true }).click()
    const contents = page.getByRole('navigation', { name: 'Table of contents' })
    await contents.getByRole('button', { name: 'Title page' }).click()
    await expectSectionWith(page, /CodeBook edition/)
    // Laid out and placed (the page bar follows foliate-js's relocate): a key now turns this page.
    const pagesBar = page.getByRole('navigation', { name: 'Pages', exact: true })
    await pagesBar.getByText('Title page').waitFor()
    await expectHealthyPage(page, readerChrome)
    const percentOf = async () => Number((await percentShown(page))?.replace('%', ''))
    const atTitlePage = await percentOf()

    // The page bar shows foliate-js's place (the section it is in, and how far into the book).
    const placeIn = async (section: RegExp) => {
      let fraction = -1
      await expect
        .poll(async () => {
          const place = await page.evaluate(() => {
            type Place = { fraction: number; range?: Range }
            const view = document.querySelector('foliate-view') as (Element & { lastLocation?: Place }) | null
            const location = view?.lastLocation
            return location
              ? {
                  fraction: location.fraction,
                  text: location.range?.startContainer.ownerDocument?.body.textContent?.trim() ?? '',
                }
              : null
          })
          fraction = place && section.test(place.text) ? place.fraction : -1
          return fraction
        })
        .toBeGreaterThanOrEqual(0)
      await expect.poll(percentOf).toBe(Math.round(fraction * 100))
      return fraction
    }

    // The arrow key turns the page; the title page is one page, so the next section comes (the contents).
    // foliate-js takes no turn for 100 ms after one: the keys are pressed 150 ms apart.
    await page.keyboard.press('ArrowRight')
    const inContents = await placeIn(/^Contents/)
    expect(inContents).toBeGreaterThan(atTitlePage / 100)
    await page.waitForTimeout(150)
    await page.keyboard.press('PageDown')
    const inChapter1 = await placeIn(/^Chapter 1/)
    expect(inChapter1).toBeGreaterThan(inContents)
    await page.waitForTimeout(150)
    await page.keyboard.press('ArrowLeft')
    expect(await placeIn(/^Contents/)).toBeLessThan(inChapter1)
  })
})

test('the text size and theme change the book’s pages; listings keep their lines and have a Copy button', async () => {
  const page = await newPage(browser, { viewport: { width: 1280, height: 800 } })
  await openReader(page, `${baseURL}/read/${slug}/sample`)
  await expectSectionWith(page, /Chapter 1/)
  const fontSize = () =>
    bookPage(page).then((frame) => frame.evaluate(() => getComputedStyle(document.documentElement).fontSize))
  const before = parseFloat(await fontSize())
  await page.getByRole('button', { name: 'Larger text' }).click()
  await expect.poll(async () => parseFloat(await fontSize())).toBeGreaterThan(before)
  await page.getByLabel('Theme').selectOption('sepia')
  await expect
    .poll(() =>
      bookPage(page).then((frame) =>
        frame.evaluate(() => getComputedStyle(document.documentElement).backgroundColor),
      ),
    )
    .toBe('rgb(244, 236, 216)')
  const listing = await (
    await bookPage(page)
  ).evaluate(() => {
    const pre = document.querySelector('pre')
    if (!pre) return null
    return {
      whiteSpace: getComputedStyle(pre).whiteSpace,
      overflowX: getComputedStyle(pre).overflowX,
      button: pre.querySelector('button')?.textContent,
    }
  })
  // The sample's first chapter has a listing (the seed's manuscripts all do).
  expect(listing).toEqual({ whiteSpace: 'pre', overflowX: 'auto', button: 'Copy' })
  await expectHealthyPage(page, readerChrome)
})

test('search inside the book lists matches that lead to their page', async () => {
  const page = await newPage(browser, { viewport: { width: 1280, height: 800 } })
  await openReader(page, `${baseURL}/read/${slug}/sample`)
  // The reader's own Search, not the header's.
  await page.getByRole('main').getByRole('button', { name: 'Search', exact: true }).click()
  await page.getByRole('searchbox', { name: 'Search in this book' }).fill('Django')
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click()
  await expect
    .poll(() =>
      page
        .getByRole('status')
        .filter({ hasText: /results?\./ })
        .count(),
    )
    .toBe(1)
  const firstMatch = page
    .getByRole('search')
    .locator('..')
    .getByRole('button', { name: /Django/ })
    .first()
  await firstMatch.click()
  await expectSectionWith(page, /Django/)
  await expectHealthyPage(page, readerChrome)
})

test('on a phone a swipe turns into the section laid out ahead, and back', async () => {
  const page = await newPage(browser, {
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  })
  await openReader(page, `${baseURL}/read/${slug}/sample`)
  await expectSectionWith(page, /Chapter 1/)
  await watchPages(page)
  // By keys to chapter 1's last page (too quick for anything to be laid out ahead), then a pause.
  for (let turn = 0; turn < 80 && !(await pageInSection(page))?.atEnd; turn++) {
    await page.keyboard.press('ArrowRight')
    await page.waitForTimeout(150)
  }
  const end = (await pageInSection(page))!
  expect(end.atEnd).toBe(true)
  const chapter1 = await bookPage(page)
  // The sample's next section is its closing page.
  let closing: Frame | null = null
  await expect
    .poll(async () => (closing = await hiddenSectionWith(page, /End of the free sample/)) !== null, {
      timeout: 10_000,
    })
    .toBe(true)

  // A swipe to the left: the closing page, from the frame laid out ahead.
  await swipe(page, -200)
  await expect.poll(async () => (await pageInSection(page))?.index).toBe(end.index + 1)
  expect(await bookPage(page)).toBe(closing)
  await expectSectionWith(page, /End of the free sample/)
  // A swipe to the right: back to chapter 1's last page, in the frame it was in.
  await page.waitForTimeout(400)
  await swipe(page, 200)
  await expect.poll(() => placeSection(page)).toBe('Chapter 1')
  expect(await pageInSection(page)).toEqual(end)
  expect(await bookPage(page)).toBe(chapter1)
})

test('without JavaScript the sample’s page offers the PDF sample instead', async () => {
  const page = await newPage(browser, { javaScriptEnabled: false })
  const response = await visit(page, `${baseURL}/read/${slug}/sample`)
  expect(response?.status()).toBe(200)
  const link = page.getByRole('link', { name: 'Download the free sample (PDF)' })
  expect(await link.getAttribute('href')).toBe(`/books/${slug}/sample.pdf`)
  const pdf = await page.request.get(`${baseURL}/books/${slug}/sample.pdf`)
  expect(pdf.headers()['content-type']).toBe('application/pdf')
  expect(await page.getByRole('link', { name: 'Buy the eBook' }).getAttribute('href')).toBe(`/books/${slug}`)
  await expectHealthyPage(page)
})

test('before its scripts run, the page is already the book’s first screen: its text where its page will be', async () => {
  const page = await newPage(browser)
  // The page as a phone sees it while its scripts are still coming: they are held, never answered.
  await page.route('**/assets/*.js', () => {})
  await page.goto(`${baseURL}/read/${slug}/sample`, { waitUntil: 'domcontentloaded' })
  const first = page.getByRole('region', { name: 'Where the book opens' })
  await first.getByRole('heading', { level: 2, name: /^Chapter 1 — / }).waitFor()
  expect(await first.getByRole('paragraph').first().textContent()).toMatch(/\w+ \w+ \w+/)
  expect(await page.getByRole('button', { name: 'Next page ›' }).isDisabled()).toBe(true)
  await expectHealthyPage(page)
  await page.close()
})

test('a visitor who does not own the book gets 403 with the ways to read it, never the book', async () => {
  const page = await newPage(browser)
  const response = await page.goto(`${baseURL}/read/${slug}`)
  expect(response?.status()).toBe(403)
  await page.getByRole('heading', { level: 1, name: 'Log in to read this eBook' }).waitFor()
  expect(await page.getByRole('link', { name: 'Log in' }).last().getAttribute('href')).toBe(
    `/login?redirectTo=%2Fread%2F${slug}`,
  )
  expect(await page.getByRole('link', { name: 'Buy the eBook' }).getAttribute('href')).toBe(`/books/${slug}`)
  expect(await page.getByRole('link', { name: 'Read the free sample' }).getAttribute('href')).toBe(
    `/read/${slug}/sample`,
  )
  expect((await page.request.get(`${baseURL}/read/no-such-book`)).status()).toBe(404)
})

// These need the lead's endpoints of issue 29 (book.epub, state.json, position, annotations, errata).
describe('the owner’s reader', () => {
  test('reads the book, is found at the same place in another browser, highlights with a note, reports an erratum', async () => {
    const email = uniqueEmail('online-reader')
    const page = await newPage(browser, { viewport: { width: 1280, height: 800 } })
    await registerAndBuy(page, email, [bookA])
    await openReader(page, `${baseURL}/read/${slug}`)
    await expectSectionWith(page, /Chapter 1/)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).not.toContain('sample')

    // Moves on by keyboard; the place is saved a second after the reader stops.
    const saved = page.waitForResponse(
      (answer) => answer.url().endsWith(`/read/${slug}/position`) && answer.request().method() === 'PUT',
    )
    for (let turn = 0; turn < 3; turn++) await page.keyboard.press('ArrowRight')
    expect((await saved).status()).toBe(204)
    const placeText = (await sectionText(page)).slice(0, 40)
    const percent = await percentShown(page)
    await expectHealthyPage(page, readerChrome)

    // Another browser, the same account: the same place.
    const other = await newPage(browser, { viewport: { width: 1280, height: 800 } })
    await logIn(other, { email, password: shopperPassword }, { redirectTo: `/read/${slug}` })
    await readerReady(other)
    await expect.poll(() => percentShown(other)).toBe(percent)
    expect((await sectionText(other)).slice(0, 40)).toBe(placeText)

    // A highlight with a note, from a selection in the book's page.
    await highlightWithNote(other, 'Check this against the Django docs')
    const selected = other.getByRole('region', { name: 'Selected text' })
    await other.getByRole('button', { name: 'Notes', exact: true }).click()
    const notes = other.getByRole('complementary', { name: 'Notes' })
    await notes.getByText('Check this against the Django docs').waitFor()
    expect(await notes.getByRole('link', { name: 'Export as Markdown' }).getAttribute('href')).toBe(
      `/read/${slug}/annotations.md`,
    )
    const markdown = await other.request.get(`${baseURL}/read/${slug}/annotations.md`)
    expect(await markdown.text()).toContain('Check this against the Django docs')
    await expectHealthyPage(other, readerChrome)

    // An erratum from a selection: an empty description is refused beside its field, then it is sent.
    await (
      await bookPage(other)
    ).evaluate(() => {
      const paragraph = [...document.querySelectorAll('p')].at(-1)!
      const range = document.createRange()
      range.selectNodeContents(paragraph)
      document.getSelection()!.removeAllRanges()
      document.getSelection()!.addRange(range)
    })
    await selected.getByRole('button', { name: 'Report an erratum' }).click()
    const erratum = other.getByRole('dialog', { name: 'Report an erratum' })
    expect(await erratum.getByLabel('Quote').inputValue()).not.toBe('')
    expect(await erratum.getByLabel('Location').inputValue()).toMatch(/epubcfi\(/)
    await expectHealthyPage(other, readerChrome)
    // Refused on purpose below: Chrome logs the 400, which expectHealthyPage would count.
    await erratum.getByRole('button', { name: 'Send report' }).click()
    await expect
      .poll(() => erratum.getByLabel('What is wrong').getAttribute('aria-invalid'), { timeout: 5_000 })
      .toBe('true')
    await erratum.getByLabel('What is wrong').fill('The example uses a removed setting.')
    await erratum.getByLabel('Suggested fix').fill('Use the current setting instead.')
    await erratum.getByRole('button', { name: 'Send report' }).click()
    await other.getByRole('status').filter({ hasText: 'your erratum was sent' }).waitFor()
  })

  test('turns into a chapter laid out ahead, and back, with its place and highlights', async () => {
    const page = await newPage(browser, { viewport: { width: 1280, height: 800 } })
    await registerAndBuy(page, uniqueEmail('reader-ahead'), [bookA])
    await openReader(page, `${baseURL}/read/${slug}`)
    await expectSectionWith(page, /Chapter 1/)
    const contents = page.getByRole('navigation', { name: 'Table of contents' })
    const pagesBar = page.getByRole('navigation', { name: 'Pages', exact: true })
    // The page bar names the part of the contents foliate-js placed the reader in, in that chapter's file.
    const barShowsPlaceIn = async (file: RegExp) => {
      const item = await page.evaluate(() => {
        const view = document.querySelector('foliate-view') as
          (Element & { lastLocation?: { tocItem?: { label: string; href: string } } }) | null
        return view?.lastLocation?.tocItem ?? null
      })
      expect(item?.href).toMatch(file)
      await pagesBar.getByText(item!.label, { exact: true }).waitFor()
    }
    const goToChapter = async (name: RegExp) => {
      await page.getByRole('main').getByRole('button', { name: 'Contents', exact: true }).click()
      await contents.getByRole('button', { name }).click()
      await page.getByRole('main').getByRole('button', { name: 'Contents', exact: true }).click()
      await expectSectionWith(page, new RegExp(`^\\s*${name.source}`))
    }

    // A highlight on the first page of chapter 2.
    await goToChapter(/Chapter 2/)
    expect(await highlightedPixels(page)).toBe(0)
    await selectWords(page, 30)
    await page
      .getByRole('region', { name: 'Selected text' })
      .getByRole('button', { name: 'Highlight', exact: true })
      .click()
    await page.getByRole('status').filter({ hasText: 'Highlight saved.' }).waitFor()
    await expect.poll(() => highlightedPixels(page)).toBeGreaterThan(100)

    // Back in chapter 1, the reader stays on its page: chapter 2 is laid out ahead, in a frame kept hidden.
    await goToChapter(/Chapter 1/)
    const chapter1 = await bookPage(page)
    let chapter2: Frame | null = null
    await expect
      .poll(async () => (chapter2 = await hiddenSectionWith(page, /^\s*Chapter 2/)) !== null, {
        timeout: 10_000,
      })
      .toBe(true)
    // Page by page to the end of chapter 1 and on: the turn shows the frame laid out ahead, and foliate-js
    // reports the place in chapter 2 (the page bar's chapter), with the highlight drawn.
    for (let turn = 0; turn < 30 && (await placeSection(page)) === 'Chapter 1'; turn++) {
      await page.keyboard.press('ArrowRight')
      await page.waitForTimeout(400)
    }
    expect(await placeSection(page)).toBe('Chapter 2')
    expect(await bookPage(page)).toBe(chapter2)
    await barShowsPlaceIn(/chapter-2\.xhtml/)
    await expect.poll(() => highlightedPixels(page)).toBeGreaterThan(100)

    // Back a page: chapter 1's last page, from the frame it was in; and on again to chapter 2's first.
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => placeSection(page)).toBe('Chapter 1')
    expect(await bookPage(page)).toBe(chapter1)
    await barShowsPlaceIn(/chapter-1\.xhtml/)
    expect(await highlightedPixels(page)).toBe(0)
    await page.waitForTimeout(400)
    await page.keyboard.press('ArrowRight')
    await expect.poll(() => placeSection(page)).toBe('Chapter 2')
    expect(await bookPage(page)).toBe(chapter2)
    await expect.poll(() => highlightedPixels(page)).toBeGreaterThan(100)
    await expectHealthyPage(page, readerChrome)
  })

  test('without JavaScript the owner’s page offers their downloads', async () => {
    const email = uniqueEmail('reader-no-js')
    const buyer = await newPage(browser)
    await registerAndBuy(buyer, email, [bookA])
    const page = await newPage(browser, { javaScriptEnabled: false })
    await logIn(page, { email, password: shopperPassword })
    await visit(page, `${baseURL}/read/${slug}`)
    expect(await page.getByRole('link', { name: 'Download PDF' }).getAttribute('href')).toBe(
      `/library/${slug}/download.pdf`,
    )
    expect(await page.getByRole('link', { name: 'Download EPUB' }).getAttribute('href')).toBe(
      `/library/${slug}/download.epub`,
    )
  })
})
