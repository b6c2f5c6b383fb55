import { expect, test } from 'vitest'
import { testPassword } from '#harness/factories/buyers.ts'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { bookA, bookB, fillCard, logIn, payButton, shopperPassword, submit, uniqueEmail } from './shopper.ts'

/**
 * Issue 30's bundles in Chromium, on a store of their own: the owner makes a bundle of two books in the back
 * office; a visitor opens its page (its cover collage and JSON-LD), puts it in the cart, makes an account on the
 * checkout page and pays the bundle's price; the order shows the bundle, and the library both books.
 */
const own = ownStoreWithAdmin()

test('a bundle made in the back office is bought whole from its page, and grants every book in it', async () => {
  const admin = await newPage(own.browser)
  await logIn(admin, { email: own.admin.email, password: testPassword }, { storeUrl: own.store.url })
  await visit(admin, `${own.store.url}/admin`)
  await admin.getByRole('navigation', { name: 'Back office' }).getByRole('link', { name: 'Bundles' }).click()
  await admin.getByRole('heading', { level: 1, name: 'Bundles' }).waitFor()
  await admin.getByLabel('Title').fill('Web starter pack')
  await admin.getByLabel('Address').fill('web-starter-pack')
  await admin.getByLabel('Price (dollars)').fill('99999')
  await admin.getByRole('textbox', { name: 'Books' }).fill('django-framework\nthe-future-of-design-systems')
  // A price that is no saving is refused next to its field, the rest kept.
  await submit(admin, () => admin.getByRole('button', { name: 'Make the bundle' }).click())
  await admin.getByText(/a bundle must cost less/).waitFor()
  expect(await admin.getByLabel('Title').inputValue()).toBe('Web starter pack')
  await admin.getByLabel('Price (dollars)').fill('5.00')
  await submit(admin, () => admin.getByRole('button', { name: 'Make the bundle' }).click())
  await admin.getByRole('status').filter({ hasText: 'The bundle was saved.' }).waitFor()
  await admin
    .getByRole('row')
    .filter({ hasText: 'Web starter pack' })
    .getByText(/from 0 paid orders/)
    .waitFor()
  for (const colorScheme of themes) {
    await admin.emulateMedia({ colorScheme })
    await expectHealthyPage(admin)
  }

  const page = await newPage(own.browser)
  const response = await visit(page, `${own.store.url}/bundles/web-starter-pack`)
  expect(response?.status()).toBe(200)
  await page.getByRole('heading', { level: 1, name: 'Web starter pack' }).waitFor()
  const list = page.getByRole('region', { name: 'In this bundle' })
  for (const title of [bookA, bookB]) await list.getByRole('link', { name: title }).waitFor()
  // The collage is a real picture.
  const collage = page.getByRole('img', { name: /^The covers of / })
  await expect.poll(() => collage.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(1200)
  const jsonLd = await page
    .locator('script[type="application/ld+json"]')
    .evaluateAll((scripts) => scripts.map((script) => JSON.parse(script.textContent ?? '{}')))
  const collection = jsonLd.find((document) => document['@type'] === 'ProductCollection')
  expect(collection).toMatchObject({
    name: 'Web starter pack',
    offers: { price: '5.00', priceCurrency: 'USD' },
  })
  expect(collection.includesObject).toHaveLength(2)
  for (const colorScheme of themes) {
    await page.emulateMedia({ colorScheme })
    await expectHealthyPage(page)
  }

  await submit(page, () => page.getByRole('button', { name: 'Add Bundle To Cart' }).click())
  await page.waitForURL(/\/cart#bundle-[0-9a-f-]{36}$/)
  const line = page.getByRole('listitem').filter({ hasText: 'Web starter pack' })
  await line.getByText(`Bundle: ${bookA}, ${bookB}`).waitFor()
  await line.getByText('$5', { exact: true }).waitFor()
  await page.getByRole('link', { name: 'Cart, 2 books' }).waitFor()
  for (const colorScheme of themes) {
    await page.emulateMedia({ colorScheme })
    await expectHealthyPage(page)
  }

  await page.getByRole('main').getByRole('link', { name: 'Checkout' }).click()
  await page.waitForURL(`${own.store.url}/checkout`)
  const email = uniqueEmail('bundle-buyer')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(shopperPassword)
  await submit(page, () => page.getByRole('button', { name: 'Create account and continue' }).click())
  await page.getByText(`The receipt goes to ${email}.`).waitFor()
  expect(await payButton(page).textContent()).toMatch(/\$5(\.00)?\b/)
  await fillCard(page, '4242 4242 4242 4242')
  await submit(page, () => payButton(page).click())
  await page.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
  await page.getByText('Thank you! Your payment went through').waitFor()
  await page.getByRole('link', { name: 'Web starter pack' }).waitFor()
  await expectHealthyPage(page)

  await visit(page, `${own.store.url}/account/library`)
  for (const title of [bookA, bookB]) await page.getByRole('heading', { name: title }).first().waitFor()
  await page.context().close()

  // The back office counts the bundle's revenue.
  await visit(admin, `${own.store.url}/admin/bundles`)
  await admin
    .getByRole('row')
    .filter({ hasText: 'Web starter pack' })
    .getByText(/^\$5(\.00)? from 1 paid orders$/)
    .waitFor()
  await admin.context().close()
})
