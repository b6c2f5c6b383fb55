import type { Frame, Page } from 'playwright-core'
import sharp from 'sharp'
import { expect } from 'vitest'
import { visit } from './browser.ts'

/**
 * The online reader's page as its tests read it (issue 29). The book's pages are foliate-js's frames (blob:
 * documents); the chrome around them is the store's markup, which axe scans.
 */

/**
 * The book's page on screen: foliate-js shows one section at a time, in a frame loaded from a blob: URL. The
 * sections beside it may be laid out ahead in hidden frames, which are inert (scripts/vite/foliate-preload.ts).
 */
export async function bookPage(page: Page): Promise<Frame> {
  let shown: Frame | undefined
  await expect
    .poll(
      async () => {
        shown = undefined
        for (const frame of page.frames().filter((candidate) => candidate.url().startsWith('blob:'))) {
          const element = await frame.frameElement().catch(() => null)
          if (
            element &&
            (await element.evaluate((iframe) => !(iframe as Element).closest('[inert]')).catch(() => false))
          )
            shown = frame
        }
        return shown !== undefined
      },
      { timeout: 15_000 },
    )
    .toBe(true)
  return shown!
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

/** A section laid out ahead in a hidden frame whose text starts with `wanted`, if there is one. */
export async function hiddenSectionWith(page: Page, wanted: RegExp): Promise<Frame | null> {
  for (const frame of page.frames().filter((candidate) => candidate.url().startsWith('blob:'))) {
    const element = await frame.frameElement().catch(() => null)
    if (!element || !(await element.evaluate((iframe) => (iframe as Element).closest('[inert]') !== null)))
      continue
    const text = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '')
    if (wanted.test(text)) return frame
  }
  return null
}

/** 'Chapter N' of the section holding foliate-js's last reported place, else its first words. */
export const placeSection = (page: Page) =>
  page.evaluate(() => {
    const view = document.querySelector('foliate-view') as
      (Element & { lastLocation?: { range?: Range } }) | null
    const text = view?.lastLocation?.range?.startContainer.ownerDocument?.body?.textContent?.trim() ?? ''
    return /^Chapter \d+/.exec(text)?.[0] ?? text.slice(0, 20)
  })

/**
 * How many pixels of the book's page show a highlight (the reader's yellow at foliate-js's 30 % opacity on the
 * light theme's white): the highlights a reader sees, whatever foliate-js's closed shadow roots hold.
 */
export async function highlightedPixels(page: Page): Promise<number> {
  const shot = await page.locator('[data-reader-theme]').screenshot()
  const { data, info } = await sharp(shot).raw().toBuffer({ resolveWithObject: true })
  let count = 0
  for (let at = 0; at < data.length; at += info.channels) {
    const [red, green, blue] = [data[at]!, data[at + 1]!, data[at + 2]!]
    if (red > 240 && green > 225 && green < 250 && blue > 160 && blue < 210) count++
  }
  return count
}

/**
 * Keeps foliate-js's paginator's last report (the section's index, and the page as a fraction of the section),
 * for `pageInSection`.
 */
export async function watchPages(page: Page) {
  await page.evaluate(() => {
    type Detail = { index: number; fraction: number; size: number }
    const view = document.querySelector('foliate-view') as unknown as { renderer: EventTarget }
    const state = window as unknown as { lastPage?: Detail }
    view.renderer.addEventListener('relocate', (event) => {
      const { index, fraction, size } = (event as CustomEvent<Detail>).detail
      state.lastPage = { index, fraction, size }
    })
  })
}

/** The section on screen and whether its last page is shown (after `watchPages` and a turn). */
export const pageInSection = (page: Page) =>
  page.evaluate(() => {
    const last = (window as unknown as { lastPage?: { index: number; fraction: number; size: number } })
      .lastPage
    return last ? { index: last.index, atEnd: last.fraction + last.size > 0.999 } : null
  })

/** A finger drawn across the book's page, `dx` pixels (negative: to the left, to the next page). */
export async function swipe(page: Page, dx: number) {
  const box = (await page.locator('[data-reader-theme]').boundingBox())!
  const y = box.y + box.height / 2
  const from = box.x + box.width / 2 - dx / 2
  const touch = await page.context().newCDPSession(page)
  await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: from, y }] })
  for (let step = 1; step <= 6; step++)
    await touch.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: [{ x: from + (dx * step) / 6, y }],
    })
  await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] })
  await touch.detach()
}
