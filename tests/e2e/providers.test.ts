import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startOidcProvider, type TestOidcProvider } from '#tests/oidc-provider.ts'
import { startSmtpServer, type TestSmtpServer } from '#tests/smtp.ts'
import { freePort, spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { register, uniqueEmail } from './shopper.ts'

/**
 * Sign in with an OpenID Connect provider, in Chromium, through the provider's own login and consent pages:
 * a real oidc-provider on 127.0.0.1 and a store of our own configured for it (OIDC_*), whose mail goes to a
 * real SMTP server. Then the account is deleted and the confirmation read from that server.
 */
let browser: Browser
let oidc: TestOidcProvider
let smtp: TestSmtpServer
let store: StoreProcess
beforeAll(async () => {
  browser = await launchBrowser()
  const port = await freePort()
  const storeUrl = `http://127.0.0.1:${port}`
  oidc = await startOidcProvider({ redirectUris: [`${storeUrl}/api/auth/callback/oidc`] })
  smtp = await startSmtpServer()
  store = await spawnStore({
    PORT: String(port),
    BETTER_AUTH_URL: storeUrl,
    TRUST_PROXY: 'loopback',
    SMTP_URL: smtp.url,
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: oidc.clientId,
    OIDC_CLIENT_SECRET: oidc.clientSecret,
    OIDC_NAME: 'Test ID',
  })
  await waitUntilReady(store)
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await store?.stop()
  await smtp?.close()
  await oidc?.close()
})

/** From the store's login page to the provider's login page, by the 'Sign in with Test ID' button. */
async function startSignIn(page: Page) {
  await visit(page, `${store.url}/login`)
  await page.getByRole('button', { name: 'Sign in with Test ID' }).click()
  await page.waitForURL((url) => url.origin === oidc.issuer)
}

test.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])(
  '%s: sign in with the provider, then delete the account; the confirmation arrives by mail',
  async (_, javaScriptEnabled) => {
    const email = uniqueEmail('oidc')
    const login = `ada-${javaScriptEnabled}`
    oidc.accounts.set(login, { email, emailVerified: true, name: 'Ada' })
    const page = await newPage(browser, { javaScriptEnabled })
    await startSignIn(page)
    // The provider's own pages: its login form, then its consent.
    await page.locator('input[name="login"]').fill(login)
    await page.locator('input[name="password"]').fill('any password')
    await page.getByRole('button', { name: 'Sign-in' }).click()
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.waitForURL(`${store.url}/`)

    await visit(page, `${store.url}/account/delete`)
    // Signed in as the provider's person: the page names the account.
    await page.getByRole('main').getByText(email).waitFor()
    // Signed in a moment ago with the provider: that confirms it, no password to type.
    await page.getByText('You signed in a moment ago, which confirms it is you.').waitFor()
    await page.getByRole('button', { name: 'Delete my account' }).click()
    await page.waitForURL(`${store.url}/login?deleted=1`)
    await page.getByRole('status').filter({ hasText: 'Your account has been deleted.' }).waitFor()
    // Signed out: the account pages send to the login page.
    await visit(page, `${store.url}/account/delete`)
    expect(new URL(page.url()).pathname).toBe('/login')

    await expect
      .poll(() => smtp.received.find((mail) => mail.envelope.to.includes(email))?.parsed.subject, {
        timeout: 20_000,
      })
      .toBe('Your CodeBook account has been deleted')
    await page.context().close()
  },
)

test('denying at the provider comes back to the login page with a message', async () => {
  oidc.accounts.set('bob', { email: uniqueEmail('bob'), emailVerified: true, name: 'Bob' })
  const page = await newPage(browser)
  await startSignIn(page)
  await page.getByRole('link', { name: /Cancel/ }).click()
  await page.waitForURL((url) => url.origin === store.url && url.pathname === '/login')
  await page
    .getByRole('alert')
    .filter({ hasText: 'You did not allow CodeBook to use that account, so you are not signed in.' })
    .waitFor()
  await page.context().close()
})

test.each(themes)(
  'the login page with providers and the delete page pass axe in the %s theme',
  async (colorScheme) => {
    const page = await newPage(browser, { colorScheme })
    await visit(page, `${store.url}/login?error=access_denied`)
    await page.getByRole('button', { name: 'Sign in with Test ID' }).waitFor()
    await expectHealthyPage(page)
    await visit(page, `${store.url}/Register`)
    await register(page, uniqueEmail(`axe-${colorScheme}`))
    await page.waitForURL(`${store.url}/`)
    await visit(page, `${store.url}/account/delete`)
    await page.getByLabel('Password', { exact: true }).fill('not my password')
    await page.getByRole('button', { name: 'Delete my account' }).click()
    await page.getByText('That password is not right.').waitFor()
    await expectHealthyPage(page)
    await page.context().close()
  },
)
