import { formatPrice } from '#app/features/catalog/format.ts'
import { formatRate } from '../compute-tax.ts'

/** What a page shows of an order's tax: the figures it carries (features/tax), never computed here. */
export type ShownTax = {
  countryName: string | null
  taxName: string
  rateBp: number
  pricesIncludeTax: boolean
  reverseCharge: boolean
  taxCents: number
}

/**
 * The tax lines of a price summary (a `<dl>` of terms and amounts): tax added before the total when prices are
 * before tax, or the tax the total includes after it; reverse charge said as such. Nothing where no tax is
 * charged.
 */
export function TaxSummary({
  tax,
  currency,
  placement,
}: {
  tax: ShownTax
  currency: string
  placement: 'before-total' | 'after-total'
}) {
  if (!tax.countryName) return null
  if (tax.reverseCharge) {
    return placement === 'after-total' ? (
      <>
        <dt className="text-sm">{tax.taxName}: reverse charge</dt>
        <dd className="text-right text-sm">you account for it</dd>
      </>
    ) : null
  }
  const label = `${tax.taxName} ${formatRate(tax.rateBp)} (${tax.countryName})`
  if (!tax.pricesIncludeTax)
    return placement === 'before-total' ? (
      <>
        <dt>{label}</dt>
        <dd className="text-right">{formatPrice(tax.taxCents, currency)}</dd>
      </>
    ) : null
  return placement === 'after-total' ? (
    <>
      <dt className="text-sm text-slate-600 dark:text-slate-300">Includes {label}</dt>
      <dd className="text-right text-sm text-slate-600 dark:text-slate-300">
        {formatPrice(tax.taxCents, currency)}
      </dd>
    </>
  ) : null
}
