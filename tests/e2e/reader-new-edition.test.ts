import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { expectSectionWith, highlightWithNote, openReader, readerChrome, selectWords } from './reader-page.ts'
import { logIn } from './shopper.ts'

/**
 * Issue 29's loop, on a store of its own (it publishes an edition): a reader reads, highlights with a note and
 * reports an erratum; the back office confirms it and publishes edition 2; the reader finds it fixed on the
 * book's page, and their place and note in the new edition.
 */
const slug = 'django-framework'
const reader = { email: '' }
let bookId = ''
const own = ownStoreWithAdmin(async (db) => {
  await seedCatalog(db)
  const [book] = await db.select({ id: books.id }).from(books).where(eq(books.slug, slug))
  bookId = book!.id
  reader.email = (await createBuyer(db, [bookId])).email
})
const viewport = { width: 1280, height: 800 }

/**
 * The first words of the page on screen as the reader saves them with its place: foliate-js's last location,
 * the reader's own buttons left out, spaces collapsed, at most 120 characters.
 */
const quoteOnScreen = (page: Page) =>
  page.evaluate(() => {
    const view = document.querySelector('foliate-view') as
      (Element & { lastLocation?: { range?: Range } }) | null
    const copy = view?.lastLocation?.range?.cloneContents()
    for (const added of copy?.querySelectorAll('[data-codebook-reader]') ?? []) added.remove()
    return (copy?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 120).trimEnd()
  })

/** The place the store keeps for the reader (its state endpoint). */
async function savedPlace(page: Page): Promise<{ edition: number; quote: string } | null> {
  const state = (await (await page.request.get(`${own.store.url}/read/${slug}/state.json`)).json()) as {
    position: { edition: number; quote: string } | null
  }
  return state.position
}

test('an erratum reported in the reader is fixed in edition 2; the reader’s place and note follow', async () => {
  const page = await newPage(own.browser, { viewport })
  await logIn(
    page,
    { email: reader.email, password: testPassword },
    { storeUrl: own.store.url, redirectTo: `/read/${slug}` },
  )
  await openReader(page, `${own.store.url}/read/${slug}`)
  await expectSectionWith(page, /Chapter 1/)

  // A highlight with a note, then an erratum, from selections in the chapter.
  await highlightWithNote(page, 'Keep this note across editions')
  const selected = page.getByRole('region', { name: 'Selected text' })
  await selectWords(page, 40)
  await selected.getByRole('button', { name: 'Report an erratum' }).click()
  const erratum = page.getByRole('dialog', { name: 'Report an erratum' })
  const quote = await erratum.getByLabel('Quote').inputValue()
  await erratum.getByLabel('What is wrong').fill('The settings module name is misspelt here.')
  await erratum.getByRole('button', { name: 'Send report' }).click()
  await page.getByRole('status').filter({ hasText: 'your erratum was sent' }).waitFor()

  // A few pages on; the place is saved a second after the reader stops.
  const saved = page.waitForResponse(
    (answer) => answer.url().endsWith(`/read/${slug}/position`) && answer.request().method() === 'PUT',
  )
  for (let turn = 0; turn < 3; turn++) {
    await page.keyboard.press('ArrowRight')
    // foliate-js takes no turn for 100 ms after one.
    await page.waitForTimeout(150)
  }
  expect((await saved).status()).toBe(204)
  // Settled: the store keeps the page on screen (a turn may have been saved apart from the last).
  const place = await quoteOnScreen(page)
  expect(place.length).toBeGreaterThan(20)
  await expect.poll(async () => (await savedPlace(page))?.quote, { timeout: 10_000 }).toBe(place)

  // The back office confirms it, and the manuscript page offers it as the next edition's changelog.
  const admin = await newPage(own.browser, { viewport })
  await logIn(admin, own.admin, { storeUrl: own.store.url, redirectTo: '/admin/errata' })
  const report = admin.getByRole('article').filter({ hasText: 'The settings module name is misspelt here.' })
  expect(await report.getByRole('heading').textContent()).toBe(`“${quote}”`)
  await report.getByRole('button', { name: 'Confirm' }).click()
  // Confirmed, it leaves the list of open errata.
  await report.waitFor({ state: 'detached' })
  await expectHealthyPage(admin)
  await visit(admin, `${own.store.url}/admin/books/${bookId}/manuscript`)
  const changelog = admin.getByLabel(/What changed in this edition/)
  expect(await changelog.inputValue()).toContain('The settings module name is misspelt here.')
  // Edition 2 opens with a new preface: every later page moves on, so a place kept by its fraction would not
  // be found again, and one kept by its words is.
  const editor = admin.getByLabel('Manuscript (Markdown)')
  const preface = 'This second edition opens with a preface about what changed since the first. '
  await editor.fill(
    `# Preface to the second edition\n\n${preface.repeat(120).trim()}\n\n${await editor.inputValue()}`,
  )
  await admin.getByRole('button', { name: 'Publish new edition (2)' }).click()
  await admin.getByRole('status').getByText('Edition 2 is published').waitFor()

  // The book's page lists the erratum as fixed in edition 2.
  await visit(page, `${own.store.url}/books/${slug}`)
  const errata = page.getByRole('region', { name: 'Errata' })
  await errata.getByText('Fixed in edition 2').waitFor()
  expect(await errata.textContent()).toContain('The settings module name is misspelt here.')

  // The reader opens edition 2 at the same words, with their note moved to it.
  await openReader(page, `${own.store.url}/read/${slug}`)
  await expect.poll(() => quoteOnScreen(page), { timeout: 15_000 }).toBe(place)
  // Turning on saves the place in edition 2.
  await page.keyboard.press('ArrowRight')
  await expect.poll(async () => (await savedPlace(page))?.edition, { timeout: 10_000 }).toBe(2)
  await page.getByRole('button', { name: 'Notes', exact: true }).click()
  const notes = page.getByRole('complementary', { name: 'Notes' })
  await notes.getByText('Keep this note across editions').waitFor()
  await expect.poll(() => notes.textContent()).not.toContain('from edition 1')
  await expectHealthyPage(page, readerChrome)
})
