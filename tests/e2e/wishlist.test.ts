import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { bookA, bookB, bookCard, newShopper, register, submit, uniqueEmail } from './shopper.ts'

/**
 * Issue 30's wishlist in Chromium: a signed-out visitor hearts books on a card and on a book page, registers,
 * and finds them on /account/wishlist; shares it and opens the link in another browser; stops sharing; and the
 * heart works with JavaScript off.
 */
const baseURL = inject('baseURL')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

const heart = (scope: Page | ReturnType<Page['getByRole']>, title: string, wished: boolean) =>
  scope.getByRole('button', {
    name: wished ? `Remove ${title} from your wishlist` : `Add ${title} to your wishlist`,
    exact: true,
  })

async function checkThemes(page: Page) {
  for (const colorScheme of themes) {
    await page.emulateMedia({ colorScheme })
    await expectHealthyPage(page)
  }
}

test('hearts signed out join the new account; the shared link shows them to another browser until stopped', async () => {
  const page = await newPage(browser)
  await visit(page, `${baseURL}/AllBooks`)
  const card = bookCard(page, bookA)
  await card.scrollIntoViewIfNeeded()
  await submit(page, () => heart(card, bookA, false).click())
  await expect.poll(() => heart(card, bookA, true).getAttribute('aria-pressed')).toBe('true')
  // The heart keeps its focus ring visible to a keyboard user.
  await heart(card, bookA, true).focus()
  await page.keyboard.press('Shift+Tab')
  await page.keyboard.press('Tab')
  expect(
    await heart(card, bookA, true).evaluate((element) => getComputedStyle(element).outlineStyle),
  ).not.toBe('none')
  await checkThemes(page)

  // The book page has its heart too.
  await visit(page, `${baseURL}/AllBooks`)
  await bookCard(page, bookB).getByRole('link', { name: bookB, exact: true }).click()
  await page.getByRole('heading', { level: 1, name: bookB }).waitFor()
  await submit(page, () => heart(page.getByRole('main'), bookB, false).click())
  await heart(page.getByRole('main'), bookB, true).waitFor()
  // A reload keeps them: the wishlist is the visitor's cookie's.
  await page.reload()
  await heart(page.getByRole('main'), bookB, true).waitFor()

  // Registering joins the visitor's wishlist to the new account.
  const email = uniqueEmail('wisher')
  await visit(page, `${baseURL}/Register?redirectTo=%2Faccount%2Fwishlist`)
  await register(page, email)
  await page.waitForURL(`${baseURL}/account/wishlist`)
  const main = page.getByRole('main')
  await main.getByRole('heading', { level: 1, name: 'My Wishlist (2)' }).waitFor()
  for (const title of [bookA, bookB]) await main.getByRole('link', { name: title, exact: true }).waitFor()
  await checkThemes(page)

  // Share it; open the link in another browser context.
  await submit(page, () => main.getByRole('button', { name: 'Share my wishlist' }).click())
  const link = main.getByRole('link', { name: /\/wishlists\/[A-Za-z0-9_-]{22}$/ })
  const shareUrl = (await link.textContent())!
  await checkThemes(page)

  const friend = await newPage(browser)
  const shared = await visit(friend, shareUrl)
  expect(shared?.status()).toBe(200)
  await friend.getByRole('heading', { level: 1, name: "A reader's wishlist" }).waitFor()
  for (const title of [bookA, bookB])
    await friend.getByRole('main').getByRole('link', { name: title, exact: true }).waitFor()
  expect(await friend.content()).not.toContain(email)
  expect(await friend.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex')
  await checkThemes(friend)

  // Stopped: the link is dead; sharing again makes another.
  await submit(page, () => main.getByRole('button', { name: 'Stop sharing' }).click())
  await main.getByRole('button', { name: 'Share my wishlist' }).waitFor()
  expect((await friend.goto(shareUrl))?.status()).toBe(404)

  // Removing from the list takes the book off (and its heart empties).
  await main.getByRole('button', { name: `Remove ${bookA} from your wishlist` }).click()
  await main.getByRole('heading', { level: 1, name: 'My Wishlist (1)' }).waitFor()
  await friend.context().close()
  await page.context().close()
})

test('the heart works with JavaScript off: a plain form that comes back to the page', async () => {
  const page = await newShopper(browser, false)
  await visit(page, `${baseURL}/AllBooks`)
  await submit(page, () => heart(bookCard(page, bookA), bookA, false).click())
  expect(page.url()).toContain(`/AllBooks#book-`)
  const pressed = heart(bookCard(page, bookA), bookA, true)
  expect(await pressed.getAttribute('aria-pressed')).toBe('true')
  await visit(page, `${baseURL}/account/wishlist`)
  await page.getByRole('heading', { level: 1, name: 'My Wishlist (1)' }).waitFor()
  await submit(page, () => page.getByRole('button', { name: `Remove ${bookA} from your wishlist` }).click())
  await page.getByRole('heading', { level: 1, name: 'My Wishlist (0)' }).waitFor()
  await expectHealthyPage(page)
  await page.context().close()
})
