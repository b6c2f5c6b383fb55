import { expect, test } from 'vitest'
import { expectHealthyPage, newPage, themes, visit } from './browser.ts'
import { mailInOutbox } from './outbox.ts'
import { ownStoreWithAdmin } from './own-store.ts'
import { bookA, fillCard, payButton, register, submit, uniqueEmail } from './shopper.ts'

/**
 * Issue 30's gifts in Chromium, on a store of their own: a reader gives a book from its page to a friend's
 * email with a message and pays for it; the friend's mail arrives with a claim link; in another browser the
 * friend makes an account on the way and adds the book to their library; the buyer's My gifts says claimed.
 */
const own = ownStoreWithAdmin()

test('a book given from its page is claimed in another browser, and its buyer sees it claimed', async () => {
  const buyer = await newPage(own.browser)
  await visit(buyer, `${own.store.url}/Register`)
  await register(buyer, uniqueEmail('gift-buyer'))
  await buyer.waitForURL(`${own.store.url}/`)
  await visit(buyer, `${own.store.url}/books/django-framework`)
  await buyer.getByRole('link', { name: 'Give as a gift' }).click()
  await buyer.getByRole('heading', { level: 1, name: `Give ${bookA} as a gift` }).waitFor()
  // A bad address is refused next to its field, the message kept.
  const friend = uniqueEmail('gift-friend')
  // The browser takes 'grace@localhost' as an address; the store wants a domain with a dot.
  await buyer.getByLabel('Their email').fill('grace@localhost')
  await buyer.getByLabel('Your message (optional)').fill('For your next side project — enjoy!')
  await submit(buyer, () => buyer.getByRole('button', { name: 'Continue to payment' }).click())
  await buyer.getByText(/Enter the email address of the person/).waitFor()
  expect(await buyer.getByLabel('Your message (optional)').inputValue()).toBe(
    'For your next side project — enjoy!',
  )
  for (const colorScheme of themes) {
    await buyer.emulateMedia({ colorScheme })
    await expectHealthyPage(buyer)
  }
  await buyer.getByLabel('Their email').fill(friend)
  await buyer.getByLabel('Their name (optional)').fill('Grace')
  await submit(buyer, () => buyer.getByRole('button', { name: 'Continue to payment' }).click())
  await buyer.waitForURL(/\/checkout\?gift=[0-9a-f-]{36}$/)
  await buyer.getByText(`A gift for Grace (${friend})`).waitFor()
  await expectHealthyPage(buyer)
  await fillCard(buyer, '4242 4242 4242 4242')
  await submit(buyer, () => payButton(buyer).click())
  await buyer.waitForURL(/\/orders\/[0-9a-f-]{36}$/)
  await buyer.getByText('Thank you! Your payment went through').waitFor()

  const mail = await mailInOutbox(
    own.store.dataDir,
    (candidate) =>
      candidate.subject?.includes('sent you an eBook gift') === true &&
      candidate.text?.includes(friend) !== true &&
      (candidate.to as { text?: string } | undefined)?.text?.includes(friend) === true,
    20_000,
  )
  expect(mail.text).toContain('For your next side project — enjoy!')
  const claimUrl = /https?:\/\/\S+\/gifts\/claim\/[A-Za-z0-9_-]+/.exec(mail.text ?? '')![0]

  // The friend, in another browser: no account yet.
  const recipient = await newPage(own.browser)
  await visit(recipient, claimUrl)
  await recipient.getByRole('heading', { level: 1, name: /gave you Django Framework/ }).waitFor()
  await recipient.getByText('For your next side project — enjoy!').waitFor()
  for (const colorScheme of themes) {
    await recipient.emulateMedia({ colorScheme })
    await expectHealthyPage(recipient)
  }
  await recipient.getByRole('link', { name: 'Create an account' }).click()
  await register(recipient, friend)
  await recipient.waitForURL(claimUrl)
  await submit(recipient, () => recipient.getByRole('button', { name: 'Add to my library' }).click())
  // The mail's link is on the store's public address (localhost here), where the recipient stays.
  await recipient.waitForURL(/\/account\/library\?gift=claimed$/)
  await recipient.getByRole('heading', { name: bookA }).first().waitFor()
  await recipient.context().close()

  await visit(buyer, `${own.store.url}/account`)
  await buyer.getByRole('link', { name: 'My gifts' }).click()
  await buyer.getByRole('heading', { level: 1, name: 'My gifts' }).waitFor()
  const row = buyer.getByRole('listitem').filter({ hasText: friend })
  await row.getByText('Claimed').waitFor()
  for (const colorScheme of themes) {
    await buyer.emulateMedia({ colorScheme })
    await expectHealthyPage(buyer)
  }
  await buyer.context().close()
})
