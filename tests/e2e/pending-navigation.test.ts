import type { Browser, Page, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, visit } from './browser.ts'

/**
 * Issue 35: a navigation in flight shows itself. On a phone-like CPU (Chromium throttled 4×), a click that
 * React Router takes over marks the page busy — a progress bar, `aria-busy` on `<main>` and on the link that
 * was clicked — until the next page is on screen; the next route's code was fetched when the pointer came
 * over its link, before the click.
 */
const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

/** A tab whose CPU runs 4× slower, as Lighthouse's mobile runs and a mid-range phone do. */
async function slowPhone(): Promise<Page> {
  const page = await newPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true })
  const devtools = await page.context().newCDPSession(page)
  await devtools.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  return page
}

/** Holds React Router's data request for `path` until the returned function is called. */
async function holdDataRequest(page: Page, path: string): Promise<() => Promise<void>> {
  let held: Route | undefined
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  const arrived = new Promise<void>((resolve) => {
    void page.route(
      (url) => url.pathname === `${path}.data`,
      async (route) => {
        held = route
        resolve()
        await released
        await route.continue()
      },
    )
  })
  return async () => {
    await arrived
    release()
    expect(held).toBeDefined()
  }
}

const forgotLink = (page: Page) => page.getByRole('link', { name: 'Forgot password?' })
const main = (page: Page) => page.locator('main#main')

describe('a navigation in flight, on a 4× slower CPU', () => {
  test('the route’s code is fetched on hover; the page, the link and a progress bar say it is loading', async () => {
    const page = await slowPhone()
    await visit(page, `${baseURL}/login`)
    // React Router learns the routes behind the page's links just after it hydrates (lazy route discovery).
    await page.waitForFunction(() => Boolean(window.__reactRouterManifest?.routes['routes/forgot-password']))
    const preloaded = () =>
      page.evaluate(() =>
        [...document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')].some((link) =>
          /\/forgot-password-[^/]+\.js$/.test(link.href),
        ),
      )
    expect(await preloaded()).toBe(false)
    await forgotLink(page).hover()
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')].some((link) =>
        /\/forgot-password-[^/]+\.js$/.test(link.href),
      ),
    )

    const release = await holdDataRequest(page, '/forgot-password')
    await forgotLink(page).click()
    // While the next page's data is on its way, the login page says it is being replaced.
    await page.getByRole('progressbar', { name: 'Loading the page' }).waitFor()
    expect(await main(page).getAttribute('aria-busy')).toBe('true')
    expect(await forgotLink(page).getAttribute('aria-busy')).toBe('true')
    await expectHealthyPage(page)

    await release()
    await page.getByRole('heading', { level: 1, name: 'Forgot password' }).waitFor()
    expect(await main(page).getAttribute('aria-busy')).toBeNull()
    expect(await page.getByRole('progressbar').count()).toBe(0)
    await expectHealthyPage(page)
    await page.close()
  })

  test('a reader who waits for the page to stop being busy types into the next page, every time', async () => {
    const page = await slowPhone()
    for (let attempt = 1; attempt <= 4; attempt++) {
      await visit(page, `${baseURL}/login`)
      await forgotLink(page).click()
      // No waiting for the next page's heading: only for the busy signal to appear and to go.
      await page.waitForFunction(
        () =>
          document.querySelector('main#main')?.getAttribute('aria-busy') === 'true' ||
          !location.pathname.startsWith('/login'),
      )
      await page.locator('main#main:not([aria-busy])').waitFor()
      const email = `attempt-${attempt}@example.com`
      await page.getByLabel('Email').fill(email)
      expect(new URL(page.url()).pathname, `attempt ${attempt}`).toBe('/forgot-password')
      expect(
        await page.getByRole('heading', { level: 1, name: 'Forgot password' }).isVisible(),
        `attempt ${attempt}`,
      ).toBe(true)
      expect(await page.getByLabel('Email').inputValue()).toBe(email)
    }
    await page.close()
  })
})
