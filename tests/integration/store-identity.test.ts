import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub } from 'react-router'
import sharp from 'sharp'
import { describe, expect } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { pageMeta, privatePageMeta } from '#app/features/seo/meta.ts'
import { logoMessages } from '#app/features/settings/logo.server.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { SiteHeader } from '#app/compositions/layout/site-header.tsx'
import { loader as rootLoader } from '#app/root.tsx'
import StoreSettingsPage, {
  action as settingsAction,
  handle as settingsHandle,
  loader as settingsLoader,
} from '#app/routes/admin/settings.tsx'
import { loader as logoLoader } from '#app/routes/media-logo.ts'
import { meta as loginMeta } from '#app/routes/login.tsx'
import { action as adminOrderAction } from '#app/routes/admin/order.tsx'
import Order, { loader as orderLoader } from '#app/routes/order.tsx'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { queuePasswordChanged } from '#app/features/identity/account-mail.server.ts'
import { queueResetLink } from '#app/features/identity/password-reset.server.ts'
import { accountDeletedEmail } from '#app/features/identity/account-deleted-email.ts'
import { deliverOutboxOverSmtp } from '#tests/smtp.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { elementOf, renderRoute, textOf } from '#tests/render-route.ts'
import { routeArgs, servicesFor } from '#tests/route-args.ts'

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
})

async function rootData() {
  return rootLoader(routeArgs({ db: database.db, path: '/' }))
}

/** The header as the server renders it under the root's data. */
function header(root: unknown) {
  const Stub = createRoutesStub([{ id: 'root', path: '/', Component: SiteHeader }])
  const html = renderToString(
    createElement(Stub, { initialEntries: ['/'], hydrationData: { loaderData: { root } } }),
  ).replaceAll('<!-- -->', '')
  return elementOf(html, '<a ')!
}

async function currentForm() {
  const loaded = await settingsLoader(
    routeArgs({ db: database.db, path: '/admin/settings', cookie: admin.cookie }),
  )
  return { ...loaded.values, version: String(loaded.version) } as Record<string, string>
}

/** Posts the settings form as the browser does (multipart), with `changes` over what it shows now. */
async function postSettings(changes: Record<string, string | Blob>) {
  const body = new FormData()
  for (const [name, value] of Object.entries({ ...(await currentForm()), ...changes }))
    if (typeof value === 'string') body.set(name, value)
    else body.set(name, value, 'logo.png')
  const args = routeArgs({
    db: database.db,
    path: '/admin/settings',
    cookie: admin.cookie,
    init: { method: 'POST', body },
  })
  try {
    const answer = (await settingsAction(args)) as unknown as {
      data: { fieldErrors: Record<string, string>; values: Record<string, string> }
      init: { status: number }
    }
    return { status: answer.init.status, data: answer.data }
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, data: null }
    throw thrown
  }
}

async function logoFile(file: string) {
  const response = await logoLoader(
    routeArgs({ db: database.db, path: `/media/logo/${file}`, params: { file } }),
  )
  return {
    status: response.status,
    type: response.headers.get('Content-Type'),
    cache: response.headers.get('Cache-Control'),
    bytes: new Uint8Array(await response.arrayBuffer()),
  }
}

describe('the header names the store from its settings (issue 34)', () => {
  test('a fresh store looks as today: the round logo and ‘CodeBook’; after a save, the owner’s name, in titles too', async () => {
    const fresh = header(await rootData())
    expect(fresh).toContain('src="/logo.svg"')
    expect(textOf(fresh)).toBe('CodeBook')

    expect((await postSettings({ storeName: 'Ada’s Books' })).status).toBe(303)
    const root = await rootData()
    const named = header(root)
    expect(textOf(named)).toBe('Ada’s Books')
    expect(named).not.toContain('CodeBook')

    const matches = [{ id: 'root', loaderData: root }]
    const tags = pageMeta(
      { matches, location: { search: '' } },
      { title: 'All eBooks (7)', description: 'Every book.', path: '/AllBooks' },
    )
    expect(tags).toContainEqual({ title: 'All eBooks (7) — Ada’s Books' })
    expect(tags).toContainEqual({ property: 'og:site_name', content: 'Ada’s Books' })
    expect(privatePageMeta('My Cart (0)', 'Your cart.', { matches })).toContainEqual({
      title: 'My Cart (0) — Ada’s Books',
    })
    // A route's own title: the login page's.
    expect(loginMeta({ matches } as never)).toContainEqual({ title: 'Login — Ada’s Books' })
    // Where the root did not load (its own error page), the default name.
    expect(privatePageMeta('Oops', 'Down.', { matches: [] })).toContainEqual({ title: 'Oops — CodeBook' })
  })
})

describe('the logo (issue 34)', () => {
  test('an uploaded image is checked, resized to 80 pixels high as WebP and PNG, served for a year, audited and shown in the header', async () => {
    // A wide wordmark with a transparent background, larger than the header needs.
    const upload = await sharp({
      create: { width: 600, height: 200, channels: 4, background: { r: 30, g: 64, b: 175, alpha: 0.5 } },
    })
      .png()
      .toBuffer()
    const answer = await postSettings({ logo: new Blob([new Uint8Array(upload)], { type: 'image/png' }) })
    expect(answer.status).toBe(303)

    const { logo } = await readStoreSettings(database.db)
    expect(logo).toMatchObject({ width: 240, height: 80 })
    const png = await logoFile(logo!.png)
    expect(png).toMatchObject({
      status: 200,
      type: 'image/png',
      cache: 'public, max-age=31536000, immutable',
    })
    expect(await sharp(png.bytes).metadata()).toMatchObject({
      format: 'png',
      width: 240,
      height: 80,
      hasAlpha: true,
    })
    const webp = await logoFile(logo!.webp)
    expect(webp).toMatchObject({ status: 200, type: 'image/webp' })
    expect(await sharp(webp.bytes).metadata()).toMatchObject({ format: 'webp', width: 240, height: 80 })
    expect((await logoFile('../auth-secret')).status).toBe(404)
    expect((await logoFile('0123456789abcdef.svg')).status).toBe(404)

    const shown = header(await rootData())
    expect(shown).toContain(`srcSet="/media/logo/${logo!.webp}"`)
    expect(shown).toMatch(new RegExp(`<img src="/media/logo/${logo!.png}" alt="" width="120" height="40"`))
    expect(shown).not.toContain('/logo.svg')
    expect(textOf(shown)).toBe('Ada’s Books')

    const { rows } = await listAuditLog(database.db, { entity: { type: 'store-settings', id: 'store' } })
    expect(rows[0]).toMatchObject({ action: 'settings.update', before: { logo: null }, after: { logo } })
  })

  test('a file that is not an image is refused with the message next to the field, and nothing is saved', async () => {
    const before = await readStoreSettings(database.db)
    const answer = await postSettings({
      storeName: 'Not saved',
      logo: new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: 'image/png' }),
    })
    expect(answer.status).toBe(400)
    expect(answer.data!.fieldErrors).toEqual({ logo: logoMessages.notAnImage })
    expect(answer.data!.values.storeName).toBe('Not saved')
    expect(await readStoreSettings(database.db)).toEqual(before)

    const loaderData = await settingsLoader(
      routeArgs({ db: database.db, path: '/admin/settings', cookie: admin.cookie }),
    )
    const Stub = createRoutesStub([
      {
        id: 'page',
        path: '/admin/settings',
        Component: StoreSettingsPage as never,
        action: () => null,
      },
    ])
    const html = renderToString(
      createElement(Stub, {
        initialEntries: ['/admin/settings'],
        hydrationData: { loaderData: { page: loaderData }, actionData: { page: answer.data } },
      }),
    ).replaceAll('<!-- -->', '')
    expect(html).toMatch(/enctype="multipart\/form-data"/i)
    // The message is tied to the file input, which a screen reader announces with it.
    const input = /<input[^>]*type="file"[^>]*>/.exec(html)![0]
    const describedBy = /aria-describedby="([^"]*)"/.exec(input)![1]!.split(' ')
    const errorId = describedBy.find((id) => id.endsWith('-error'))!
    expect(html).toContain(
      `id="${errorId}" class="text-sm text-red-700 dark:text-red-300">${logoMessages.notAnImage}`,
    )
    expect(input).toContain('aria-invalid="true"')
    expect(html).toContain('Remove logo')
  })

  test('a damaged image and one of too many pixels are refused; the host allows a 2 MB logo through', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } })
      .png()
      .toBuffer()
    const damaged = await postSettings({ logo: new Blob([new Uint8Array(png.subarray(0, 60))]) })
    expect(damaged.data!.fieldErrors).toEqual({ logo: logoMessages.corrupt })
    // 4100 × 4100: 16.8 megapixels, told by its header before anything is decoded.
    const huge = await sharp({ create: { width: 4100, height: 4100, channels: 3, background: '#fff' } })
      .png({ compressionLevel: 9 })
      .toBuffer()
    const refused = await postSettings({ logo: new Blob([new Uint8Array(huge)]) })
    expect(refused).toMatchObject({
      status: 400,
      data: { fieldErrors: { logo: logoMessages.tooManyPixels } },
    })
    expect(settingsHandle.requestBody.maxBytes).toBeGreaterThan(2 * 1024 * 1024)
  })

  test('‘Remove logo’ brings the round logo back and deletes the files', async () => {
    const { logo } = await readStoreSettings(database.db)
    expect(logo).not.toBeNull()
    expect((await postSettings({ removeLogo: '1' })).status).toBe(303)
    expect((await readStoreSettings(database.db)).logo).toBeNull()
    expect(header(await rootData())).toContain('src="/logo.svg"')
    expect((await logoFile(logo!.png)).status).toBe(404)
    expect(await servicesFor(database.db).storage.stat(`logos/${logo!.webp}`)).toBeNull()
  })
})

/** The mails of `kind` this buyer got, through the real SMTP receiver. */
async function mailsTo(email: string, kind: 'receipt' | 'refund') {
  return (await deliverOutboxOverSmtp(database.db)).filter(
    (mail) => mail.envelope.to.includes(email) && mail.parsed.subject?.includes(kind),
  )
}

/** The buyer's order page (the web receipt) as the server renders it. */
async function orderPage(buyer: { cookie: string; orderId: string }) {
  const args = { db: database.db, cookie: buyer.cookie }
  const loaderData = await orderLoader(
    routeArgs({ ...args, path: `/orders/${buyer.orderId}`, params: { orderId: buyer.orderId } }),
  )
  const rootData = await rootLoader(routeArgs({ ...args, path: `/orders/${buyer.orderId}` }))
  return renderRoute({
    Component: Order as never,
    pattern: 'orders/:orderId',
    path: `/orders/${buyer.orderId}`,
    loaderData,
    rootData,
  })
}

describe('the seller on receipts, refund mails and the order page (issue 34)', () => {
  test('before the owner sets the seller: the store’s name, and no empty ‘Seller:’ block', async () => {
    const [book] = await listBooks(database.db)
    const buyer = await createBuyer(database.db, [book!.id])
    const [receipt] = await mailsTo(buyer.email, 'receipt')
    expect(receipt!.parsed.subject).toBe(`Your Ada’s Books receipt — order #${buyer.orderNumber}`)
    for (const body of [receipt!.parsed.text!, receipt!.parsed.html as string]) {
      expect(body).toContain('Ada’s Books library')
      expect(body).not.toContain('CodeBook')
      expect(body).not.toContain('Seller')
    }
    const page = await orderPage(buyer)
    expect(page).not.toContain('Seller')
  })

  test('once set, the legal name, address and contact email are on the receipt, the order page and the refund mail', async () => {
    expect(
      (
        await postSettings({
          legalName: 'Ada Books Ltd',
          postalAddress: '1 Main Street\nLeeds LS1 1AA',
          contactEmail: 'hello@ada-books.example',
        })
      ).status,
    ).toBe(303)
    const [, book] = await listBooks(database.db)
    const buyer = await createBuyer(database.db, [book!.id])
    const [receipt] = await mailsTo(buyer.email, 'receipt')
    expect(receipt!.parsed.text).toContain(
      'Seller:\nAda Books Ltd\n1 Main Street\nLeeds LS1 1AA\nhello@ada-books.example',
    )
    expect(receipt!.parsed.html).toContain(
      'Seller:<br>Ada Books Ltd<br>1 Main Street<br>Leeds LS1 1AA<br><a href="mailto:hello@ada-books.example">hello@ada-books.example</a>',
    )

    const seller = elementOf(await orderPage(buyer), '<section aria-labelledby="seller-heading"')
    expect(textOf(seller!)).toBe('Seller Ada Books Ltd 1 Main Street Leeds LS1 1AA hello@ada-books.example')
    expect(seller).toContain('href="mailto:hello@ada-books.example"')

    const refunded = await thrownByOrReturned(() =>
      adminOrderAction(
        routeArgs({
          db: database.db,
          path: `/admin/orders/${buyer.orderId}`,
          cookie: admin.cookie,
          params: { orderId: buyer.orderId },
          init: { method: 'POST', body: new URLSearchParams({ confirm: 'yes' }) },
        }),
      ),
    )
    expect((refunded as Response).headers.get('Location')).toBe(`/admin/orders/${buyer.orderId}?refund=done`)
    const [refund] = await mailsTo(buyer.email, 'refund')
    expect(refund!.parsed.subject).toBe(`Your Ada’s Books refund — order #${buyer.orderNumber}`)
    expect(refund!.parsed.text).toContain('These eBooks have left your Ada’s Books library:')
    expect(refund!.parsed.text).toContain(
      'Seller:\nAda Books Ltd\n1 Main Street\nLeeds LS1 1AA\nhello@ada-books.example',
    )
    expect(refund!.parsed.html).toContain('Seller:<br>Ada Books Ltd<br>1 Main Street<br>Leeds LS1 1AA<br>')
  })
})

describe('every mail names the store by its settings name (issue 34)', () => {
  test('registration, password reset and password change mails; the account deletion mail', async () => {
    const reader = await createReader(database.db)
    const origin = new URL('http://localhost:3000')
    await queueResetLink(database.db, reader.email, origin)
    await queuePasswordChanged(database.db, reader.email, origin)
    const mails = (await deliverOutboxOverSmtp(database.db)).filter((mail) =>
      mail.envelope.to.includes(reader.email),
    )
    expect(mails.map((mail) => mail.parsed.subject).toSorted()).toEqual([
      'Confirm your Ada’s Books email',
      'Reset your Ada’s Books password',
      'Your Ada’s Books password was changed',
    ])
    for (const mail of mails) {
      expect(mail.parsed.text).toContain('Ada’s Books account')
      expect(`${mail.parsed.text}${String(mail.parsed.html)}`).not.toContain('CodeBook')
    }
    const deleted = accountDeletedEmail('Ada’s Books')
    expect(deleted.subject).toBe('Your Ada’s Books account has been deleted')
    expect(deleted.html).toContain('Your Ada’s Books account has been deleted, as you asked.')
  })
})

async function thrownByOrReturned(run: () => unknown) {
  try {
    return await run()
  } catch (thrown) {
    return thrown
  }
}
