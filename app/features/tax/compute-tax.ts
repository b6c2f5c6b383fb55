/**
 * The one tax computation (issue 31, decision 038): each line's price as priced by features/pricing (after its
 * coupon), the rate of the buyer's country, and whether the owner's prices include tax, give each line's net,
 * tax and gross in integer cents. Checkout stores what this returns on the order's lines; receipts, invoices,
 * refunds and the accounts read those and never compute tax again.
 *
 * The rules:
 * 1. Tax is computed per line, then summed: an invoice shows each line's net, rate and tax, and its totals are
 *    the sums of what it shows (never a total taxed again).
 * 2. Prices that include tax (the default): the line's price is its gross; its tax is price × rate / (1 + rate),
 *    and its net is the price less the tax. The buyer pays the same price in every country.
 * 3. Prices before tax: the line's price is its net; its tax is price × rate, added.
 * 4. Rounding: to the nearest cent, halves up (€9.99 at 19 % before tax: 189.81 → 190 cents). Prices are never
 *    negative, so 'up' is away from zero.
 * 5. A reverse-charged line (an EU business buyer with a valid VAT number) has rate 0: the buyer accounts for
 *    the tax. With prices that include tax it is sold at the full price, as the same eBook to a consumer of a
 *    country with a 0 % rate is (the store does not lower prices for businesses).
 */
export type TaxMode = 'inclusive' | 'exclusive'

export type TaxedLine = {
  /** The rate in basis points: 1900 = 19 %. */
  rateBp: number
  netCents: number
  taxCents: number
  /** What the buyer pays for the line. */
  grossCents: number
}

export type TaxedLines = {
  lines: TaxedLine[]
  netCents: number
  taxCents: number
  grossCents: number
}

/** a / b rounded to the nearest integer, halves up, for a ≥ 0 and b > 0 (integers: exact). */
function divideRoundingHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator))
}

export function taxLine(priceCents: number, rateBp: number, mode: TaxMode): TaxedLine {
  if (!Number.isSafeInteger(priceCents) || priceCents < 0) throw new RangeError(`bad price ${priceCents}`)
  if (!Number.isSafeInteger(rateBp) || rateBp < 0 || rateBp > 10_000)
    throw new RangeError(`bad rate ${rateBp}`)
  if (mode === 'inclusive') {
    const taxCents = divideRoundingHalfUp(priceCents * rateBp, 10_000 + rateBp)
    return { rateBp, netCents: priceCents - taxCents, taxCents, grossCents: priceCents }
  }
  const taxCents = divideRoundingHalfUp(priceCents * rateBp, 10_000)
  return { rateBp, netCents: priceCents, taxCents, grossCents: priceCents + taxCents }
}

export function taxLines(pricesCents: readonly number[], rateBp: number, mode: TaxMode): TaxedLines {
  const lines = pricesCents.map((price) => taxLine(price, rateBp, mode))
  const sum = (pick: (line: TaxedLine) => number) => lines.reduce((total, line) => total + pick(line), 0)
  return {
    lines,
    netCents: sum((line) => line.netCents),
    taxCents: sum((line) => line.taxCents),
    grossCents: sum((line) => line.grossCents),
  }
}

/** '19 %', '5.5 %', '0 %': a rate as receipts and invoices print it. */
export function formatRate(rateBp: number): string {
  return `${(rateBp / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })} %`
}
