import { expect, test } from 'vitest'
import { testPassword } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { mailInOutbox } from './outbox.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { bookA, fillCard, logIn, payButton, shopperPassword, submit, uniqueEmail } from './shopper.ts'

/**
 * Issue 30's coupons in Chromium, on a store of their own: the owner makes a coupon in the back office and
 * shares its link; a visitor follows it, sees the discount in the cart, makes an account on the checkout page
 * and pays; the order page and the receipt show the list price, the discount and what was paid.
 */
const own = ownStoreWithAdmin()

test('a coupon made in the back office, followed by its link, discounts the cart, the order and the receipt', async () => {
  const admin = await newPage(own.browser)
  await logIn(admin, { email: own.admin.email, password: testPassword }, { storeUrl: own.store.url })
  await visit(admin, `${own.store.url}/admin`)
  await admin.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Coupons' }).click()
  await admin.getByRole('heading', { level: 1, name: 'Coupons' }).waitFor()
  // A bad value is refused next to its field, the rest kept.
  await admin.getByLabel('Code', { exact: true }).fill('launch20')
  await admin.getByLabel('Percentage or amount').fill('120')
  await admin.getByLabel('Orders per account').fill('1')
  await submit(admin, () => admin.getByRole('button', { name: 'Make coupon' }).click())
  await admin.getByText('Enter a percentage from 1 to 100.').waitFor()
  expect(await admin.getByLabel('Code', { exact: true }).inputValue()).toBe('launch20')
  await admin.getByLabel('Percentage or amount').fill('20')
  await submit(admin, () => admin.getByRole('button', { name: 'Make coupon' }).click())
  await admin.getByRole('status').filter({ hasText: 'The coupon was made' }).waitFor()
  const row = admin.getByRole('row').filter({ hasText: 'LAUNCH20' })
  const link = (await row.getByText(/\/c\/LAUNCH20$/).textContent())!
  expect(link).toMatch(/^http:\/\/[^/]+\/c\/LAUNCH20$/)
  for (const colorScheme of themes) {
    await admin.emulateMedia({ colorScheme })
    await expectHealthyPage(admin)
  }
  await admin.context().close()

  const page = await newPage(own.browser)
  await visit(page, `${own.store.url}/c/launch20`)
  await page.waitForURL(`${own.store.url}/cart#coupon`)
  await page.getByText('is on your cart').waitFor()
  await visit(page, `${own.store.url}/AllBooks`)
  const card = page.getByRole('article').filter({ hasText: bookA })
  await submit(page, () => card.getByRole('button', { name: 'Add To Cart' }).click())
  await card.getByRole('button', { name: 'Remove Item' }).waitFor()
  await visit(page, `${own.store.url}/cart`)
  const totals = page.getByRole('main').locator('dl')
  await expect
    .poll(() => totals.textContent())
    .toMatch(/Subtotal\$[\d.]+Coupon LAUNCH20−\$[\d.]+Total\$[\d.]+/)
  await page.getByText('Coupon LAUNCH20 applied.').waitFor()
  for (const colorScheme of themes) {
    await page.emulateMedia({ colorScheme })
    await expectHealthyPage(page)
  }

  await page.getByRole('main').getByRole('link', { name: 'Checkout' }).click()
  await page.waitForURL(`${own.store.url}/checkout`)
  const email = uniqueEmail('coupon-buyer')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
  await submit(page, () => page.getByRole('button', { name: 'Create account and continue' }).click())
  await page.getByText(`The receipt goes to ${email}.`).waitFor()
  // The coupon came along with the cart into the new account.
  await page.getByText(/Coupon LAUNCH20−\$/).waitFor()
  const pay = (await payButton(page).textContent())!
  await fillCard(page, '4242 4242 4242 4242')
  await submit(page, () => payButton(page).click())
  await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
  await page.getByText('Thank you! Your payment went through').waitFor()
  const summary = (await page.getByRole('main').textContent())!
  expect(summary).toContain('Coupon LAUNCH20')
  expect(summary).toMatch(/list price \$[\d.]+/)
  expect(pay).toContain((summary.match(/Total(\$[\d.]+)/) ?? [])[1] ?? 'no total')
  await page.getByText('List price', { exact: false }).first().waitFor({ state: 'attached' })
  await expectHealthyPage(page)

  const receipt = await mailInOutbox(
    own.store.dataDir,
    (mail) => mail.subject?.includes('receipt') === true && mail.text?.includes('LAUNCH20') === true,
    20_000,
  )
  expect(receipt.text).toMatch(/Subtotal: \$[\d.]+\nCoupon LAUNCH20: −\$[\d.]+\nTotal: \$[\d.]+/)
  await page.context().close()
})
