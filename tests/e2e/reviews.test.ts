import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { bookCard, logIn, newShopper, registerAndBuy, submit, uniqueEmail } from './shopper.ts'

const baseURL = inject('baseURL')
const admin = inject('admin')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

/** The rating a book's card on All eBooks shows, as its stars' accessible name. */
async function cardRating(page: Page, title: string) {
  await visit(page, `${baseURL}/AllBooks`)
  return bookCard(page, title)
    .getByRole('img', { name: /^(Rated |Editors' rating)/ })
    .getAttribute('aria-label')
}

/** An admin hides (or restores) the review titled `title` on the moderation page. */
async function moderate(page: Page, title: string, button: 'Hide review' | 'Restore review') {
  await visit(page, `${baseURL}/admin/reviews?filter=all`)
  const review = page.getByRole('article').filter({ hasText: title })
  await submit(page, () => review.getByRole('button', { name: button }).click())
  await review
    .getByRole('button', { name: button === 'Hide review' ? 'Restore review' : 'Hide review' })
    .waitFor()
}

// Books no other end-to-end test reads the rating of (the storefront test checks the seed's ratings).
const keyboardBook = {
  title: 'Frontend Fastlane Plan With Projects',
  slug: 'frontend-fastlane-plan-with-projects',
}
const themedBook = { title: 'JavaScript Basics To Advance', slug: 'javascript-basics-to-advance' }

describe('reviews from verified buyers', () => {
  test('a buyer reviews by keyboard with JavaScript off; the card’s average changes; an admin hides it and it goes back', async () => {
    const page = await newShopper(browser, false)
    await registerAndBuy(page, uniqueEmail('reviewer'), [keyboardBook.title])
    expect(await cardRating(page, keyboardBook.title)).toBe("Editors' rating: 4 out of 5")

    await visit(page, `${baseURL}/books/${keyboardBook.slug}`)
    // The stars are a native radio group: Space picks the focused star, the arrow keys move along.
    await page.getByRole('radio', { name: '1 star', exact: true }).focus()
    await page.keyboard.press('Space')
    await page.keyboard.press('ArrowRight')
    expect(await page.getByRole('radio', { name: '2 stars' }).isChecked()).toBe(true)
    await page.keyboard.press('Tab')
    await page.keyboard.type('Too fast for me')
    await page.keyboard.press('Tab')
    await page.keyboard.type('<script>alert(1)</script>')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Enter')
    await page.keyboard.type('Second paragraph.')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Post review')
    const answer = await submit(page, () => page.keyboard.press('Enter'))
    expect(answer.status()).toBe(303)
    await page.waitForURL(new RegExp(`/books/${keyboardBook.slug}#reviews$`))

    const review = page.getByRole('article', { name: 'Too fast for me' })
    expect(await review.getByText('Verified purchase').count()).toBe(1)
    // Typed markup is shown as the characters typed, never run or rendered.
    expect(await review.getByText('<script>alert(1)</script>', { exact: true }).count()).toBe(1)
    expect(await review.getByText('Second paragraph.', { exact: true }).count()).toBe(1)
    expect(await page.getByRole('list', { name: 'Ratings by number of stars' }).innerText()).toContain(
      '2 stars',
    )
    expect(await page.getByRole('button', { name: 'Update review' }).count()).toBe(1)
    await expectHealthyPage(page)

    // Signed in, the reader's pages are not cached: the card shows the readers' average at once.
    expect(await cardRating(page, keyboardBook.title)).toBe('Rated 2 out of 5 from 1 rating')

    const office = await newPage(browser)
    await logIn(office, admin)
    await moderate(office, 'Too fast for me', 'Hide review')
    expect(await cardRating(page, keyboardBook.title)).toBe("Editors' rating: 4 out of 5")
    await visit(page, `${baseURL}/books/${keyboardBook.slug}`)
    expect(await page.getByText('A moderator has hidden your review from the store.').count()).toBe(1)
    await moderate(office, 'Too fast for me', 'Restore review')
    expect(await cardRating(page, keyboardBook.title)).toBe('Rated 2 out of 5 from 1 rating')
    await office.context().close()
    await page.context().close()
  })

  test.each(themes)(
    'the reviews section and the moderation page are accessible (%s)',
    async (colorScheme) => {
      const page = await newPage(browser, { colorScheme })
      await registerAndBuy(page, uniqueEmail(`reviewer-${colorScheme}`), [themedBook.title])
      await visit(page, `${baseURL}/books/${themedBook.slug}`)
      await page.getByRole('radio', { name: '5 stars' }).check()
      await page.getByLabel('Title (optional)').fill(`Loved it (${colorScheme})`)
      await page.getByLabel('Your review (optional)').fill('Clear, with good exercises.')
      await page.getByRole('button', { name: 'Post review' }).click()
      await page.getByRole('article', { name: `Loved it (${colorScheme})` }).waitFor()
      await expectHealthyPage(page)
      // And the page with the form in error.
      await page.getByLabel('Title (optional)').evaluate((input) => input.removeAttribute('maxlength'))
      await page.getByLabel('Title (optional)').fill('x'.repeat(121))
      await page.getByRole('button', { name: 'Update review' }).click()
      await page.getByText('A title has at most 120 characters.').waitFor()
      await expectHealthyPage(page)

      const office = await newPage(browser, { colorScheme })
      await logIn(office, admin)
      await visit(office, `${baseURL}/admin/reviews?filter=all`)
      await office.getByRole('heading', { level: 1, name: 'Reviews' }).waitFor()
      await expectHealthyPage(office)
      await office.context().close()
      await page.context().close()
    },
  )
})
