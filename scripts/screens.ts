/**
 * `npm run screens`: the screenshots under docs/screens/ that README shows, taken from the production build as a
 * reader and an owner see it: home, all books, a book, the cart, the checkout, the library and the back office's
 * front page, at 1280×800 and 390×844, in the light and the dark theme (28 pictures).
 *
 * A store of its own on a fresh data folder: the seed catalogue, a reader who bought one book and has another in
 * the cart, and an owner (ADMIN_EMAILS); both sign in through the login page. Needs `npm run build` first.
 */
import fs from 'node:fs'
import path from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { addToCart, requireUserCart } from '#app/features/cart/cart.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { chromiumFlags, chromiumPath } from '#harness/chromium.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { startStoreWithAdmin } from '#harness/store-process.ts'

const outDir = path.resolve('docs/screens')
const viewports = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 390, height: 844 },
] as const
const themes = ['light', 'dark'] as const

type Shot = { name: string; path: string; as: 'visitor' | 'reader' | 'owner' }
const shots: Shot[] = [
  { name: 'home', path: '/', as: 'visitor' },
  { name: 'all-books', path: '/AllBooks', as: 'visitor' },
  { name: 'book', path: '/books/django-framework', as: 'visitor' },
  { name: 'cart', path: '/cart', as: 'reader' },
  { name: 'checkout', path: '/checkout', as: 'reader' },
  { name: 'library', path: '/account/library', as: 'reader' },
  { name: 'admin', path: '/admin', as: 'owner' },
]

let readerEmail = ''
const { store, admin } = await startStoreWithAdmin({}, async (db) => {
  await seedCatalog(db)
  const bySlug = new Map(
    (await db.select({ id: books.id, slug: books.slug }).from(books)).map((b) => [b.slug, b.id]),
  )
  const buyer = await createBuyer(db, [bySlug.get('the-future-of-design-systems')!], {
    email: 'ada@example.com',
  })
  await addToCart(db, await requireUserCart(db, buyer.userId), bySlug.get('django-framework')!)
  readerEmail = buyer.email
})
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags })

try {
  fs.mkdirSync(outDir, { recursive: true })
  const ownerCookies = await signIn(admin.email, admin.password)
  const readerCookies = await signIn(readerEmail, testPassword)
  for (const viewport of viewports)
    for (const theme of themes) {
      const sessions = { visitor: '', reader: readerCookies, owner: ownerCookies }
      for (const shot of shots) {
        const context = await browser.newContext({
          viewport: { width: viewport.width, height: viewport.height },
          colorScheme: theme,
          extraHTTPHeaders: { 'X-Forwarded-For': '10.9.9.9' },
        })
        await context.addCookies(
          cookiesOf(`cb_theme=${theme}; ${sessions[shot.as]}`).map((cookie) => ({
            ...cookie,
            url: store.url,
          })),
        )
        const page = await context.newPage()
        const response = await page
          .goto(`${store.url}${shot.path}`, { waitUntil: 'networkidle' })
          // Chromium now and then aborts a navigation that a finished one replaced; once more is enough.
          .catch(() => page.goto(`${store.url}${shot.path}`, { waitUntil: 'networkidle' }))
        if (!response?.ok()) throw new Error(`${shot.path} answered ${response?.status()}`)
        const file = path.join(outDir, `${shot.name}-${viewport.name}-${theme}.png`)
        await page.screenshot({ path: file })
        console.log(`${path.relative(process.cwd(), file)}  (${viewport.width}×${viewport.height})`)
        await context.close()
      }
    }
} finally {
  await browser.close()
  await store.stop()
}

/** Signs in through the login page, as a person does: the session cookie the store sets. */
async function signIn(email: string, password: string): Promise<string> {
  const context: BrowserContext = await browser.newContext({
    extraHTTPHeaders: { 'X-Forwarded-For': '10.9.9.8' },
  })
  const page = await context.newPage()
  await page.goto(`${store.url}/login`)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/login'),
    page.getByRole('button', { name: 'Login', exact: true }).click(),
  ])
  const cookies = await context.cookies()
  await context.close()
  return cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ')
}

function cookiesOf(header: string): { name: string; value: string }[] {
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=')
      return { name: pair.slice(0, at), value: pair.slice(at + 1) }
    })
}
