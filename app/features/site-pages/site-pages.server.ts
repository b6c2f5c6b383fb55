import { eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { parseMarkdown, type Block, type Inline } from '#app/features/catalog/markdown.ts'
import type { StoreSettings } from '#app/features/settings/store-settings.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { sitePages } from '#app/server/db/schema/index.server.ts'
import { firstFieldErrors } from '#app/server/form.server.ts'
import { defaultPageBodies } from './default-pages.ts'
import { SITE_PAGE_LIMITS, SITE_PAGES, type SitePageSlug } from './site-pages.ts'

export type SitePage = {
  slug: SitePageSlug
  title: string
  description: string
  /** The Markdown as the owner wrote it, placeholders unfilled. */
  body: string
  /** 0: never edited, the starting text. */
  version: number
  updatedAt: Date | null
}

function pageInfo(slug: SitePageSlug) {
  return SITE_PAGES.find((page) => page.slug === slug)!
}

/** A site page as the owner saved it, or its starting text. */
export async function getSitePage(db: Db, slug: SitePageSlug): Promise<SitePage> {
  const [row] = await db.select().from(sitePages).where(eq(sitePages.slug, slug))
  const info = pageInfo(slug)
  return row
    ? {
        slug,
        title: row.title,
        description: info.description,
        body: row.body,
        version: row.version,
        updatedAt: row.updatedAt,
      }
    : {
        slug,
        title: info.title,
        description: info.description,
        body: defaultPageBodies[slug],
        version: 0,
        updatedAt: null,
      }
}

/** Every site page, in the footer's order, with whether the owner has edited it. */
export async function listSitePages(db: Db): Promise<SitePage[]> {
  const rows = await db.select().from(sitePages)
  return SITE_PAGES.map((info) => {
    const row = rows.find((candidate) => candidate.slug === info.slug)
    return row
      ? { ...info, body: row.body, title: row.title, version: row.version, updatedAt: row.updatedAt }
      : { ...info, body: defaultPageBodies[info.slug], version: 0, updatedAt: null }
  })
}

/** What a placeholder shows until the owner has set its setting: honest, never an invented identity. */
export const UNSET = {
  legalName: '[set your legal name in the back office]',
  postalAddress: '[set your postal address in the back office]',
  contactEmail: '[set your contact email in the back office]',
} as const

/**
 * The page's Markdown parsed into the tree the page renders (every text escaped by React; markdown.ts keeps only
 * safe links), then the placeholders in its texts filled in from the settings: as plain text, so that a setting
 * can never become markup; the contact email as a mailto link (outside another link).
 */
export function renderSitePageBody(body: string, settings: StoreSettings): Block[] {
  const address = settings.postalAddress
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(', ')
  const values: Record<string, string> = {
    storeName: settings.storeName,
    legalName: settings.legalName || UNSET.legalName,
    postalAddress: address || UNSET.postalAddress,
    contactEmail: settings.contactEmail || UNSET.contactEmail,
  }
  const fill = (inlines: Inline[], inLink: boolean): Inline[] =>
    inlines.flatMap((inline): Inline[] => {
      if (inline.type === 'code') return [inline]
      if (inline.type !== 'text')
        return [{ ...inline, children: fill(inline.children, inline.type === 'link' || inLink) }]
      return inline.text.split(/(\{\{\w+\}\})/).flatMap((part): Inline[] => {
        if (part === '') return []
        const name = /^\{\{(\w+)\}\}$/.exec(part)?.[1]
        if (name === undefined || !(name in values)) return [{ type: 'text', text: part }]
        if (name === 'contactEmail' && settings.contactEmail && !inLink)
          return [
            {
              type: 'link',
              href: `mailto:${settings.contactEmail}`,
              children: [{ type: 'text', text: settings.contactEmail }],
            },
          ]
        return [{ type: 'text', text: values[name]! }]
      })
    })
  return parseMarkdown(body).map((block) =>
    block.type === 'list'
      ? { ...block, items: block.items.map((item) => fill(item, false)) }
      : { ...block, children: fill(block.children, false) },
  )
}

const text = (label: string, max: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : value),
    z
      .string({ error: `Please enter the ${label}.` })
      .min(1, `Please enter the ${label}.`)
      .max(max, `The ${label} has at most ${max.toLocaleString('en')} characters.`),
  )

const SitePageFormSchema = z.object({
  title: text('title', SITE_PAGE_LIMITS.titleMax),
  body: text('text', SITE_PAGE_LIMITS.bodyMax),
  version: z.coerce.number().int().min(0),
})

const pageFields = ['title', 'body'] as const
export type SitePageField = (typeof pageFields)[number]
export type SitePageFormValues = Partial<Record<SitePageField, string>>
export type SitePageFieldErrors = Partial<Record<SitePageField | 'form', string>>

export function parseSitePageForm(
  form: FormData,
):
  | { ok: true; input: { title: string; body: string }; version: number }
  | { ok: false; values: SitePageFormValues; fieldErrors: SitePageFieldErrors } {
  const values: SitePageFormValues = {}
  for (const field of pageFields) {
    const value = form.get(field)
    if (typeof value === 'string') values[field] = value
  }
  const parsed = SitePageFormSchema.safeParse({ ...values, version: form.get('version') })
  if (parsed.success)
    return {
      ok: true,
      input: { title: parsed.data.title, body: parsed.data.body },
      version: parsed.data.version,
    }
  const fieldErrors: SitePageFieldErrors = firstFieldErrors(parsed.error, pageFields)
  if (parsed.error.issues.some((issue) => issue.path[0] === 'version'))
    fieldErrors.form = 'This form could not be read: please reload the page.'
  return { ok: false, values, fieldErrors }
}

/**
 * Saves a page the admin edited from `version` (0: the starting text), with the audit entry 'page.update' in the
 * same transaction. When another admin saved it meanwhile, nothing is written.
 */
export async function saveSitePage(
  db: Db,
  actor: Actor,
  slug: SitePageSlug,
  version: number,
  input: { title: string; body: string },
): Promise<{ outcome: 'saved' } | { outcome: 'conflict' }> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(sitePages).where(eq(sitePages.slug, slug)).for('update')
    if ((row?.version ?? 0) !== version) return { outcome: 'conflict' as const }
    const before = row
      ? { title: row.title, body: row.body }
      : { title: pageInfo(slug).title, body: defaultPageBodies[slug] }
    if (row) {
      await tx
        .update(sitePages)
        .set({ ...input, version: sql`${sitePages.version} + 1` })
        .where(eq(sitePages.slug, slug))
    } else {
      const inserted = await tx
        .insert(sitePages)
        .values({ slug, ...input, version: 1 })
        .onConflictDoNothing()
        .returning({ slug: sitePages.slug })
      if (inserted.length === 0) return { outcome: 'conflict' as const }
    }
    await recordAudit(tx, {
      actor,
      action: 'page.update',
      entityType: 'site-page',
      entityId: slug,
      before,
      after: input,
    })
    return { outcome: 'saved' as const }
  })
}
