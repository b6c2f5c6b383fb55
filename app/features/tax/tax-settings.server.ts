/**
 * The owner's tax settings (decision 038), stored beside the store's settings under the key 'tax': whether the
 * catalogue's prices include tax (the default: buyers pay the price shown, whatever their country), and the
 * seller's own country and VAT number (invoices print them; reverse charge applies to an EU business buyer of
 * another country than the seller's).
 */
import { eq, sql } from 'drizzle-orm'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { storeSettings } from '#app/server/db/schema/index.server.ts'
import { isCountryCode } from './countries.ts'

const TAX_SETTINGS_KEY = 'tax'

export type TaxSettings = {
  pricesIncludeTax: boolean
  /** null: not set (invoices then say the seller's country is not given). */
  sellerCountry: string | null
  sellerVatNumber: string
}

export const defaultTaxSettings: TaxSettings = {
  pricesIncludeTax: true,
  sellerCountry: null,
  sellerVatNumber: '',
}

/** Read leniently, as the store's settings are: a missing or damaged field is its default. */
const StoredTaxSettingsSchema = z.object({
  pricesIncludeTax: z.boolean().catch(defaultTaxSettings.pricesIncludeTax),
  sellerCountry: z.string().refine(isCountryCode).nullable().catch(defaultTaxSettings.sellerCountry),
  sellerVatNumber: z.string().max(20).catch(defaultTaxSettings.sellerVatNumber),
})

export async function getTaxSettings(db: Db | Tx): Promise<TaxSettings> {
  const [row] = await db
    .select({ value: storeSettings.value })
    .from(storeSettings)
    .where(eq(storeSettings.key, TAX_SETTINGS_KEY))
  const value = row?.value
  return StoredTaxSettingsSchema.parse(value && typeof value === 'object' ? value : {})
}

/** Saves the tax settings (whole), audited. */
export async function saveTaxSettings(db: Db, actor: Actor, settings: TaxSettings): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await getTaxSettings(tx)
    await tx
      .insert(storeSettings)
      .values({ key: TAX_SETTINGS_KEY, value: settings })
      .onConflictDoUpdate({
        target: storeSettings.key,
        set: { value: settings, version: sql`${storeSettings.version} + 1`, updatedAt: new Date() },
      })
    await recordAudit(tx, {
      actor,
      action: 'tax-settings.update',
      entityType: 'settings',
      entityId: TAX_SETTINGS_KEY,
      before,
      after: settings,
    })
  })
}
