import { eq } from 'drizzle-orm'
import type { BrowserContextOptions, Cookie, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { saveReview } from '#app/features/reviews/reviews.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { logIn } from './shopper.ts'

/**
 * The owner's journey through the back office pages of issue 34 (overview, settings, site pages, topics,
 * customers) and the site pages they write, on a store of its own: its settings and topics change what every
 * page shows. Its database has, before the store starts, a reader who bought a book and reviewed it.
 */
const reader = { email: '', userId: '', orderNumber: 0 }
const bookTitle = 'Django Framework'
const reviewTitle = 'Clear from the first chapter'
const own = ownStoreWithAdmin(async (db) => {
  await seedCatalog(db)
  const [book] = await db.select({ id: books.id }).from(books).where(eq(books.title, bookTitle))
  const buyer = await createBuyer(db, [book!.id], {
    email: `quill-reader-${Math.random().toString(36).slice(2, 8)}@example.com`,
  })
  await saveReview(db, {
    userId: buyer.userId,
    bookId: book!.id,
    input: { rating: 4, title: reviewTitle, body: 'The models chapter alone was worth it.' },
  })
  Object.assign(reader, { email: buyer.email, userId: buyer.userId, orderNumber: buyer.orderNumber })
})

const sitePages = ['/about', '/contact', '/terms', '/privacy', '/refunds', '/imprint']

/** The owner's session, signed in once through the login page; each test's tabs carry it. */
let ownerCookies: Cookie[] = []
beforeAll(async () => {
  const page = await newPage(own.browser)
  await logIn(page, own.admin, { storeUrl: own.store.url })
  ownerCookies = await page.context().cookies()
  await page.context().close()
})

async function ownerPage(options: BrowserContextOptions = {}): Promise<Page> {
  const page = await newPage(own.browser, options)
  await page.context().addCookies(ownerCookies)
  return page
}

const url = (path: string) => `${own.store.url}${path}`
const footer = (page: Page) => page.getByRole('contentinfo')
const socialLinks = (page: Page) =>
  footer(page).getByRole('link', { name: / on (Instagram|X \(Twitter\)|GitHub|Mastodon)$/ })

describe('the owner makes the store their own', () => {
  test('overview → settings (seller, contact, a social link, hero text) → footer, home page and imprint show them', async () => {
    const page = await ownerPage()
    await visit(page, url('/admin'))
    await page.getByRole('heading', { level: 1, name: 'Back office' }).waitFor()
    // Today's revenue counts the reader's order, which is the first of the last orders.
    const today = page.getByRole('region', { name: 'Revenue' }).getByText(/^\s*1 order\s*$/)
    expect(await today.count()).toBe(2)
    const lastOrders = page.getByRole('region', { name: 'Last orders' })
    await lastOrders.getByRole('rowheader', { name: `#${reader.orderNumber}` }).waitFor()
    expect(await lastOrders.getByRole('row').nth(1).textContent()).toContain(reader.email)
    await page
      .getByRole('region', { name: 'Waiting for you' })
      .getByText(/^Nothing:/)
      .waitFor()

    // A fresh store links to no social account and names no seller.
    await visit(page, url('/'))
    await footer(page).getByRole('link', { name: 'Imprint' }).waitFor()
    expect(await socialLinks(page).count()).toBe(0)
    await visit(page, url('/imprint'))
    await page
      .getByRole('main')
      .getByText('[set your legal name in the back office]', { exact: true })
      .waitFor()

    await visit(page, url('/admin'))
    await page
      .getByRole('navigation', { name: 'Back office' })
      .getByRole('link', { name: 'Settings' })
      .click()
    await page.getByRole('heading', { level: 1, name: 'Store settings' }).waitFor()
    await page.getByLabel('Legal name').fill('Quillwork Press Ltd')
    await page.getByLabel('Postal address').fill('12 Quill Lane\nBookham BK1 2QP\nUnited Kingdom')
    await page.getByLabel('Contact email').fill('hello@quillwork.example.com')
    await page.getByLabel('GitHub').fill('https://github.com/quillwork-press')
    const hero = 'Quillwork Press sells the programming books we wish we had read first.'
    await page.getByLabel(/^Paragraph under/).fill(hero)
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByRole('status').getByText('The settings were saved.').waitFor()
    expect(await page.getByLabel('Legal name').inputValue()).toBe('Quillwork Press Ltd')

    await visit(page, url('/'))
    await page.getByRole('main').getByText(hero).waitFor()
    const github = socialLinks(page)
    await expect.poll(() => github.count()).toBe(1)
    expect(await github.getAttribute('aria-label')).toMatch(/ on GitHub$/)
    expect(await github.getAttribute('href')).toBe('https://github.com/quillwork-press')
    const contact = footer(page).getByRole('link', { name: 'hello@quillwork.example.com' })
    expect(await contact.getAttribute('href')).toBe('mailto:hello@quillwork.example.com')
    const footerText = await footer(page).innerText()
    expect(footerText).toContain('Quillwork Press Ltd')
    expect(footerText).toContain('12 Quill Lane')

    await footer(page).getByRole('link', { name: 'Imprint' }).click()
    await page.waitForURL(url('/imprint'))
    await page.getByRole('heading', { level: 1, name: 'Imprint' }).waitFor()
    const imprint = await page.getByRole('main').innerText()
    expect(imprint).toContain('Quillwork Press Ltd')
    expect(imprint).toContain('12 Quill Lane, Bookham BK1 2QP, United Kingdom')
    expect(imprint).not.toContain('[set your')
    await visit(page, url('/terms'))
    expect(await page.getByRole('main').innerText()).toContain('Quillwork Press Ltd')
  })

  test('the About page’s Markdown: heading, list and link shown; a script and a javascript: link inert; the sitemap lists the site pages', async () => {
    const page = await ownerPage()
    const dialogs: string[] = []
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    await visit(page, url('/admin/pages'))
    await page.getByRole('heading', { level: 1, name: 'Site pages' }).waitFor()
    await page.getByRole('main').getByRole('link', { name: 'About', exact: true }).click()
    await page.getByRole('heading', { level: 1, name: 'Edit ‘About’' }).waitFor()
    await page
      .getByLabel('Text', { exact: true })
      .fill(
        [
          '### Who we are',
          '',
          'A small press of programming books.',
          '',
          '- Hand-picked titles',
          '- DRM-free files',
          '',
          'Read [our terms](/terms) before you buy.',
          '',
          '<script>document.title = "owned"; alert("owned")</script>',
          '',
          '[Win a prize](javascript:alert("owned"))',
        ].join('\n'),
      )
    await page.getByRole('button', { name: 'Save page' }).click()
    await page.getByRole('status').getByText('The page was saved.').waitFor()
    await page.getByRole('status').getByRole('link', { name: 'See it in the store' }).click()
    await page.waitForURL(url('/about'))

    const main = page.getByRole('main')
    await main.getByRole('heading', { level: 1, name: 'About' }).waitFor()
    await main.getByRole('heading', { level: 2, name: 'Who we are' }).waitFor()
    expect(await main.getByRole('listitem').allInnerTexts()).toEqual(['Hand-picked titles', 'DRM-free files'])
    expect(await main.getByRole('link', { name: 'our terms' }).getAttribute('href')).toBe('/terms')
    // The script is words on the page, not a script; the javascript: link keeps its words and loses its link.
    await main.getByText('<script>document.title = "owned"; alert("owned")</script>').waitFor()
    expect(await main.locator('script').count()).toBe(0)
    await main.getByText('Win a prize').waitFor()
    expect(await main.getByRole('link', { name: 'Win a prize' }).count()).toBe(0)
    expect(await page.locator('[href^="javascript:" i]').count()).toBe(0)
    expect(await page.title()).not.toBe('owned')
    expect(dialogs).toEqual([])
    await expectHealthyPage(page)

    // The sitemap index names the static sitemap, which lists the six site pages.
    const index = await (await fetch(url('/sitemap.xml'))).text()
    const staticSitemap = /<loc>([^<]*\/sitemaps\/static\.xml)<\/loc>/.exec(index)?.[1]
    expect(staticSitemap, index).toBeDefined()
    const listed = await (await fetch(url(new URL(staticSitemap!).pathname))).text()
    const paths = [...listed.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => new URL(match[1]!).pathname)
    expect(paths).toEqual(expect.arrayContaining(sitePages))
  })

  test('renaming a topic renames it on /topics; its old address leads to the new one', async () => {
    const page = await ownerPage()
    await visit(page, url('/admin/topics'))
    await page.getByRole('heading', { level: 1, name: 'Topics' }).waitFor()
    await page.getByLabel('New name for Blockchain', { exact: true }).fill('Distributed Ledgers')
    const topic = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: /^Blockchain / }) })
    await topic.getByRole('button', { name: 'Rename' }).click()
    await page.getByRole('status').getByText('The topic was renamed.').waitFor()
    await page
      .getByRole('heading', { name: /^Distributed Ledgers · \/topics\/distributed-ledgers/ })
      .waitFor()

    await visit(page, url('/topics'))
    const topics = page.getByRole('main').getByRole('link')
    await topics.filter({ hasText: 'Distributed Ledgers' }).waitFor()
    expect(await topics.filter({ hasText: 'Blockchain' }).count()).toBe(0)
    await topics.filter({ hasText: 'Distributed Ledgers' }).click()
    await page.waitForURL(url('/topics/distributed-ledgers'))
    await page.getByRole('heading', { level: 1, name: /Distributed Ledgers/ }).waitFor()
    await visit(page, url('/topics/blockchain'))
    expect(page.url()).toBe(url('/topics/distributed-ledgers'))
  })

  test('the owner finds a customer by part of their email and sees their orders, library and reviews', async () => {
    const page = await ownerPage()
    await visit(page, url('/admin'))
    await page
      .getByRole('navigation', { name: 'Back office' })
      .getByRole('link', { name: 'Customers' })
      .click()
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor()
    const part = reader.email.split('@')[0]!.slice(0, 14).toUpperCase()
    await page.getByRole('search').getByLabel('Email contains').fill(part)
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click()
    await page.waitForURL(/\?q=/)
    const table = page.getByRole('table', { name: 'Customers by email' })
    // The row header, then its link: the one customer whose email has that part (not the owner).
    await expect.poll(() => table.getByRole('row').count()).toBe(2)
    await table.getByRole('link', { name: reader.email }).click()

    await page.waitForURL(url(`/admin/customers/${reader.userId}`))
    await page.getByRole('heading', { level: 1, name: reader.email }).waitFor()
    const orders = page.getByRole('region', { name: 'Orders (1)' })
    await orders.getByRole('link', { name: `#${reader.orderNumber}` }).waitFor()
    expect(await orders.getByRole('row').nth(1).textContent()).toMatch(/paid/i)
    await page.getByRole('region', { name: 'Library (1)' }).getByRole('link', { name: bookTitle }).waitFor()
    const reviews = page.getByRole('region', { name: 'Reviews (1)' })
    expect(await reviews.getByRole('row').nth(1).textContent()).toContain(reviewTitle)
    expect(await reviews.getByRole('row').nth(1).textContent()).toContain('4 of 5')
  })

  test('without JavaScript a refused contact email comes back next to its field, with the other values as typed', async () => {
    const page = await ownerPage({ javaScriptEnabled: false })
    await visit(page, url('/admin/settings'))
    await page.getByLabel('Legal name').fill('Typed But Not Saved Ltd')
    await page.getByLabel(/^Paragraph under/).fill('A hero text typed beside a bad email.')
    // The browser takes 'owner@quillwork' (no dot in the domain); the store does not.
    await page.getByLabel('Contact email').fill('owner@quillwork')
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      page.waitForEvent('load'),
      page.getByRole('button', { name: 'Save settings' }).click(),
    ])
    expect(answer.status()).toBe(400)
    await page.getByRole('alert').getByText('The settings were not saved').waitFor()
    const email = page.getByLabel('Contact email')
    expect(await email.getAttribute('aria-invalid')).toBe('true')
    const message = 'Please enter an email address like owner@example.com, or leave it empty.'
    const describedBy = (await email.getAttribute('aria-describedby')) ?? ''
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe(message)
    expect(await email.inputValue()).toBe('owner@quillwork')
    expect(await page.getByLabel('Legal name').inputValue()).toBe('Typed But Not Saved Ltd')
    expect(await page.getByLabel('Legal name').getAttribute('aria-invalid')).toBeNull()
    expect(await page.getByLabel(/^Paragraph under/).inputValue()).toBe(
      'A hero text typed beside a bad email.',
    )
    await expectHealthyPage(page)

    await visit(page, url('/admin/settings'))
    expect(await page.getByLabel('Legal name').inputValue()).not.toBe('Typed But Not Saved Ltd')
  })
})

const viewports = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const
const screens = themes.flatMap((theme) =>
  viewports.map((viewport) => ({ theme, viewport, phone: viewport.width < 768 })),
)
/**
 * On a phone, the pages whose layout changes most (tables that scroll, the long settings form, a site page):
 * every page at both widths cost three minutes of CI for what the laptop width already proves of the markup.
 */
const onPhoneToo = new Set(['/admin', '/admin/settings', '/admin/customers/:userId', '/about'])

/** The back office's pages and their level-1 headings; :userId is the reader's. */
const adminPages = [
  ['/admin', 'Back office'],
  ['/admin/settings', 'Store settings'],
  ['/admin/pages', 'Site pages'],
  ['/admin/pages/about', 'Edit ‘About’'],
  ['/admin/customers', 'Customers'],
  ['/admin/customers/:userId', ':email'],
  ['/admin/topics', 'Topics'],
] as const

describe.each(screens)(
  'axe finds no violation: $theme theme at $viewport.width×$viewport.height',
  ({ theme, viewport, phone }) => {
    const shown = <T extends readonly [string, ...unknown[]] | string>(pages: readonly T[]) =>
      pages.filter((page) => !phone || onPhoneToo.has(typeof page === 'string' ? page : page[0]))
    // One tab as the owner and one as a signed-out reader (the site pages as their readers see them).
    const tabs = {} as { owner: Page; visitor: Page }
    beforeAll(async () => {
      const themeCookie = { name: 'cb_theme', value: theme, url: own.store.url }
      tabs.owner = await ownerPage({ viewport, colorScheme: theme })
      tabs.visitor = await newPage(own.browser, { viewport, colorScheme: theme })
      for (const tab of [tabs.owner, tabs.visitor]) await tab.context().addCookies([themeCookie])
    })
    afterAll(async () => {
      await tabs.owner?.context().close()
      await tabs.visitor?.context().close()
    })

    test.each(shown(adminPages))('%s', async (pattern, title) => {
      const path = pattern.replace(':userId', reader.userId)
      await visit(tabs.owner, url(path))
      await tabs.owner
        .getByRole('heading', { level: 1, name: title.replace(':email', reader.email) })
        .waitFor()
      expect(await tabs.owner.locator('html').getAttribute('data-theme'), path).toBe(theme)
      await expectHealthyPage(tabs.owner)
    })

    test.each(shown(sitePages))('%s', async (path) => {
      await visit(tabs.visitor, url(path))
      await tabs.visitor.getByRole('main').getByRole('heading', { level: 1 }).waitFor()
      expect(await tabs.visitor.locator('html').getAttribute('data-theme'), path).toBe(theme)
      await expectHealthyPage(tabs.visitor)
    })
  },
)
