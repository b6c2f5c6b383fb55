import type { Frame, Page } from 'playwright-core'
import { expect } from 'vitest'
import { visit } from './browser.ts'

/**
 * The online reader's page as its tests read it (issue 29). The book's pages are foliate-js's frames (blob:
 * documents); the chrome around them is the store's markup, which axe scans.
 */

/** The book's page on screen: foliate-js shows one section at a time, in a frame loaded from a blob: URL. */
export async function bookPage(page: Page): Promise<Frame> {
  await expect
    .poll(() => page.frames().filter((frame) => frame.url().startsWith('blob:')).length, { timeout: 15_000 })
    .toBeGreaterThan(0)
  return page
    .frames()
    .filter((frame) => frame.url().startsWith('blob:'))
    .at(-1)!
}

/** The text of the section on screen, once it has some. */
export async function sectionText(page: Page): Promise<string> {
  let text = ''
  await expect
    .poll(
      async () => {
        text = await (await bookPage(page)).evaluate(() => document.body?.innerText ?? '').catch(() => '')
        return text.trim().length
      },
      { timeout: 15_000 },
    )
    .toBeGreaterThan(0)
  return text
}

/** Waits until the section on screen has `wanted` in its text. */
export async function expectSectionWith(page: Page, wanted: string | RegExp) {
  await expect.poll(() => sectionText(page), { timeout: 15_000 }).toMatch(wanted)
}

/** axe's options for the reader: the book's own pages are the EPUB's (Ace checks those), not the chrome. */
export const readerChrome = { exclude: ['foliate-view'] }

/** The percentage the page bar shows. */
export const percentShown = (page: Page) =>
  page.getByRole('navigation', { name: 'Pages' }).locator('span.tabular-nums').textContent()

/** Waits until the book is open: its 'Next page' button is enabled. */
export async function readerReady(page: Page) {
  await page
    .getByRole('button', { name: 'Next page ›' })
    .and(page.locator(':enabled'))
    .waitFor({ timeout: 20_000 })
}

export async function openReader(page: Page, url: string) {
  await visit(page, url)
  await readerReady(page)
}

/** Selects the first `length` characters of the first paragraph on the book's page longer than 40. */
export async function selectWords(page: Page, length: number) {
  await (
    await bookPage(page)
  ).evaluate((end) => {
    const paragraph = [...document.querySelectorAll('p')].find((p) => p.textContent!.length > 40)!
    const range = document.createRange()
    range.setStart(paragraph.firstChild!, 0)
    range.setEnd(paragraph.firstChild!, end)
    document.getSelection()!.removeAllRanges()
    document.getSelection()!.addRange(range)
  }, length)
}

/** Selects words on the book's page and saves them as a highlight with `note`, through the reader's dialog. */
export async function highlightWithNote(page: Page, note: string) {
  await selectWords(page, 30)
  await page
    .getByRole('region', { name: 'Selected text' })
    .getByRole('button', { name: 'Highlight with a note' })
    .click()
  const dialog = page.getByRole('dialog', { name: 'Highlight with a note' })
  await dialog.getByLabel('Note').fill(note)
  await dialog.getByRole('button', { name: 'Save highlight' }).click()
  await page.getByRole('status').filter({ hasText: 'Highlight saved.' }).waitFor()
}
