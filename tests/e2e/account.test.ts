import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { freePort, spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '#tests/smtp.ts'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'

/**
 * The account lifecycle in Chromium, on a store of its own whose mail goes to a real SMTP server started
 * here: the test reads the mails the store sent and follows their links, as a reader would.
 */
let store: StoreProcess
let smtp: TestSmtpServer
let browser: Browser
const PASSWORD = 'correct horse battery staple'
const NEW_PASSWORD = 'a brand new reading lamp'

beforeAll(async () => {
  smtp = await startSmtpServer()
  const port = String(await freePort())
  store = await spawnStore({
    PORT: port,
    BETTER_AUTH_URL: `http://127.0.0.1:${port}`,
    SMTP_URL: smtp.url,
    TRUST_PROXY: 'loopback',
  })
  await waitUntilReady(store)
  browser = await launchBrowser()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await store?.stop()
  await smtp?.close()
})

const uniqueEmail = (name: string) =>
  `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`

/** Waits for the mail with this subject to reach the SMTP server. */
async function waitForMail(to: string, subject: string): Promise<ReceivedMail> {
  const deadline = Date.now() + 20_000
  let mail: ReceivedMail | undefined
  while (!mail && Date.now() < deadline) {
    mail = smtp.received.find(
      (received) => received.envelope.to.includes(to) && received.parsed.subject === subject,
    )
    if (!mail) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  expect(mail, `a mail '${subject}' to ${to}`).toBeDefined()
  return mail!
}

/** The store link in the mail with this subject. */
async function linkFromMail(to: string, subject: string): Promise<string> {
  const mail = await waitForMail(to, subject)
  const link = mail.parsed.text?.match(/http:\/\/127\.0\.0\.1:\d+\/[^\s]+/)?.[0]
  expect(link?.startsWith(store.url)).toBe(true)
  return link!
}

async function registerAs(page: Page, email: string) {
  await visit(page, `${store.url}/Register`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Register', exact: true }).click()
  await page.waitForURL(`${store.url}/`)
}

describe('email verification', () => {
  test.each(themes)('register, read the mail, follow its link: the notice goes (%s theme)', async (theme) => {
    const page = await newPage(browser)
    await page.emulateMedia({ colorScheme: theme })
    const email = uniqueEmail(`verify-${theme}`)
    await registerAs(page, email)
    const notice = page.getByRole('region', { name: 'Email not confirmed' })
    await notice.waitFor()
    await expectHealthyPage(page)

    await visit(page, await linkFromMail(email, 'Confirm your CodeBook email'))
    await expectHealthyPage(page)
    await page.getByRole('button', { name: 'Confirm my email' }).click()
    await page.getByText(`Thank you: ${email} is confirmed.`).waitFor()
    await expectHealthyPage(page)
    expect(await notice.count()).toBe(0)

    // The same link again: a clear page.
    await visit(page, await linkFromMail(email, 'Confirm your CodeBook email'))
    await page.getByText('This confirmation link has already been used').waitFor()
    await expectHealthyPage(page)
  })
})

describe('password reset', () => {
  test.each(themes)('forgot password, mail, link, new password, log in (%s theme)', async (theme) => {
    const setUp = await newPage(browser)
    const email = uniqueEmail(`reset-${theme}`)
    await registerAs(setUp, email)
    await setUp.context().close()

    const page = await newPage(browser)
    await page.emulateMedia({ colorScheme: theme })
    await visit(page, `${store.url}/login`)
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.getByRole('heading', { level: 1, name: 'Forgot password' }).waitFor()
    await expectHealthyPage(page)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByRole('button', { name: 'Send me a link' }).click()
    await page.getByText(`If an account uses ${email}`).waitFor()
    await expectHealthyPage(page)

    await visit(page, await linkFromMail(email, 'Reset your CodeBook password'))
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor()
    await expectHealthyPage(page)
    // A common password is refused next to the field.
    await page.getByLabel('New password').fill('password123')
    await page.getByRole('button', { name: 'Save my new password' }).click()
    await page.getByText('one of the 10,000 most common passwords').waitFor()
    await expectHealthyPage(page)
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Save my new password' }).click()
    await page.waitForURL(`${store.url}/login?passwordReset=1`)
    await page.getByText('Your password was changed').waitFor()
    await expectHealthyPage(page)
    await waitForMail(email, 'Your CodeBook password was changed')

    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.waitForURL(`${store.url}/`)
  })
})

describe('the account page', () => {
  test.each(themes)('sessions, a wrong current password, then a new one (%s theme)', async (theme) => {
    const email = uniqueEmail(`account-${theme}`)
    const other = await newPage(browser)
    await registerAs(other, email)
    const page = await newPage(browser)
    await page.emulateMedia({ colorScheme: theme })
    await visit(page, `${store.url}/login?redirectTo=%2Faccount`)
    await page.getByLabel('Email', { exact: true }).fill(email)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByRole('button', { name: 'Login', exact: true }).click()
    await page.waitForURL(`${store.url}/account`)
    await page.getByRole('heading', { level: 1, name: 'Account settings' }).waitFor()
    await page.getByText('This device').waitFor()
    expect(await page.getByRole('button', { name: /^Sign out Chrome on Linux/ }).count()).toBe(1)
    await expectHealthyPage(page)

    await page.getByLabel('Current password').fill('not my password')
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText('This is not your current password.').waitFor()
    await expectHealthyPage(page)

    await page.getByRole('button', { name: 'Sign out everywhere else' }).click()
    await page.getByText('Every other session was signed out.').waitFor()
    await page.getByText('You are signed in nowhere else.').waitFor()
    await expectHealthyPage(page)
    // The other browser is signed out.
    await visit(other, `${store.url}/account`)
    await other.waitForURL(/\/login\?redirectTo=/)

    // A new password: this browser stays signed in (its new session cookie arrived with the redirect).
    await page.getByLabel('Current password').fill(PASSWORD)
    await page.getByLabel('New password').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.waitForURL(`${store.url}/account?passwordChanged=1`)
    await page.getByText('Your password was changed. Every other session was signed out.').waitFor()
    await page.getByText('This device').waitFor()
    await visit(page, `${store.url}/account/orders`)
    await page.getByRole('heading', { level: 1, name: 'My orders' }).waitFor()
    await waitForMail(email, 'Your CodeBook password was changed')
  })
})

describe('without JavaScript', () => {
  test('a new email through the account page: the mail to the new address, its link, the old one told', async () => {
    const email = uniqueEmail('old')
    const newEmail = uniqueEmail('new')
    const page = await newPage(browser, { javaScriptEnabled: false })
    await registerAs(page, email)
    await visit(page, `${store.url}/account`)
    await page.getByLabel('New email').fill(newEmail)
    await page.getByRole('button', { name: 'Change email' }).click()
    await page.getByText(`We have mailed a link to ${newEmail}.`).waitFor()
    await page.getByText(`Your email is ${email}`).waitFor()

    await visit(page, await linkFromMail(newEmail, 'Confirm your new CodeBook email'))
    await page.getByRole('button', { name: 'Confirm my email' }).click()
    await page.getByText(`Your account's email is now ${newEmail}.`).waitFor()
    expect((await waitForMail(email, 'Your CodeBook email was changed')).parsed.text).toContain(newEmail)
    await visit(page, `${store.url}/account`)
    await page.getByText(`Your email is ${newEmail} (confirmed).`).waitFor()
    await expectHealthyPage(page)
  })
})

describe('over HTTP', () => {
  test("'Forgot password?' answers 429 with Retry-After once an address has asked 3 times in an hour", async () => {
    const email = uniqueEmail('limited')
    const ask = (n: number) =>
      fetch(`${store.url}/forgot-password`, {
        method: 'POST',
        body: new URLSearchParams({ email }),
        headers: { Origin: store.url, 'X-Forwarded-For': `10.251.0.${n}` },
        redirect: 'manual',
      })
    for (let n = 1; n <= 3; n++) expect((await ask(n)).status).toBe(200)
    const refused = await ask(4)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(59 * 60)
    expect(await refused.text()).toContain('Too many attempts')
  })
})
