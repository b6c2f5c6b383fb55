/**
 * The back office's tax page (decision 038): the rates the store charges, country by country with their
 * history, a rate added or corrected by the owner, and the tax settings; every change audited.
 */
import { asc, desc, sql } from 'drizzle-orm'
import { z } from 'zod'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { taxRates } from '#app/server/db/schema/index.server.ts'
import { firstFieldErrors } from '#app/server/form.server.ts'
import { countryName, isCountryCode } from './countries.ts'
import { localDate, taxCountry } from './tax-rates.server.ts'
import { shippedTaxRates } from './tax-rates-data.ts'
import type { TaxSettings } from './tax-settings.server.ts'
import { parseVatNumber } from './vat-number.ts'

export type TaxRateRow = {
  id: string
  effectiveFrom: string
  ebookRateBp: number
  standardRateBp: number
  note: string
  source: 'shipped' | 'owner'
  updatedAt: Date
}

export type CountryRates = {
  country: string
  name: string
  taxName: string
  timeZone: string
  /** The row in effect today in the country (null: none yet). */
  current: TaxRateRow | null
  /** Every row, newest first (later ones included: a change the owner entered ahead). */
  rows: TaxRateRow[]
}

export async function listTaxRateTable(db: Db, now = new Date()): Promise<CountryRates[]> {
  const rows = await db
    .select({
      id: taxRates.id,
      country: taxRates.country,
      effectiveFrom: taxRates.effectiveFrom,
      ebookRateBp: taxRates.ebookRateBp,
      standardRateBp: taxRates.standardRateBp,
      note: taxRates.note,
      source: taxRates.source,
      updatedAt: taxRates.updatedAt,
    })
    .from(taxRates)
    .orderBy(asc(taxRates.country), desc(taxRates.effectiveFrom))
  return shippedTaxRates
    .map((entry) => {
      const own = rows.filter((row) => row.country === entry.country)
      const today = localDate(now, entry.timeZone)
      return {
        country: entry.country,
        name: countryName(entry.country),
        taxName: entry.taxName,
        timeZone: entry.timeZone,
        current: own.find((row) => row.effectiveFrom <= today) ?? null,
        rows: own,
      }
    })
    .toSorted((a, b) => a.name.localeCompare(b.name, 'en'))
}

/** A percentage as typed ('7', '5.5', '25,5'): basis points, at most two decimals, 0–100 %. */
const PercentSchema = z
  .string()
  .trim()
  .transform((value) => value.replace(',', '.').replace(/\s*%$/, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{1,3}(\.\d{1,2})?$/, 'Type a percentage such as 7 or 5.5 (at most two decimals).')
      .transform((value) => Math.round(Number(value) * 100))
      .refine((bp) => bp <= 10_000, 'A rate is at most 100 %.'),
  )

const RateFormSchema = z.object({
  country: z.string().refine((value) => isCountryCode(value) && Boolean(taxCountry(value)), {
    message: 'Choose one of the countries the store charges tax in.',
  }),
  effectiveFrom: z
    .string()
    .trim()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Type the first day as YYYY-MM-DD.')
    .refine((value) => {
      const date = new Date(`${value}T00:00:00Z`)
      return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
    }, 'That day does not exist.')
    .refine((value) => value >= '2000-01-01' && value <= '2099-12-31', 'Choose a day between 2000 and 2099.'),
  ebookRate: PercentSchema,
  standardRate: PercentSchema,
  note: z.string().trim().max(200, 'At most 200 characters.'),
})

export type RateFormField = keyof z.input<typeof RateFormSchema>
const RATE_FORM_FIELDS: readonly RateFormField[] = [
  'country',
  'effectiveFrom',
  'ebookRate',
  'standardRate',
  'note',
]
export type RateFormErrors = Partial<Record<RateFormField, string>>

/**
 * Adds a country's rates from a day on, or corrects the row of that day (the orders already made keep the
 * rate they were charged: each line stores its own). Audited with the row before and after.
 */
export async function saveTaxRate(
  db: Db,
  actor: Actor,
  form: FormData,
): Promise<{ ok: true; country: string } | { ok: false; errors: RateFormErrors }> {
  const parsed = RateFormSchema.safeParse({
    country: String(form.get('country') ?? ''),
    effectiveFrom: String(form.get('effectiveFrom') ?? ''),
    ebookRate: String(form.get('ebookRate') ?? ''),
    standardRate: String(form.get('standardRate') ?? ''),
    note: String(form.get('note') ?? ''),
  })
  if (!parsed.success) return { ok: false, errors: firstFieldErrors(parsed.error, RATE_FORM_FIELDS) }
  const { country, effectiveFrom, ebookRate, standardRate, note } = parsed.data
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(taxRates)
      .where(sql`${taxRates.country} = ${country} and ${taxRates.effectiveFrom} = ${effectiveFrom}`)
      .for('update')
    const values = { ebookRateBp: ebookRate, standardRateBp: standardRate, note, source: 'owner' as const }
    const [after] = await tx
      .insert(taxRates)
      .values({ country, effectiveFrom, ...values })
      .onConflictDoUpdate({
        target: [taxRates.country, taxRates.effectiveFrom],
        set: { ...values, updatedAt: new Date() },
      })
      .returning()
    await recordAudit(tx, {
      actor,
      action: before ? 'tax-rate.update' : 'tax-rate.create',
      entityType: 'tax-rate',
      entityId: after!.id,
      before,
      after,
    })
  })
  return { ok: true, country }
}

export type SettingsFormErrors = Partial<
  Record<'pricesIncludeTax' | 'sellerCountry' | 'sellerVatNumber', string>
>

/** The tax settings form: prices with or without tax, the seller's country and VAT number. */
export function parseTaxSettingsForm(
  form: FormData,
): { ok: true; settings: TaxSettings } | { ok: false; errors: SettingsFormErrors } {
  const country = String(form.get('sellerCountry') ?? '')
  const vatNumber = String(form.get('sellerVatNumber') ?? '').trim()
  const errors: SettingsFormErrors = {}
  if (country && !isCountryCode(country)) errors.sellerCountry = 'Choose a country from the list.'
  let formatted = vatNumber
  if (vatNumber) {
    if (taxCountry(country)?.scheme === 'EU') {
      const parsed = parseVatNumber(vatNumber, country)
      if (parsed.ok) formatted = parsed.formatted
      else errors.sellerVatNumber = parsed.message
    } else if (!/^[A-Z0-9 .-]{2,20}$/i.test(vatNumber)) {
      errors.sellerVatNumber = 'Type the tax number as it is printed (letters, digits, spaces, dots, dashes).'
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  return {
    ok: true,
    settings: {
      pricesIncludeTax: form.get('pricesIncludeTax') !== 'exclusive',
      sellerCountry: country || null,
      sellerVatNumber: formatted,
    },
  }
}
