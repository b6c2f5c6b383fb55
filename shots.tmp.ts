import { chromium, type Page } from 'playwright-core'
import { chromiumFlags, chromiumPath } from '#harness/chromium.ts'
import { startStoreWithAdmin } from '#harness/store-process.ts'
import { coupons } from '#app/server/db/schema/index.server.ts'

const { store, admin } = await startStoreWithAdmin({}, async (db) => {
  await db.insert(coupons).values([
    { code: 'LAUNCH20', kind: 'percent', value: 20, perAccountLimit: 1 },
    { code: 'FREEBOOK', kind: 'percent', value: 100, maxRedemptions: 50 },
  ])
})
const base = store.url
const out = '/tmp/shots'
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags })
const snap = async (page: Page, name: string, url?: string) => {
  for (const theme of ['light', 'dark'] as const)
    for (const [w, h] of [[1280, 800], [390, 844]] as const) {
      await page.setViewportSize({ width: w, height: h })
      await page.emulateMedia({ colorScheme: theme })
      if (url) await page.goto(`${base}${url}`)
      await page.screenshot({ path: `${out}/${name}-${theme}-${w}.png`, fullPage: true })
    }
}
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
  await page.goto(`${base}/c/launch20`)
  await page.goto(`${base}/AllBooks`)
  for (const title of ['Django Framework', 'The Future of Design Systems']) {
    await page.getByRole('article').filter({ hasText: title }).getByRole('button', { name: 'Add To Cart' }).click()
    await page.waitForTimeout(600)
  }
  await snap(page, 'cart-coupon', '/cart')
  await page.goto(`${base}/cart`)
  await page.getByLabel('Another coupon code').fill('NOPE')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.waitForTimeout(800)
  await page.screenshot({ path: `${out}/cart-coupon-error.png`, fullPage: true })
  await page.goto(`${base}/checkout`)
  await page.getByLabel('Email', { exact: true }).fill(`shot-${Date.now()}@example.com`)
  await page.getByLabel('Password', { exact: true }).fill('correct horse battery staple')
  await page.getByRole('button', { name: 'Create account and continue' }).click()
  await page.waitForTimeout(1500)
  await snap(page, 'checkout-coupon', '/checkout')
  await page.getByLabel('Name on card').fill('Ada Reader')
  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await page.getByLabel('Expiry (MM/YY)').fill('12/34')
  await page.getByLabel('CVC').fill('123')
  await page.getByRole('button', { name: /^Pay / }).click()
  await page.waitForURL(/\/orders\//)
  const orderPath = new URL(page.url()).pathname
  await snap(page, 'order-coupon', orderPath)
  // A free order.
  await page.goto(`${base}/AllBooks`)
  await page.getByRole('article').first().getByRole('button', { name: 'Add To Cart' }).click()
  await page.waitForTimeout(600)
  await page.goto(`${base}/cart`)
  await page.getByLabel(/oupon code/).fill('freebook')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.waitForTimeout(800)
  await snap(page, 'checkout-free', '/checkout')
  const adminPage = await (await browser.newContext()).newPage()
  await adminPage.goto(`${base}/login`)
  await adminPage.getByLabel('Email', { exact: true }).fill(admin.email)
  await adminPage.getByLabel('Password', { exact: true }).fill(admin.password)
  await adminPage.getByRole('button', { name: 'Login', exact: true }).click()
  await adminPage.waitForURL(`${base}/`)
  await snap(adminPage, 'admin-coupons', '/admin/coupons')
} finally {
  await browser.close()
  await store.stop()
}
