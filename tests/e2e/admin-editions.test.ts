import type { Page } from 'playwright-core'
import { beforeAll, expect, test } from 'vitest'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { logIn, submit } from './shopper.ts'

/**
 * The manuscript page in a real browser, on a store of its own (its editions would change what the shared
 * store's tests download), with an owner made an admin by ADMIN_EMAILS at start-up.
 */
const own = ownStoreWithAdmin()
let bookId: string
beforeAll(async () => {
  const page = await newPage(own.browser)
  await visit(page, `${own.store.url}/books/django-framework`)
  bookId = await page.locator('input[name="bookId"]').first().inputValue()
  await page.context().close()
})

async function signedInAdmin(options: Parameters<typeof newPage>[1] = {}): Promise<Page> {
  const page = await newPage(own.browser, options)
  await logIn(page, own.admin, { storeUrl: own.store.url })
  return page
}

const manuscriptUrl = () => `${own.store.url}/admin/books/${bookId}/manuscript`

test.each(themes)('the manuscript page passes axe in the %s theme', async (colorScheme) => {
  const page = await signedInAdmin({ colorScheme })
  await visit(page, manuscriptUrl())
  await page.getByRole('heading', { level: 1, name: 'Manuscript of Django Framework' }).waitFor()
  expect(await page.getByLabel('Manuscript (Markdown)').inputValue()).toContain('# ')
  await expectHealthyPage(page)
  await page.context().close()
})

test('without JavaScript: a broken manuscript is refused next to its field, a good one becomes edition 2', async () => {
  const page = await signedInAdmin({ javaScriptEnabled: false })
  await page.goto(manuscriptUrl())
  const editor = page.getByLabel('Manuscript (Markdown)')
  const original = await editor.inputValue()

  await editor.fill(`${original.trimEnd()}\n\n\`\`\`js\n${'x'.repeat(81)}\n\`\`\`\n`)
  await page.getByLabel(/What changed in this edition/).fill('A broken edition.')
  const refused = await submit(page, () =>
    page.getByRole('button', { name: 'Publish new edition (2)' }).click(),
  )
  expect(refused.status()).toBe(400)
  const error = page.getByText(/This manuscript cannot be published: manuscript:\d+: code line is 81/)
  await error.waitFor()
  expect(await editor.getAttribute('aria-invalid')).toBe('true')
  expect(await editor.getAttribute('aria-describedby')).toContain((await error.getAttribute('id'))!)

  // A draft larger than the host's 64 KiB form limit is saved (this page has its own limit).
  const paragraph = 'This second edition adds a long appendix paragraph, written in the back office. '
  const longer = `${original.trimEnd()}\n\n# Appendix\n\n${paragraph.repeat(1000).trim()}\n`
  await editor.fill(longer)
  const saved = await submit(page, () => page.getByRole('button', { name: 'Save draft' }).click())
  expect(saved.status()).toBe(303)
  await page.getByRole('status').getByText('The draft is saved').waitFor()
  expect(await editor.inputValue()).toBe(longer)

  await page.getByLabel(/What changed in this edition/).fill('Adds an appendix.')
  await submit(page, () => page.getByRole('button', { name: 'Publish new edition (2)' }).click())
  await page.waitForURL(`${manuscriptUrl()}?published=2`)
  await page.getByRole('status').getByText('Edition 2 is published').waitFor()
  const editions = page.getByRole('region', { name: 'Editions' })
  expect(await editions.getByRole('listitem').allTextContents()).toEqual([
    expect.stringMatching(
      new RegExp(
        `^Edition 2 · .+ UTC · published by ${own.admin.email.replace(/[.+]/g, '\\$&')}Adds an appendix\\.$`,
      ),
    ),
    expect.stringMatching(/^Edition 1 · .+ UTC · the store’s original manuscriptFirst edition\.$/),
  ])
  await page.context().close()
})

test('with JavaScript: uploading a .md file makes it the draft; a non-UTF-8 file is refused next to the field', async () => {
  const page = await signedInAdmin({ colorScheme: 'dark' })
  await visit(page, manuscriptUrl())
  const fileInput = page.getByLabel(/Markdown file/)
  await fileInput.setInputFiles({
    name: 'latin1.md',
    mimeType: 'text/markdown',
    buffer: Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]),
  })
  await page.getByRole('button', { name: 'Upload as draft' }).click()
  await page.getByText('This file is not UTF-8 text.').waitFor()
  await expectHealthyPage(page)

  const text = '# Uploaded chapter\n\nThis manuscript came from a file.\n'
  await fileInput.setInputFiles({ name: 'book.md', mimeType: 'text/markdown', buffer: Buffer.from(text) })
  await page.getByRole('button', { name: 'Upload as draft' }).click()
  await page.getByRole('status').getByText('The draft is saved').waitFor()
  expect(await page.getByLabel('Manuscript (Markdown)').inputValue()).toBe(text)
  // The notice and the list of editions, in the dark theme.
  await expectHealthyPage(page)
  await page.context().close()
})
