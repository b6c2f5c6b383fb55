import { AxeBuilder } from '@axe-core/playwright'
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core'
import { expect } from 'vitest'
import { chromiumFlags, chromiumPath } from '#harness/chromium.ts'

/** Debian's Chromium; browser downloads do not work here (docs/decisions/001). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: chromiumFlags,
  })
}

export const themes = ['light', 'dark'] as const

let visitorNumber = 0

/** A browser tab in a fresh context (no cookies), seen by the store as coming from an address of its own. */
export async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  visitorNumber++
  const address = `10.${process.pid % 250}.${Math.floor(visitorNumber / 250) % 250}.${(visitorNumber % 250) + 1}`
  const context = await browser.newContext({
    ...options,
    extraHTTPHeaders: { 'X-Forwarded-For': address, ...options.extraHTTPHeaders },
  })
  const page = await context.newPage()
  // Script errors and console errors (CSP violations among them) are collected and checked by expectHealthyPage.
  const errors: string[] = []
  pageErrors.set(page, errors)
  scriptsEnabled.set(page, options.javaScriptEnabled !== false)
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`))
  // Chrome reports CSP violations that scripts catch (e.g. a library probing for eval) only as DevTools issues.
  const devtools = await context.newCDPSession(page)
  await devtools.send('Audits.enable')
  devtools.on('Audits.issueAdded', ({ issue }) => {
    if (issue.code === 'ContentSecurityPolicyIssue')
      errors.push(`${page.url()}: CSP ${JSON.stringify(issue.details)}`)
  })
  // With JavaScript off a refused form post is a document navigation answered 4xx, which Chrome logs too.
  const refusedPosts = new Set<string>()
  page.on('response', (response) => {
    const request = response.request()
    if (request.method() === 'POST' && request.isNavigationRequest() && response.status() >= 400)
      refusedPosts.add(response.url())
  })
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    // Expected: a 404 page logs its own failed document load, and Chrome logs every 4xx answer to React
    // Router's data requests ('/login.data') and to form posts, which is how a form is told its input was refused.
    const url = message.location().url
    const expected =
      message.text().includes('404') ||
      (/status of 4\d\d/.test(message.text()) && (/\.data(\?|$)/.test(url) || refusedPosts.has(url)))
    if (!expected) errors.push(`${page.url()}: ${message.text()}`)
  })
  return page
}

const pageErrors = new WeakMap<Page, string[]>()
const scriptsEnabled = new WeakMap<Page, boolean>()

/** Opens `url` and, when JavaScript runs, waits until React has hydrated the page. */
export async function visit(page: Page, url: string) {
  const response = await page.goto(url)
  if (scriptsEnabled.get(page) !== false) {
    await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true', undefined, {
      timeout: 10_000,
    })
  }
  return response
}

/**
 * The page has no script or console error so far, and axe-core (WCAG 2.x A and AA rules plus best
 * practices) finds no violation. `exclude`: selectors of parts that are not the store's own markup (the
 * pages of a book in the online reader).
 */
export async function expectHealthyPage(page: Page, { exclude = [] }: { exclude?: string[] } = {}) {
  expect(pageErrors.get(page) ?? [], 'errors in the page').toEqual([])
  // axe runs as a script in the page: with JavaScript off it cannot (the same pages are scanned with it on).
  if (scriptsEnabled.get(page) === false) return
  const builder = new AxeBuilder({ page }).withTags([
    'wcag2a',
    'wcag2aa',
    'wcag21a',
    'wcag21aa',
    'wcag22aa',
    'best-practice',
  ])
  for (const selector of exclude) builder.exclude(selector)
  const results = await builder.analyze()
  const summary = results.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
  )
  expect(summary, `axe violations on ${page.url()}`).toEqual([])
}
