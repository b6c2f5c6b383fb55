import { createElement, type ComponentType } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub, Outlet } from 'react-router'
import { sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { defaultStoreSettings, settingsFormValues } from '#app/features/settings/store-settings.ts'
import { SiteFooter } from '#app/compositions/layout/site-footer.tsx'
import { loader as rootLoader } from '#app/root.tsx'
import { action as settingsAction, loader as settingsLoader } from '#app/routes/admin/settings.tsx'
import Home, { loader as homeLoader } from '#app/routes/home.tsx'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createReader } from '#harness/factories/buyers.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
})

/** The page `Page` rendered to HTML as the server would, above the footer, with the loaders' data given. */
function render(rootData: unknown, Page: ComponentType = () => null, pageData: unknown = null) {
  const Stub = createRoutesStub([
    {
      id: 'root',
      path: '/',
      Component: () => createElement('div', null, createElement(Outlet), createElement(SiteFooter)),
      children: [{ id: 'page', index: true, Component: Page }],
    },
  ])
  return renderToString(
    createElement(Stub, {
      initialEntries: ['/'],
      hydrationData: { loaderData: { root: rootData, page: pageData } },
    }),
  ).replaceAll('<!-- -->', '')
}

async function rootData() {
  return rootLoader(routeArgs({ db: database.db, path: '/' }))
}

function postSettings(values: Record<string, string>, cookie = admin.cookie) {
  return routeArgs({
    db: database.db,
    path: '/admin/settings',
    cookie,
    init: { method: 'POST', body: new URLSearchParams(values) },
  })
}

async function currentForm() {
  const loaded = await settingsLoader(
    routeArgs({ db: database.db, path: '/admin/settings', cookie: admin.cookie }),
  )
  return { ...loaded.values, version: String(loaded.version) } as Record<string, string>
}

/** The action's answer: a thrown redirect, or data with its status. */
async function outcome(run: () => unknown) {
  let value: unknown
  try {
    value = await run()
  } catch (thrown) {
    value = thrown
  }
  if (value instanceof Response)
    return { status: value.status, location: value.headers.get('Location'), data: null }
  const wrapped = value as {
    data: { fieldErrors: Record<string, string>; values: Record<string, string> }
    init: { status: number }
  }
  return { status: wrapped.init.status, location: null, data: wrapped.data }
}

describe('the footer (issue 34: it linked to social accounts the owner does not own)', () => {
  test('a fresh store shows no social account, its name and year, and the site pages', async () => {
    const html = render(await rootData())
    expect(html).not.toMatch(/instagram\.com|x\.com\/|github\.com/)
    expect(html).toContain(`© ${new Date().getFullYear()} CodeBook`)
    for (const [path, title] of [
      ['/about', 'About'],
      ['/contact', 'Contact'],
      ['/terms', 'Terms'],
      ['/privacy', 'Privacy'],
      ['/refunds', 'Refund policy'],
      ['/imprint', 'Imprint'],
    ])
      expect(html).toMatch(new RegExp(`href="${path}"[^>]*>${title}</a>`))
  })
})

describe('store settings', () => {
  test('a fresh store reads as it looked before settings existed: the home page’s texts and four testimonials', async () => {
    const settings = await readStoreSettings(database.db)
    expect(settings).toEqual(defaultStoreSettings)
    const home = await homeLoader(routeArgs({ db: database.db, path: '/' }))
    expect(home.heroText).toMatch(/^CodeBook is the reference source for computer-science eBooks/)
    expect(home.testimonials).toHaveLength(4)
    expect(new Set(home.testimonials.map((testimonial) => testimonial.quote)).size).toBe(4)
  })

  test('anyone but an admin gets 404 on the page and its action', async () => {
    const reader = await createReader(database.db)
    for (const cookie of [undefined, reader.cookie]) {
      const viewed = (await thrownBy(() =>
        settingsLoader(routeArgs({ db: database.db, path: '/admin/settings', cookie })),
      )) as Response
      expect(viewed.status ?? (viewed as unknown as { init: { status: number } }).init.status).toBe(404)
      const posted = await outcome(() => settingsAction(postSettings({ storeName: 'Mine' }, cookie ?? '')))
      expect(posted.status).toBe(404)
    }
    expect((await readStoreSettings(database.db)).storeName).toBe('CodeBook')
  })

  test('bad input is refused with a message per field, and what was typed and saved is kept', async () => {
    const form = await currentForm()
    const answer = await outcome(() =>
      settingsAction(
        postSettings({
          ...form,
          storeName: '   ',
          contactEmail: 'not-an-email',
          github: 'javascript:alert(1)',
          testimonial2Quote: '',
          legalName: 'Ada Books Ltd',
        }),
      ),
    )
    expect(answer.status).toBe(400)
    expect(answer.data!.fieldErrors).toEqual({
      storeName: 'Please enter the store name.',
      contactEmail: 'Please enter an email address like owner@example.com, or leave it empty.',
      github: 'The GitHub link is a full https:// address, or empty to show none.',
      testimonial2Quote: 'Please enter the testimonial 2’s quote.'.replace('’', "'"),
    })
    expect(answer.data!.values.legalName).toBe('Ada Books Ltd')
    expect(answer.data!.values.github).toBe('javascript:alert(1)')
    expect(await readStoreSettings(database.db)).toEqual(defaultStoreSettings)
  })

  test('an admin saves the settings: audited, and the footer, the home page and the root show them at once', async () => {
    const form = await currentForm()
    const answer = await outcome(() =>
      settingsAction(
        postSettings({
          ...form,
          storeName: 'Ada’s Books',
          legalName: 'Ada Books Ltd',
          postalAddress: '1 Main Street\r\nLeeds LS1 1AA',
          contactEmail: 'hello@ada-books.example',
          github: 'https://github.com/ada-books',
          heroText: 'The books Ada reads.',
          testimonial3Quote: 'A new quote.',
        }),
      ),
    )
    expect(answer).toMatchObject({ status: 303, location: '/admin/settings?saved=1' })

    const root = await rootData()
    expect(root.store).toEqual({
      storeName: 'Ada’s Books',
      logo: null,
      legalName: 'Ada Books Ltd',
      postalAddress: '1 Main Street\nLeeds LS1 1AA',
      contactEmail: 'hello@ada-books.example',
      social: { instagram: '', x: '', github: 'https://github.com/ada-books', mastodon: '' },
    })
    const home = await homeLoader(routeArgs({ db: database.db, path: '/' }))
    const html = render(root, Home as ComponentType, home)
    expect(html).toContain('The books Ada reads.')
    expect(html).toContain('“A new quote.”')
    expect(html).toContain('Student About CodeBook')
    expect(html).toContain('The Ultimate eBook Store')
    expect(html).toContain(`© ${new Date().getFullYear()} Ada’s Books`)
    expect(html).toContain(
      '<address class="not-italic">Ada Books Ltd, 1 Main Street, Leeds LS1 1AA</address>',
    )
    expect(html).toContain('href="mailto:hello@ada-books.example"')
    expect(html).toContain('href="https://github.com/ada-books"')
    expect(html).toContain('aria-label="Ada’s Books on GitHub"')
    expect(html).not.toMatch(/instagram\.com|x\.com\//)

    const { rows } = await listAuditLog(database.db, { entity: { type: 'store-settings', id: 'store' } })
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      action: 'settings.update',
      actorEmail: admin.email,
      before: { storeName: 'CodeBook', contactEmail: '' },
      after: { storeName: 'Ada’s Books', contactEmail: 'hello@ada-books.example' },
    })
    const reloaded = await settingsLoader(
      routeArgs({ db: database.db, path: '/admin/settings?saved=1', cookie: admin.cookie }),
    )
    expect(reloaded).toMatchObject({ saved: true, version: 1, values: { storeName: 'Ada’s Books' } })
  })

  test('a save made from an older version is refused (409) and the newer settings are kept', async () => {
    const stale = await currentForm()
    expect(await outcome(() => settingsAction(postSettings({ ...stale, storeName: 'First' })))).toMatchObject(
      {
        status: 303,
      },
    )
    const refused = await outcome(() => settingsAction(postSettings({ ...stale, storeName: 'Second' })))
    expect(refused.status).toBe(409)
    expect(refused.data!.values.storeName).toBe('Second')
    expect((await readStoreSettings(database.db)).storeName).toBe('First')
    expect(settingsFormValues(await readStoreSettings(database.db)).storeName).toBe('First')
  })

  test('the back office reads the settings as saved: a save on another instance is not a 409 for 10 s here', async () => {
    const saved = await outcome(async () =>
      settingsAction(postSettings({ ...(await currentForm()), storeName: 'Saved here' })),
    )
    expect(saved.status).toBe(303)
    // This process has the settings in its 10-second cache…
    await readStoreSettings(database.db)
    const before = await currentForm()
    // …when another instance saves (the row written as its save writes it).
    await database.db.execute(
      sql`update store_settings set version = version + 1, value = jsonb_set(value, '{storeName}', '"Elsewhere"')`,
    )
    const form = await currentForm()
    expect(form.version).toBe(String(Number(before.version) + 1))
    expect(form.storeName).toBe('Elsewhere')
    expect(await outcome(() => settingsAction(postSettings({ ...form, storeName: 'Here' })))).toMatchObject({
      status: 303,
    })
  })
})
