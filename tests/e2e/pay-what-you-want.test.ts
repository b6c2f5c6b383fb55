import { beforeAll, expect, test } from 'vitest'
import { testPassword } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { bookA, fillCard, logIn, payButton, shopperPassword, submit, uniqueEmail } from './shopper.ts'

/**
 * Issue 30's pay what you want in Chromium, on a store of its own where one book is pay what you want from $0
 * (suggested: its price). With JavaScript off the amount field and the forms do it all; with it, the slider
 * moves the field.
 */
const own = ownStoreWithAdmin()
const slug = 'django-framework'

// The owner makes the book pay what you want in its form: a minimum above the price is refused, 0 taken.
beforeAll(async () => {
  const admin = await newPage(own.browser)
  await logIn(admin, { email: own.admin.email, password: testPassword }, { storeUrl: own.store.url })
  await visit(admin, `${own.store.url}/admin/books?q=django`)
  await admin.getByRole('link', { name: bookA }).click()
  await admin.getByRole('heading', { level: 1, name: new RegExp(`Edit “${bookA}”`) }).waitFor()
  const field = admin.getByLabel('Pay what you want, from')
  await field.fill('500')
  await submit(admin, () => admin.getByRole('button', { name: 'Save changes' }).click())
  await admin.getByText('The minimum cannot be above the price').waitFor()
  await admin.getByLabel('Pay what you want, from').fill('0')
  await submit(admin, () => admin.getByRole('button', { name: 'Save changes' }).click())
  await admin.getByText('Your changes were saved.').waitFor()
  await admin.context().close()
}, 60_000)

test('JavaScript off: a refused amount comes back with its reason; the chosen amount is what the order costs', async () => {
  const page = await newPage(own.browser, { javaScriptEnabled: false })
  await visit(page, `${own.store.url}/books/${slug}`)
  const form = page.locator('#pay-what-you-want')
  await form.getByRole('heading', { name: 'Pay what you want' }).waitFor()
  // No slider without JavaScript: the field alone.
  expect(await form.getByRole('slider').count()).toBe(0)
  await form.getByLabel('Your price (USD)').fill('lots')
  await submit(page, () => form.getByRole('button', { name: /^Add to cart at this price/ }).click())
  await page.waitForURL(/pwywError=format/)
  await form.getByText('Enter an amount in dollars, like 12 or 12.50 ($0 or more).').waitFor()
  expect(await form.getByLabel('Your price (USD)').inputValue()).toBe('lots')
  expect(await form.getByLabel('Your price (USD)').getAttribute('aria-invalid')).toBe('true')

  await form.getByLabel('Your price (USD)').fill('3.50')
  await submit(page, () => form.getByRole('button', { name: /^Add to cart at this price/ }).click())
  await page.waitForURL(`${own.store.url}/cart#book-*`)
  const line = page.getByRole('main').getByRole('listitem').filter({ hasText: bookA })
  expect(await line.textContent()).toContain('$3.50')

  await visit(page, `${own.store.url}/checkout`)
  const email = uniqueEmail('pwyw-buyer')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
  await submit(page, () => page.getByRole('button', { name: 'Create account and continue' }).click())
  await page.getByText(`The receipt goes to ${email}.`).waitFor()
  expect(await payButton(page).textContent()).toBe('Pay $3.50')
  await fillCard(page, '4242 4242 4242 4242')
  await submit(page, () => payButton(page).click())
  await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
  expect(await page.getByRole('main').textContent()).toMatch(/Total\$3\.50/)
  await page.context().close()
})

test.each(themes)(
  'JavaScript on: the slider moves the field; the form has no axe violations (%s)',
  async (colorScheme) => {
    const page = await newPage(own.browser, { colorScheme })
    await visit(page, `${own.store.url}/books/${slug}`)
    const form = page.locator('#pay-what-you-want')
    const slider = form.getByRole('slider', { name: 'Your price, on a slider' })
    await slider.waitFor()
    await slider.fill('7.5')
    expect(await form.getByLabel('Your price (USD)').inputValue()).toBe('7.50')
    await expectHealthyPage(page)
    await submit(page, () => form.getByRole('button', { name: /^Add to cart at this price/ }).click())
    await page.waitForURL(`${own.store.url}/cart#book-*`)
    await expect
      .poll(() => page.getByRole('main').getByRole('listitem').filter({ hasText: bookA }).textContent())
      .toContain('$7.50')
    await page.context().close()
  },
)
