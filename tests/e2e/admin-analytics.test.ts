import type { Page } from 'playwright-core'
import { describe, expect, test } from 'vitest'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { addToCart, bookA, fillCard, logIn, payButton, register, submit, uniqueEmail } from './shopper.ts'

/**
 * The analytics page on a store of its own (its counts must be this test's alone), with an owner made an admin
 * by ADMIN_EMAILS at start-up.
 */
const own = ownStoreWithAdmin()
const desktopChrome =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/139.0.0.0 Safari/537.36'

function logInAsAdmin(page: Page) {
  return logIn(page, own.admin, { storeUrl: own.store.url })
}

describe('analytics', () => {
  test('a purchase made in the browser shows on /admin/analytics; charts drawn, tables beside them', async () => {
    // Headless Chromium says so in its user agent, which the store takes for a bot and does not count.
    const shopper = await newPage(own.browser, { userAgent: desktopChrome })
    await visit(shopper, `${own.store.url}/Register`)
    await register(shopper, uniqueEmail('analytics-buyer'))
    await shopper.waitForURL(`${own.store.url}/`)
    await visit(shopper, `${own.store.url}/AllBooks`)
    await addToCart(shopper, bookA)
    await visit(shopper, `${own.store.url}/cart`)
    await shopper.getByRole('main').getByRole('link', { name: 'Checkout' }).click()
    await fillCard(shopper, '4242 4242 4242 4242')
    await submit(shopper, () => payButton(shopper).click())
    await shopper.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
    // Events are written about every second, off the request.
    await new Promise((resolve) => setTimeout(resolve, 1_500))

    for (const colorScheme of themes) {
      const page = await newPage(own.browser, { colorScheme })
      await logInAsAdmin(page)
      await visit(page, `${own.store.url}/admin/analytics?range=7`)
      await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor()
      const summary = page.getByRole('table').first()
      expect(await summary.getByRole('row', { name: /^Orders/ }).textContent()).toMatch(/^Orders1/)
      // The shopper's visit: pages, the book added, the checkout begun (the admin's own visits are not counted).
      const rowOf = (name: string) => page.getByRole('row', { name: new RegExp(`^${name}`) }).first()
      expect(
        Number((await rowOf('Page views').getByRole('cell').first().textContent())?.replace(/,/g, '')),
      ).toBeGreaterThan(2)
      expect(await rowOf('Visitors').getByRole('cell').first().textContent()).toBe('1')
      expect(await rowOf('Added to cart').getByRole('cell').first().textContent()).toBe('1')
      expect(await rowOf('Began checkout').getByRole('cell').first().textContent()).toBe('1')
      const topByRevenue = page
        .getByRole('heading', { name: 'Top books by revenue' })
        .locator('xpath=..')
        .getByRole('table')
      expect(await topByRevenue.textContent()).toContain(bookA)
      // uPlot, loaded by the page itself, draws both charts.
      await page.locator('canvas').nth(1).waitFor()
      // With its stylesheet loaded, each chart's legend sits below its plot, not over it.
      await expectLegendsClearOfPlots(page)
      await expectHealthyPage(page)

      // A bad range is a message next to the field, not an error page.
      await visit(page, `${own.store.url}/admin/analytics?range=custom&from=2025-03-05&to=2025-03-01`)
      await page.getByText('The last day must not be before the first.').first().waitFor()
      await page.context().close()
    }
    await shopper.context().close()
  })
})

/** Every chart's legend (uPlot's `.u-legend`) and its plot (the canvas) do not overlap. */
async function expectLegendsClearOfPlots(page: Page) {
  const charts = page.locator('.uplot')
  expect(await charts.count()).toBeGreaterThan(0)
  for (const chart of await charts.all()) {
    const plot = await chart.locator('canvas').boundingBox()
    const legend = await chart.locator('.u-legend').boundingBox()
    if (!plot || !legend) throw new Error('a chart without its plot or its legend')
    const apart =
      legend.y >= plot.y + plot.height ||
      plot.y >= legend.y + legend.height ||
      legend.x >= plot.x + plot.width ||
      plot.x >= legend.x + legend.width
    expect(apart, `legend ${JSON.stringify(legend)} overlaps plot ${JSON.stringify(plot)}`).toBe(true)
  }
}
