/**
 * Tax on a checkout's lines (decision 038): the rate of the buyer's billing country at this moment, the owner's
 * setting of whether prices include tax, and reverse charge, applied to each line's price by compute-tax.ts.
 * Checkout stores the result on the order and its lines.
 */
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { countryName } from './countries.ts'
import { taxLines, type TaxedLine } from './compute-tax.ts'
import type { EvidenceStatus } from './evidence.ts'
import { findTaxRate } from './tax-rates.server.ts'
import { getTaxSettings } from './tax-settings.server.ts'

/** Where the buyer is, as checkout judged it (evidence.ts), and their VAT number if reverse charge applies. */
export type BuyerTax = {
  billingCountry: string
  ipCountry: string | null
  /** How the evidence was judged (evidence.ts); null on a page that only shows the prices. */
  evidenceStatus: EvidenceStatus | null
  /** A valid EU VAT number of another country than the seller's: the buyer accounts for the tax. */
  reverseChargeVatNumber?: string | null
  /** Who the invoice is made out to, when the buyer said (a name or company, and a postal address). */
  billingName?: string | null
  billingAddress?: string | null
}

export type CheckoutTax = {
  /** The country whose tax was charged; null where the store charges none. */
  country: string | null
  /** Its name in English, as pages print it (named on the server: a browser may name it otherwise). */
  countryName: string | null
  /** 'VAT', 'GST'…; '' where none is charged. */
  taxName: string
  rateBp: number
  pricesIncludeTax: boolean
  reverseCharge: boolean
  buyer: BuyerTax | null
  lines: TaxedLine[]
  netCents: number
  taxCents: number
  grossCents: number
}

/**
 * Each of `pricesCents` (the lines as priced, in order) taxed for `buyer` at `at`. Without a buyer (a page that
 * does not know them yet) no tax is charged: the prices are what is paid.
 */
export async function taxCheckout(
  db: Db | Tx,
  pricesCents: readonly number[],
  buyer: BuyerTax | null,
  at: Date,
): Promise<CheckoutTax> {
  const settings = await getTaxSettings(db)
  const found = buyer ? await findTaxRate(db, buyer.billingCountry, at) : null
  const reverseCharge = Boolean(found && buyer?.reverseChargeVatNumber)
  const rateBp = found && !reverseCharge ? found.rateBp : 0
  const mode = settings.pricesIncludeTax ? 'inclusive' : 'exclusive'
  const taxed = taxLines(pricesCents, rateBp, mode)
  return {
    country: found?.country ?? null,
    countryName: found ? countryName(found.country) : null,
    taxName: found?.taxName ?? '',
    rateBp,
    pricesIncludeTax: settings.pricesIncludeTax,
    reverseCharge,
    buyer,
    ...taxed,
  }
}
