/**
 * An invoice or credit note as issued (issue 31, decision 037): everything printed on it, kept as a JSON snapshot
 * beside its PDF and never changed. Money is integer cents. Nothing here computes a tax: a document carries the
 * net, rate and tax each line of the order was stored with (features/tax); the helpers below only add them up
 * and check that the sums agree.
 */

export type InvoiceKind = 'invoice' | 'credit_note'

/** The seller's legal identity (store settings) as it was on the day of issue. */
export type InvoiceSeller = {
  legalName: string
  /** Lines separated by '\n'. */
  postalAddress: string
  vatNumber: string | null
  email: string
}

export type InvoiceBuyer = {
  /** May be '' (a guest's order; an invoice under €250 need not name the buyer, Art. 238 of the VAT Directive). */
  name: string
  email: string
  /** ISO 3166-1 alpha-2, upper case. */
  country: string
  /** Lines separated by '\n'. */
  address: string | null
  /** Required when the reverse charge applies (Art. 226(4)). */
  vatNumber: string | null
}

export type InvoiceLine = {
  title: string
  quantity: 1
  netCents: number
  /** Basis points: 1900 = 19 %. */
  taxRateBp: number
  taxCents: number
  /** netCents + taxCents. */
  grossCents: number
  /** A credit note's line: the index of the invoice's line it credits. */
  creditsLine?: number
}

export type InvoiceTotals = { netCents: number; taxCents: number; grossCents: number }
export type TaxAtRate = { rateBp: number; netCents: number; taxCents: number }

export type InvoiceDocument = {
  kind: InvoiceKind
  /** 'INV-2026-000042', 'CN-2026-000003'. */
  number: string
  /** The moment of issue, ISO 8601 in UTC. */
  issuedAt: string
  /** The date of issue as printed: the calendar day of `issuedAt` in the seller's time zone ('2027-01-01'). */
  issueDate: string
  seller: InvoiceSeller
  buyer: InvoiceBuyer
  currency: string
  /** The order's prices were shown with VAT included (B2C in the EU) rather than added to them. */
  pricesIncludeTax: boolean
  lines: InvoiceLine[]
  totals: InvoiceTotals
  /** One row per rate, highest rate first. */
  taxByRate: TaxAtRate[]
  reverseCharge: boolean
  /** Printed below the totals, in order; the reverse charge sentence is one of them when it applies. */
  notes: string[]
  orderNumber: number
  /** A credit note: the number of the invoice it credits. */
  creditsInvoiceNumber?: string
}

export const REVERSE_CHARGE_NOTE =
  'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC).'

/** 'INV-2026-000042': at least six digits, more when a year runs past 999,999. */
export function formatInvoiceNumber(series: string, year: number, sequence: number): string {
  return `${series}-${year}-${String(sequence).padStart(6, '0')}`
}

/** The totals and the VAT by rate of some lines: sums only. */
export function summarizeLines(lines: readonly InvoiceLine[]): {
  totals: InvoiceTotals
  taxByRate: TaxAtRate[]
} {
  const totals = { netCents: 0, taxCents: 0, grossCents: 0 }
  const byRate = new Map<number, TaxAtRate>()
  for (const line of lines) {
    totals.netCents += line.netCents
    totals.taxCents += line.taxCents
    totals.grossCents += line.grossCents
    const rate = byRate.get(line.taxRateBp) ?? { rateBp: line.taxRateBp, netCents: 0, taxCents: 0 }
    rate.netCents += line.netCents
    rate.taxCents += line.taxCents
    byRate.set(line.taxRateBp, rate)
  }
  return { totals, taxByRate: [...byRate.values()].sort((a, b) => b.rateBp - a.rateBp) }
}

const isCents = (value: number) => Number.isSafeInteger(value) && value >= 0

/**
 * What is wrong with a document about to be issued ([] when nothing): an invoice is numbered and immutable, so
 * one whose sums disagree, or that is missing what the law asks of it, is never issued.
 */
export function documentProblems(
  document: Omit<InvoiceDocument, 'kind' | 'number' | 'issuedAt' | 'issueDate'>,
): string[] {
  const problems: string[] = []
  const { seller, buyer, lines } = document
  if (!seller.legalName.trim()) problems.push("the seller's legal name is not set")
  if (!seller.postalAddress.trim()) problems.push("the seller's postal address is not set")
  if (!/^[A-Z]{2}$/.test(buyer.country)) problems.push(`the buyer's country '${buyer.country}' is not ISO-2`)
  if (!/^[A-Z]{3}$/.test(document.currency))
    problems.push(`the currency '${document.currency}' is not ISO 4217`)
  if (!Number.isSafeInteger(document.orderNumber)) problems.push('the order number is not a whole number')
  if (lines.length === 0) problems.push('there are no lines')
  lines.forEach((line, index) => {
    const name = `line ${index + 1} ('${line.title}')`
    if (!line.title.trim()) problems.push(`line ${index + 1} has no title`)
    if (line.quantity !== 1) problems.push(`${name}: the quantity is not 1`)
    if (![line.netCents, line.taxCents, line.grossCents].every(isCents))
      problems.push(`${name}: amounts must be whole cents, not negative`)
    if (!Number.isSafeInteger(line.taxRateBp) || line.taxRateBp < 0 || line.taxRateBp > 10_000)
      problems.push(`${name}: the rate ${line.taxRateBp} is not in basis points (0–10000)`)
    if (line.netCents + line.taxCents !== line.grossCents)
      problems.push(`${name}: net ${line.netCents} + tax ${line.taxCents} ≠ gross ${line.grossCents}`)
  })
  const sums = summarizeLines(lines)
  const { totals } = document
  if (
    totals.netCents !== sums.totals.netCents ||
    totals.taxCents !== sums.totals.taxCents ||
    totals.grossCents !== sums.totals.grossCents
  )
    problems.push(
      `the totals (${totals.netCents} + ${totals.taxCents} = ${totals.grossCents}) are not the lines' sums (${sums.totals.netCents} + ${sums.totals.taxCents} = ${sums.totals.grossCents})`,
    )
  const rates = (rows: readonly TaxAtRate[]) =>
    JSON.stringify(
      rows
        .map(({ rateBp, netCents, taxCents }) => [rateBp, netCents, taxCents])
        .sort((a, b) => b[0]! - a[0]!),
    )
  if (rates(document.taxByRate) !== rates(sums.taxByRate))
    problems.push('the VAT by rate is not the sums of the lines at each rate')
  if (document.reverseCharge) {
    if (lines.some((line) => line.taxCents !== 0))
      problems.push('the reverse charge applies but a line has VAT')
    if (!buyer.vatNumber?.trim())
      problems.push("the reverse charge applies but the buyer's VAT number is missing")
  }
  return problems
}

/** '1,234.50', '-0.99': always two decimals, the currency named beside it (the store's amounts are cents). */
export function formatAmount(cents: number): string {
  const amount = Math.abs(cents)
  const units = String(Math.floor(amount / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${cents < 0 ? '-' : ''}${units}.${String(amount % 100).padStart(2, '0')}`
}

/** 1900 → '19%', 550 → '5.5%', 0 → '0%'. */
export function formatRate(rateBp: number): string {
  return `${Number((rateBp / 100).toFixed(2))}%`
}
