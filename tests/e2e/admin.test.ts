import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest'
import { expectHealthyPage, launchBrowser, newPage, themes, visit } from './browser.ts'
import { register, uniqueEmail } from './shopper.ts'

const baseURL = inject('baseURL')
const admin = inject('admin')
let browser: Browser
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(() => browser?.close())

/** Logs in through the login form and waits to leave it. */
export async function logIn(page: Page, email: string, password: string) {
  await visit(page, `${baseURL}/login`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Login', exact: true }).click()
  await page.waitForURL((url) => url.pathname !== '/login')
}

describe('who may open the back office', () => {
  test('a visitor and a customer get the ordinary 404 on every /admin URL, and no Back office link', async () => {
    const page = await newPage(browser)
    const paths = ['/admin', '/admin/books', '/admin/orders', '/admin/analytics', '/admin/audit']
    for (const path of paths) expect((await page.goto(`${baseURL}${path}`))?.status(), path).toBe(404)
    // The same page as any unknown URL: title, heading and message.
    const shown = async (path: string) => {
      expect((await page.goto(`${baseURL}${path}`))?.status()).toBe(404)
      return [await page.title(), await page.getByRole('main').innerText()]
    }
    expect(await shown('/admin/books')).toEqual(await shown('/no-such-page'))

    await visit(page, `${baseURL}/Register`)
    await register(page, uniqueEmail('customer'))
    await page.waitForURL(`${baseURL}/`)
    for (const path of paths) expect((await page.goto(`${baseURL}${path}`))?.status(), path).toBe(404)
    expect(await shown('/admin')).toEqual(await shown('/no-such-page'))
    await visit(page, `${baseURL}/`)
    await page.getByRole('button', { name: 'Account menu' }).click()
    await expect.poll(() => page.getByRole('menuitem', { name: 'Back office' }).count()).toBe(0)
  })

  test.each(themes)(
    'the owner (ADMIN_EMAILS) reaches it from the person menu; audit log shows the grant (%s)',
    async (colorScheme) => {
      const page = await newPage(browser, { colorScheme })
      await logIn(page, admin.email, admin.password)
      await page.getByRole('button', { name: 'Account menu' }).click()
      await page.getByRole('menuitem', { name: 'Back office' }).click()
      await page.waitForURL(`${baseURL}/admin`)
      await page.getByRole('heading', { level: 1, name: 'Back office' }).waitFor()
      await expectHealthyPage(page)
      await page
        .getByRole('navigation', { name: 'Back office' })
        .getByRole('link', { name: 'Audit log' })
        .click()
      await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
      const grant = page.getByRole('row').filter({ hasText: 'user.grant-admin' })
      await expect.poll(() => grant.count()).toBeGreaterThan(0)
      await expect.poll(() => grant.first().textContent()).toContain('cli')
      await expectHealthyPage(page)
    },
  )
})
