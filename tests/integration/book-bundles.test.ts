import { and, asc, eq, gt, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { staticSitemapXml } from '#app/features/seo/sitemap.server.ts'
import { books, bundles } from '#app/server/db/schema/index.server.ts'
import * as adminBundles from '#app/routes/admin/bundles.tsx'
import * as bookPage from '#app/routes/book.tsx'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { answerOf, routeArgs } from '#tests/route-args.ts'

/** A book's page names the bundles it is in (issue 30), and the sitemap lists the bundles' pages. */

let database: TestDatabase
let catalogue: { id: string; slug: string; priceCents: number }[]
let admin: Awaited<ReturnType<typeof createReader>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await database.db
    .select({ id: books.id, slug: books.slug, priceCents: books.priceCents })
    .from(books)
    .where(and(eq(books.status, 'published'), eq(books.currency, 'USD'), gt(books.priceCents, 100)))
    .orderBy(asc(books.slug))
    .limit(4)
  admin = await createReader(database.db, {
    email: `book-bundles-admin-${Date.now()}@codebook.test`,
    confirmed: true,
  })
  await database.db.execute(sql`update "user" set role = 'admin' where id = ${admin.userId}`)
})

async function makeBundle(slug: string, title: string, priceCents: number, slugs: string[]) {
  const answer = await answerOf(
    adminBundles.action(
      routeArgs({
        db: database.db,
        path: '/admin/bundles',
        cookie: admin.cookie,
        init: {
          method: 'POST',
          body: new URLSearchParams({
            title,
            slug,
            price: (priceCents / 100).toFixed(2),
            books: slugs.join('\n'),
            active: 'on',
          }),
        },
      }) as never,
    ),
  )
  expect(answer.status, JSON.stringify(answer.body)).toBe(303)
}

async function bundlesOnPage(slug: string) {
  const page = await answerOf(
    bookPage.loader(routeArgs({ db: database.db, path: `/books/${slug}`, params: { slug } }) as never),
  )
  return (page.body as { bundles: unknown }).bundles
}

describe('a book in bundles', () => {
  test('its page lists the active bundles it is in, by title, with their price and number of books', async () => {
    const [a, b, c, d] = catalogue
    await makeBundle('zeta-pack', 'Zeta pack', 2500, [a!.slug, b!.slug, c!.slug])
    await makeBundle('alpha-pack', 'Alpha pack', 1500, [a!.slug, b!.slug])
    await makeBundle('hidden-pack', 'Hidden pack', 1000, [a!.slug, c!.slug])
    await database.db.update(bundles).set({ active: false }).where(eq(bundles.slug, 'hidden-pack'))

    expect(await bundlesOnPage(a!.slug)).toEqual([
      { slug: 'alpha-pack', title: 'Alpha pack', priceCents: 1500, currency: 'USD', bookCount: 2 },
      { slug: 'zeta-pack', title: 'Zeta pack', priceCents: 2500, currency: 'USD', bookCount: 3 },
    ])
    expect(await bundlesOnPage(c!.slug)).toEqual([
      { slug: 'zeta-pack', title: 'Zeta pack', priceCents: 2500, currency: 'USD', bookCount: 3 },
    ])
    expect(await bundlesOnPage(d!.slug)).toEqual([])

    // The static sitemap has the active bundles' pages, not the switched-off one.
    const xml = await staticSitemapXml(database.db, 'https://codebook.test')
    expect(xml).toContain('<loc>https://codebook.test/bundles/alpha-pack</loc>')
    expect(xml).toContain('<loc>https://codebook.test/bundles/zeta-pack</loc>')
    expect(xml).not.toContain('hidden-pack')
  })
})
