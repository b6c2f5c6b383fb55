import { describe, expect } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import type { Block, Inline } from '#app/features/catalog/markdown.ts'
import { saveStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { defaultStoreSettings } from '#app/features/settings/store-settings.ts'
import { action as editAction, loader as editLoader } from '#app/routes/admin/page-edit.tsx'
import { loader as pagesLoader } from '#app/routes/admin/pages.tsx'
import { loader as sitePageLoader, meta as sitePageMeta } from '#app/routes/site-page.tsx'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createReader } from '#harness/factories/buyers.ts'
import { routeArgs } from '#tests/route-args.ts'

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
})

const slugs = ['about', 'contact', 'terms', 'privacy', 'refunds', 'imprint'] as const

function textOf(inlines: Inline[]): string {
  return inlines
    .map((inline) =>
      inline.type === 'text' || inline.type === 'code' ? inline.text : textOf(inline.children),
    )
    .join('')
}
function pageText(blocks: Block[]): string {
  return blocks
    .map((block) => (block.type === 'list' ? block.items.map(textOf).join('\n') : textOf(block.children)))
    .join('\n')
}
function linksOf(blocks: Block[]): string[] {
  const links: string[] = []
  const walk = (inlines: Inline[]) => {
    for (const inline of inlines) {
      if (inline.type === 'link') links.push(inline.href)
      if ('children' in inline) walk(inline.children)
    }
  }
  for (const block of blocks) (block.type === 'list' ? block.items : [block.children]).forEach(walk)
  return links
}

function showPage(slug: string) {
  return sitePageLoader(routeArgs({ db: database.db, path: `/${slug}` }))
}

function postPage(slug: string, values: Record<string, string>, cookie = admin.cookie) {
  return routeArgs({
    db: database.db,
    path: `/admin/pages/${slug}`,
    cookie,
    params: { slug },
    init: { method: 'POST', body: new URLSearchParams(values) },
  })
}

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

describe('site pages', () => {
  test('each page answers at its URL with a starting text that is honest about an unset seller', async () => {
    for (const slug of slugs) {
      const page = await showPage(slug)
      expect(page.slug).toBe(slug)
      expect(page.blocks.length).toBeGreaterThan(0)
    }
    const imprint = pageText((await showPage('imprint')).blocks)
    expect(imprint).toContain('[set your legal name in the back office]')
    expect(imprint).toContain('[set your postal address in the back office]')
    expect(imprint).toContain('[set your contact email in the back office]')
    const privacy = pageText((await showPage('privacy')).blocks)
    for (const fact of [
      'cb_cart',
      'cb_cart_added',
      'cb_theme',
      'better-auth.session_token',
      '400 days',
      'IP address',
      'Stripe',
    ])
      expect(privacy).toContain(fact)
    expect(pageText((await showPage('refunds')).blocks)).toContain('within 14 days')
  })

  test('a page has its title, description and canonical URL', async () => {
    const loaderData = await showPage('refunds')
    const tags = sitePageMeta({
      loaderData,
      location: { search: '?utm=x' },
      matches: [{ id: 'root', loaderData: { publicOrigin: 'https://shop.example' } }],
    } as unknown as Parameters<typeof sitePageMeta>[0])
    expect(tags).toContainEqual({ title: 'Refund policy — CodeBook' })
    expect(tags).toContainEqual({ name: 'description', content: 'When and how a purchase is refunded.' })
    expect(tags).toContainEqual({ tagName: 'link', rel: 'canonical', href: 'https://shop.example/refunds' })
  })

  test('the seller’s identity comes from the settings, escaped', async () => {
    await saveStoreSettings(database.db, admin.actor, 0, {
      ...defaultStoreSettings,
      legalName: 'Ada *Books* Ltd',
      postalAddress: '1 Main Street\nLeeds LS1 1AA',
      contactEmail: 'hello@ada-books.example',
    })
    const page = await showPage('imprint')
    const text = pageText(page.blocks)
    expect(text).toContain('Ada *Books* Ltd')
    expect(text).toContain('1 Main Street, Leeds LS1 1AA')
    expect(text).not.toContain('[set your')
    expect(linksOf(page.blocks)).toContain('mailto:hello@ada-books.example')
  })

  test('anyone but an admin gets 404 on the editor and its action; an unknown page is 404', async () => {
    const reader = await createReader(database.db)
    for (const cookie of [undefined, reader.cookie]) {
      expect(
        (
          await outcome(() =>
            editLoader(
              routeArgs({ db: database.db, path: '/admin/pages/about', cookie, params: { slug: 'about' } }),
            ),
          )
        ).status,
      ).toBe(404)
      expect(
        (
          await outcome(() =>
            editAction(postPage('about', { title: 'Hacked', body: 'x', version: '0' }, cookie ?? '')),
          )
        ).status,
      ).toBe(404)
      expect(
        (await outcome(() => pagesLoader(routeArgs({ db: database.db, path: '/admin/pages', cookie }))))
          .status,
      ).toBe(404)
    }
    expect(
      (
        await outcome(() =>
          editLoader(
            routeArgs({
              db: database.db,
              path: '/admin/pages/blog',
              cookie: admin.cookie,
              params: { slug: 'blog' },
            }),
          ),
        )
      ).status,
    ).toBe(404)
    expect((await showPage('about')).title).toBe('About')
  })

  test('an empty title or text is refused with field messages, and what was typed is kept', async () => {
    const answer = await outcome(() => editAction(postPage('about', { title: ' ', body: '', version: '0' })))
    expect(answer.status).toBe(400)
    expect(answer.data!.fieldErrors).toEqual({
      title: 'Please enter the title.',
      body: 'Please enter the text.',
    })
    const typed = await outcome(() =>
      editAction(postPage('about', { title: 'About us', body: ' ', version: '0' })),
    )
    expect(typed.data!.values.title).toBe('About us')
  })

  test('an admin edits a page: audited, shown at once, rendered safely; a stale save is refused', async () => {
    const loaded = await editLoader(
      routeArgs({
        db: database.db,
        path: '/admin/pages/contact',
        cookie: admin.cookie,
        params: { slug: 'contact' },
      }),
    )
    expect(loaded.version).toBe(0)
    const body = 'Write to {{contactEmail}}.\n\n<script>alert(1)</script> and [a trap](javascript:alert(1)).'
    const saved = await outcome(() =>
      editAction(postPage('contact', { title: 'Get in touch', body, version: '0' })),
    )
    expect(saved).toMatchObject({ status: 303, location: '/admin/pages/contact?saved=1' })

    const page = await showPage('contact')
    expect(page.title).toBe('Get in touch')
    expect(pageText(page.blocks)).toContain('<script>alert(1)</script>')
    expect(linksOf(page.blocks)).toEqual(['mailto:hello@ada-books.example'])

    const { rows } = await listAuditLog(database.db, { entity: { type: 'site-page', id: 'contact' } })
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      action: 'page.update',
      actorEmail: admin.email,
      before: { title: 'Contact' },
      after: { title: 'Get in touch', body },
    })

    const stale = await outcome(() =>
      editAction(postPage('contact', { title: 'Older', body: 'Older', version: '0' })),
    )
    expect(stale.status).toBe(409)
    expect(stale.data!.values.title).toBe('Older')
    expect((await showPage('contact')).title).toBe('Get in touch')

    const list = await pagesLoader(routeArgs({ db: database.db, path: '/admin/pages', cookie: admin.cookie }))
    expect(list.pages.map((listed) => listed.slug)).toEqual([...slugs])
    expect(list.pages.find((listed) => listed.slug === 'contact')).toMatchObject({ title: 'Get in touch' })
    expect(list.pages.find((listed) => listed.slug === 'about')!.updatedAt).toBeNull()
  })
})
