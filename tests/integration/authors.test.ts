import { and, asc, eq } from 'drizzle-orm'
import sharp from 'sharp'
import { describe, expect } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { createBook, updateBook, getAdminBook } from '#app/features/catalog/admin-books.server.ts'
import { BookFormSchema } from '#app/features/catalog/book-form.server.ts'
import { authorSitemapXml, sitemapIndexXml } from '#app/features/seo/sitemap.server.ts'
import { action as editAction, loader as editLoader } from '#app/routes/admin/author-edit.tsx'
import { action as photoAction } from '#app/routes/admin/author-photo.ts'
import { loader as listLoader } from '#app/routes/admin/authors.tsx'
import { loader as authorLoader, meta as authorMeta } from '#app/routes/author.tsx'
import { loader as bookLoader, meta as bookMeta } from '#app/routes/book.tsx'
import { loader as mediaLoader } from '#app/routes/media-author.ts'
import { authors, books } from '#app/server/db/schema/index.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'
import { schemaOrgProblems } from '#tests/schema-org.ts'

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
})

const origin = 'https://shop.example'
const root = { id: 'root', loaderData: { publicOrigin: origin } }

async function authorNamed(name: string) {
  const [author] = await database.db.select().from(authors).where(eq(authors.name, name))
  if (!author) throw new Error(`no author ${name}`)
  return author
}

function showAuthor(slug: string) {
  return authorLoader(routeArgs({ db: database.db, path: `/authors/${slug}`, params: { slug } }))
}

function post<Params extends Record<string, string>>(
  path: string,
  params: Params,
  body: URLSearchParams | FormData,
) {
  return routeArgs({
    db: database.db,
    path,
    cookie: admin.cookie,
    params,
    init: { method: 'POST', body },
  })
}

function jsonLdOf(tags: unknown[]): Record<string, unknown>[] {
  return tags.flatMap((tag) =>
    tag && typeof tag === 'object' && 'script:ld+json' in tag
      ? [(tag as { 'script:ld+json': Record<string, unknown> })['script:ld+json']]
      : [],
  )
}

describe('authors', () => {
  test('every seed book is filed under an author named as its byline, with a generic bio', async () => {
    const rows = await database.db
      .select({ byline: books.author, name: authors.name, slug: authors.slug, bio: authors.bio })
      .from(books)
      .innerJoin(authors, eq(authors.id, books.authorId))
      .orderBy(asc(books.createdAt))
    expect(rows).toHaveLength(7)
    for (const row of rows) {
      expect(row.name).toBe(row.byline)
      expect(row.bio).toMatch(new RegExp(`^${row.name} writes `))
    }
    expect(rows.map((row) => row.slug)).toContain('lucia-ferreira')
  })

  test("an author's page shows their name, bio and published books, with a Person in its JSON-LD", async () => {
    const page = await showAuthor('marisol-okafor')
    expect(page.author.name).toBe('Marisol Okafor')
    expect(page.books.map((book) => book.slug)).toEqual(['complete-guide-to-backend-development'])
    expect(page.bookCount).toBe(1)
    expect(page.bioBlocks[0]?.type).toBe('paragraph')
    const tags = authorMeta({
      loaderData: page,
      location: { search: '?ref=x' },
      matches: [root],
    } as unknown as Parameters<typeof authorMeta>[0])
    expect(tags).toContainEqual({ title: 'Marisol Okafor, author — CodeBook' })
    expect(tags).toContainEqual({
      tagName: 'link',
      rel: 'canonical',
      href: `${origin}/authors/marisol-okafor`,
    })
    const [person, breadcrumbs] = jsonLdOf(tags)
    expect(person).toMatchObject({
      '@type': 'Person',
      name: 'Marisol Okafor',
      url: `${origin}/authors/marisol-okafor`,
      subjectOf: [{ '@type': 'Book', url: `${origin}/books/complete-guide-to-backend-development` }],
    })
    expect(String(person!.description)).toContain('writes about the server side')
    expect(breadcrumbs).toMatchObject({ '@type': 'BreadcrumbList' })
    expect(await schemaOrgProblems(jsonLdOf(tags))).toEqual([])
  })

  test('an unknown author, or one with no published book, is the 404 page', async () => {
    const unknown = (await thrownBy(() => showAuthor('nobody-at-all'))) as { init: { status: number } }
    expect(unknown.init.status).toBe(404)
    await database.db.insert(authors).values({ slug: 'no-books-yet', name: 'No Books Yet' })
    const empty = (await thrownBy(() => showAuthor('no-books-yet'))) as { init: { status: number } }
    expect(empty.init.status).toBe(404)
  })

  test("the book page links its byline to the author's page and names them a Person with that URL", async () => {
    const slug = 'basics-to-advanced-in-react'
    const page = await bookLoader(routeArgs({ db: database.db, path: `/books/${slug}`, params: { slug } }))
    expect(page.author).toMatchObject({ slug: 'daniel-moreau', name: 'Daniel Moreau', photo: null })
    expect(page.author.firstParagraph?.type).toBe('paragraph')
    const tags = bookMeta({
      loaderData: page,
      location: { search: '' },
      matches: [root],
    } as unknown as Parameters<typeof bookMeta>[0])
    const [book] = jsonLdOf(tags)
    expect(book!.author).toEqual({
      '@type': 'Person',
      name: 'Daniel Moreau',
      url: `${origin}/authors/daniel-moreau`,
    })
  })

  test('the book form picks an author by name in any case, or creates one', async () => {
    const input = BookFormSchema.parse({
      title: 'Authors Test Book',
      slug: '',
      author: 'kenji arakawa',
      description: 'A book.',
      price: '9.99',
      currency: 'USD',
      topics: '',
      level: 'none',
      status: 'draft',
    })
    const created = await createBook(database.db, admin.actor, input)
    if (created.outcome !== 'saved') throw new Error(created.outcome)
    const kenji = await authorNamed('Kenji Arakawa')
    const [row] = await database.db.select().from(books).where(eq(books.id, created.book.id))
    expect(row).toMatchObject({ authorId: kenji.id, author: 'Kenji Arakawa' })

    const updated = await updateBook(database.db, admin.actor, created.book.id, created.book.version, {
      ...input,
      author: 'Grace  New Author',
    })
    if (updated.outcome !== 'saved') throw new Error(updated.outcome)
    const grace = await authorNamed('Grace  New Author')
    expect(grace.slug).toBe('grace-new-author')
    expect((await getAdminBook(database.db, created.book.id))?.author).toBe('Grace  New Author')
  })

  test('renaming an author renames their books and moves their page; the old address redirects; audited', async () => {
    const hana = await authorNamed('Hana Kowalczyk')
    const editArgs = () =>
      routeArgs({
        db: database.db,
        path: `/admin/authors/${hana.id}`,
        cookie: admin.cookie,
        params: { authorId: hana.id },
      })
    const before = await editLoader(editArgs())
    expect(before.author.name).toBe('Hana Kowalczyk')

    const saved = (await thrownBy(() =>
      editAction(
        post(
          `/admin/authors/${hana.id}`,
          { authorId: hana.id },
          new URLSearchParams({
            name: 'Hana K. Kowalczyk',
            bio: 'Hana writes about **Django**.',
            version: String(before.author.version),
          }),
        ),
      ),
    )) as Response
    expect(saved.status).toBe(303)
    expect(saved.headers.get('Location')).toBe(`/admin/authors/${hana.id}?saved=1`)

    const [book] = await database.db
      .select({ author: books.author })
      .from(books)
      .where(eq(books.slug, 'django-framework'))
    expect(book!.author).toBe('Hana K. Kowalczyk')
    const page = await showAuthor('hana-k-kowalczyk')
    expect(page.author.name).toBe('Hana K. Kowalczyk')
    const moved = (await thrownBy(() => showAuthor('hana-kowalczyk'))) as Response
    expect(moved.status).toBe(301)
    expect(moved.headers.get('Location')).toBe('/authors/hana-k-kowalczyk')

    const { rows } = await listAuditLog(database.db, { entity: { type: 'author', id: hana.id } })
    expect(rows[0]).toMatchObject({
      action: 'author.update',
      actorEmail: admin.email,
      before: expect.objectContaining({ name: 'Hana Kowalczyk', slug: 'hana-kowalczyk' }),
      after: expect.objectContaining({ name: 'Hana K. Kowalczyk', slug: 'hana-k-kowalczyk' }),
    })
  })

  test("an author's name is required and another author's name is refused, next to the field", async () => {
    const daniel = await authorNamed('Daniel Moreau')
    const attempt = async (name: string) =>
      (await editAction(
        post(
          `/admin/authors/${daniel.id}`,
          { authorId: daniel.id },
          new URLSearchParams({ name, bio: '', version: String(daniel.version) }),
        ),
      )) as unknown as { data: { fieldErrors: Record<string, string> }; init: { status: number } }
    const empty = await attempt('   ')
    expect(empty.init.status).toBe(400)
    expect(empty.data.fieldErrors.name).toBe('Please enter the author’s name.')
    const taken = await attempt('PRIYA RAGHUNATHAN')
    expect(taken.init.status).toBe(400)
    expect(taken.data.fieldErrors.name).toBe('Another author is already called “Priya Raghunathan”.')
    expect((await authorNamed('Daniel Moreau')).version).toBe(daniel.version)
  })

  test('a photo is checked by its content: a bad file is refused with a message by the field', async () => {
    const priya = await authorNamed('Priya Raghunathan')
    const form = new FormData()
    form.set('version', String(priya.version))
    form.set(
      'photo',
      new File([new TextEncoder().encode('not an image at all')], 'me.png', { type: 'image/png' }),
    )
    const refused = (await photoAction(
      post(`/admin/authors/${priya.id}/photo`, { authorId: priya.id }, form),
    )) as Response
    expect(refused.status).toBe(303)
    const location = refused.headers.get('Location')!
    expect(location).toBe(`/admin/authors/${priya.id}?photo-error=notAnImage`)
    const shown = await editLoader(
      routeArgs({ db: database.db, path: location, cookie: admin.cookie, params: { authorId: priya.id } }),
    )
    expect(shown.photoError).toMatch(/^This file is not a JPEG, PNG, WebP or AVIF image/)
    expect((await authorNamed('Priya Raghunathan')).photo).toBeNull()
  })

  test('a good photo is resized, stored under authors/, served, and shown on the book page', async () => {
    const priya = await authorNamed('Priya Raghunathan')
    const png = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer()
    const form = new FormData()
    form.set('version', String(priya.version))
    form.set('photo', new File([new Uint8Array(png)], 'me.png', { type: 'image/png' }))
    const saved = (await photoAction(
      post(`/admin/authors/${priya.id}/photo`, { authorId: priya.id }, form),
    )) as Response
    expect(saved.headers.get('Location')).toBe(`/admin/authors/${priya.id}?saved=photo`)
    const { photo } = await authorNamed('Priya Raghunathan')
    expect(photo).toMatchObject({ widths: [128, 384], formats: ['webp', 'jpeg'], width: 600, height: 800 })
    expect(photo!.keyPrefix).toMatch(new RegExp(`^authors/${priya.id}-[0-9a-f]{16}$`))
    const file = `${photo!.keyPrefix.slice('authors/'.length)}-128.webp`
    const served = (await mediaLoader(
      routeArgs({ db: database.db, path: `/media/authors/${file}`, params: { file } }),
    )) as Response
    expect(served.status).toBe(200)
    expect(served.headers.get('Content-Type')).toBe('image/webp')
    const slug = 'javascript-basics-to-advance'
    const page = await bookLoader(routeArgs({ db: database.db, path: `/books/${slug}`, params: { slug } }))
    expect(page.author.photo?.keyPrefix).toBe(photo!.keyPrefix)
    const audit = await listAuditLog(database.db, { entity: { type: 'author', id: priya.id } })
    expect(audit.rows[0]?.action).toBe('author.photo')
  })

  test('the back office lists authors by name, found by part of it', async () => {
    const list = await listLoader(
      routeArgs({ db: database.db, path: '/admin/authors?q=okaf', cookie: admin.cookie }),
    )
    expect(list.authors.map((author) => author.name)).toEqual(['Marisol Okafor'])
    expect(list.authors[0]?.bookCount).toBe(1)
  })

  test('the sitemap lists the pages of authors with a published book', async () => {
    const index = await sitemapIndexXml(database.db, origin)
    expect(index).toContain(`<loc>${origin}/sitemaps/authors-1.xml</loc>`)
    const xml = (await authorSitemapXml(database.db, origin, 1))!
    expect(xml).toContain(`<loc>${origin}/authors/marisol-okafor</loc>`)
    expect(xml).toContain(`<loc>${origin}/authors/lucia-ferreira</loc>`)
    expect(xml).not.toContain('no-books-yet')
    expect(await authorSitemapXml(database.db, origin, 2)).toBeNull()
    const [draftOnly] = await database.db
      .select({ slug: authors.slug })
      .from(authors)
      .where(and(eq(authors.name, 'Grace  New Author')))
    expect(xml).not.toContain(`/authors/${draftOnly!.slug}<`)
  })
})
