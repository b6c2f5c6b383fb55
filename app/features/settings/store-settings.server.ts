import { eq, sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { storeSettings } from '#app/server/db/schema/index.server.ts'
import { firstFieldErrors } from '#app/server/form.server.ts'
import {
  defaultStoreSettings,
  SETTINGS_LIMITS as LIMITS,
  settingsFields,
  SOCIAL_NETWORKS,
  TESTIMONIAL_COUNT,
  testimonialField,
  type SettingsFieldErrors,
  type SettingsFormValues,
  type Seller,
  type StoreLogo,
  type StoreSettings,
} from './store-settings.ts'
import { logoFileKeys, logoFilePattern } from './logo.server.ts'

const SETTINGS_KEY = 'store'

/**
 * The stored document, read leniently: a field that is missing or no longer valid falls back to its default on
 * its own, so a fresh store (no row) and an old row both read as complete settings and nothing saved is lost.
 */
const defaults = defaultStoreSettings
const StoredSettingsSchema = z.object({
  storeName: z.string().min(1).catch(defaults.storeName),
  logo: z
    .object({
      webp: z.string().regex(logoFilePattern),
      png: z.string().regex(logoFilePattern),
      width: z.number().int().positive(),
      height: z.number().int().positive(),
    })
    .nullable()
    .catch(defaults.logo),
  legalName: z.string().catch(defaults.legalName),
  postalAddress: z.string().catch(defaults.postalAddress),
  contactEmail: z.string().catch(defaults.contactEmail),
  social: z
    .object(
      Object.fromEntries(SOCIAL_NETWORKS.map(({ key }) => [key, z.string().catch('')])) as Record<
        (typeof SOCIAL_NETWORKS)[number]['key'],
        z.ZodCatch<z.ZodString>
      >,
    )
    .catch(defaults.social),
  heroText: z.string().min(1).catch(defaults.heroText),
  testimonials: z
    .array(z.object({ headline: z.string(), quote: z.string(), name: z.string(), role: z.string() }))
    .length(TESTIMONIAL_COUNT)
    .catch(defaults.testimonials),
})

export function parseStoredSettings(value: unknown): StoreSettings {
  return StoredSettingsSchema.parse(value && typeof value === 'object' ? value : {})
}

// ---------------------------------------------------------------------------------------------------------------
// Reading, cached: every page's footer needs the settings.

/**
 * As the catalogue lists (catalog-cache.server.ts): read at most once per TTL per database, by one query however
 * many requests want it meanwhile; a save through this process clears it at once, another instance's save shows
 * within the TTL (the shared page cache's own TTL is the same 10 s).
 */
const TTL_MS = 10_000
type Loaded = { settings: StoreSettings; version: number }
const caches = new WeakMap<Db, LRUCache<'store', Loaded, Db>>()

/**
 * The settings as saved, uncached: what the back office edits, so that a save after another instance's is
 * compared with that save's version, not with one this process kept for 10 s (a 409 on every retry).
 */
export async function readEditableStoreSettings(db: Db): Promise<Loaded> {
  const [row] = await db.select().from(storeSettings).where(eq(storeSettings.key, SETTINGS_KEY))
  return { settings: parseStoredSettings(row?.value), version: row?.version ?? 0 }
}

/** The store's settings and their version (0 before the first save), through the cache. */
function readCachedStoreSettings(db: Db): Promise<Loaded> {
  let cache = caches.get(db)
  if (!cache) {
    cache = new LRUCache<'store', Loaded, Db>({
      max: 1,
      ttl: TTL_MS,
      ignoreFetchAbort: true,
      fetchMethod: async (_key, _stale, { context }) => readEditableStoreSettings(context),
    })
    caches.set(db, cache)
  }
  return cache.forceFetch('store', { context: db })
}

export async function readStoreSettings(db: Db): Promise<StoreSettings> {
  return (await readCachedStoreSettings(db)).settings
}

/**
 * The seller as receipts and mails name them, read uncached in the caller's database or transaction (a mail
 * queued in a purchase's transaction names the seller as saved at that moment; PGlite has one connection, so
 * reading outside the transaction would wait for it).
 */
export async function readSeller(db: Db | Tx): Promise<Seller> {
  const { storeName, legalName, postalAddress, contactEmail } = (await readEditableStoreSettings(db as Db))
    .settings
  return { storeName, legalName, postalAddress, contactEmail }
}

/** The logo's files the settings name, if any (what a backup must hold and the sweep of old files keeps). */
export async function listLogoFilesInUse(db: Db): Promise<string[]> {
  const { logo } = (await readEditableStoreSettings(db)).settings
  return logo ? logoFileKeys(logo) : []
}

export function invalidateStoreSettings(db: Db): void {
  caches.get(db)?.clear()
}

// ---------------------------------------------------------------------------------------------------------------
// The back office's form.

const trimmed = (value: unknown) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : value)

function required(label: string, max: number) {
  return z.preprocess(
    trimmed,
    z
      .string({ error: `Please enter the ${label}.` })
      .min(1, `Please enter the ${label}.`)
      .max(max, `The ${label} has at most ${max} characters.`),
  )
}

function optional(label: string, max: number) {
  return z.preprocess(
    (value) => trimmed(value ?? ''),
    z.string().max(max, `The ${label} has at most ${max} characters.`),
  )
}

function socialLink(label: string) {
  return z.preprocess(
    (value) => trimmed(value ?? ''),
    z
      .string()
      .max(LIMITS.socialUrlMax, `A link has at most ${LIMITS.socialUrlMax} characters.`)
      .refine(
        (url) => url === '' || (URL.canParse(url) && new URL(url).protocol === 'https:'),
        `The ${label} link is a full https:// address, or empty to show none.`,
      ),
  )
}

const formShape: Record<string, z.ZodType> = {
  storeName: required('store name', LIMITS.storeNameMax),
  legalName: optional('legal name', LIMITS.legalNameMax),
  postalAddress: optional('postal address', LIMITS.postalAddressMax),
  contactEmail: z.preprocess(
    (value) => trimmed(value ?? ''),
    z
      .string()
      .max(LIMITS.contactEmailMax, 'That email address is too long.')
      .refine(
        (email) => email === '' || z.email().safeParse(email).success,
        'Please enter an email address like owner@example.com, or leave it empty.',
      ),
  ),
  heroText: required('home page paragraph', LIMITS.heroTextMax),
}
for (const { key, label } of SOCIAL_NETWORKS) formShape[key] = socialLink(label)
for (let index = 0; index < TESTIMONIAL_COUNT; index++) {
  const which = `testimonial ${index + 1}`
  formShape[testimonialField(index, 'headline')] = required(`${which}'s headline`, LIMITS.headlineMax)
  formShape[testimonialField(index, 'quote')] = required(`${which}'s quote`, LIMITS.quoteMax)
  formShape[testimonialField(index, 'name')] = required(`${which}'s name`, LIMITS.personNameMax)
  formShape[testimonialField(index, 'role')] = required(`${which}'s role`, LIMITS.roleMax)
}
const SettingsFormSchema = z.object(formShape)

/** The posted settings as typed (text only). */
function settingsFormValuesOf(form: FormData): SettingsFormValues {
  const values: SettingsFormValues = {}
  for (const field of settingsFields) {
    const value = form.get(field)
    if (typeof value === 'string') values[field] = value
  }
  return values
}

/** What the form's text fields set: everything but the logo, which is uploaded (or removed) beside them. */
export type EditedSettings = Omit<StoreSettings, 'logo'>

/** What a save does to the logo. */
export type LogoChange = { kind: 'keep' } | { kind: 'set'; logo: StoreLogo } | { kind: 'remove' }

/** Reads and checks the posted settings form: the settings, or the values as typed with an error per field. */
export function parseSettingsForm(
  form: FormData,
):
  | { ok: true; settings: EditedSettings; version: number; values: SettingsFormValues }
  | { ok: false; values: SettingsFormValues; fieldErrors: SettingsFieldErrors } {
  const values = settingsFormValuesOf(form)
  const version = Number(form.get('version'))
  const parsed = SettingsFormSchema.safeParse(values)
  if (!parsed.success)
    return { ok: false, values, fieldErrors: firstFieldErrors(parsed.error, settingsFields) }
  if (!Number.isSafeInteger(version) || version < 0)
    return {
      ok: false,
      values,
      fieldErrors: { form: 'This form could not be read: please reload the page.' },
    }
  const field = (name: string) => parsed.data[name] as string
  return {
    ok: true,
    version,
    values,
    settings: {
      storeName: field('storeName'),
      legalName: field('legalName'),
      postalAddress: field('postalAddress'),
      contactEmail: field('contactEmail'),
      social: Object.fromEntries(
        SOCIAL_NETWORKS.map(({ key }) => [key, field(key)]),
      ) as StoreSettings['social'],
      heroText: field('heroText'),
      testimonials: Array.from({ length: TESTIMONIAL_COUNT }, (_, index) => ({
        headline: field(testimonialField(index, 'headline')),
        quote: field(testimonialField(index, 'quote')),
        name: field(testimonialField(index, 'name')),
        role: field(testimonialField(index, 'role')),
      })),
    },
  }
}

/**
 * Saves the settings an admin edited from `version` (0: the defaults, never saved), with the audit entry
 * 'settings.update' in the same transaction. When another admin saved meanwhile, nothing is written. A saved
 * change of logo answers the logo it replaced, whose files the caller may delete.
 */
export async function saveStoreSettings(
  db: Db,
  actor: Actor,
  version: number,
  edited: EditedSettings,
  logoChange: LogoChange = { kind: 'keep' },
): Promise<{ outcome: 'saved'; version: number; replacedLogo: StoreLogo | null } | { outcome: 'conflict' }> {
  const result = await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(storeSettings)
      .where(eq(storeSettings.key, SETTINGS_KEY))
      .for('update')
    const currentVersion = row?.version ?? 0
    if (currentVersion !== version) return { outcome: 'conflict' as const }
    const before = parseStoredSettings(row?.value)
    const logo = logoChange.kind === 'keep' ? before.logo : logoChange.kind === 'set' ? logoChange.logo : null
    const settings: StoreSettings = { ...edited, logo }
    const replacedLogo = before.logo && before.logo.png !== logo?.png ? before.logo : null
    if (row) {
      await tx
        .update(storeSettings)
        .set({ value: settings, version: sql`${storeSettings.version} + 1` })
        .where(eq(storeSettings.key, SETTINGS_KEY))
    } else {
      // Two first saves at once: the second finds the first's row and is a conflict, not an overwrite.
      const inserted = await tx
        .insert(storeSettings)
        .values({ key: SETTINGS_KEY, value: settings, version: 1 })
        .onConflictDoNothing()
        .returning({ key: storeSettings.key })
      if (inserted.length === 0) return { outcome: 'conflict' as const }
    }
    await recordAudit(tx, {
      actor,
      action: 'settings.update',
      entityType: 'store-settings',
      entityId: SETTINGS_KEY,
      before,
      after: settings,
    })
    return { outcome: 'saved' as const, version: currentVersion + 1, replacedLogo }
  })
  invalidateStoreSettings(db)
  return result
}
