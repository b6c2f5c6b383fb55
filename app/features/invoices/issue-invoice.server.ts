import { and, eq, sql } from 'drizzle-orm'
import type { Transaction as Tx } from '#app/server/db/database.server.ts'
import {
  INVOICE_SERIES,
  invoiceCounters,
  invoices,
  orders,
  type InvoiceKind,
} from '#app/server/db/schema/index.server.ts'
import {
  documentProblems,
  formatAmount,
  formatInvoiceNumber,
  REVERSE_CHARGE_NOTE,
  summarizeLines,
  type InvoiceDocument,
  type InvoiceLine,
} from './invoice-document.ts'
import { renderInvoicePdf } from './invoice-pdf.server.ts'
import { issueDateIn } from './issue-date.ts'

/**
 * Issuing invoices and credit notes inside the caller's transaction (decision 037): the order's payment issues
 * its invoice, a refund its credit note, so a document exists exactly when what it records does. The number is
 * taken from the series' counter for the year of issue in that same transaction: a rollback gives it back, and
 * concurrent transactions queue on the counter's row until the one before them ends, so numbers have no gap and
 * no duplicate. The counter stays locked until the caller's transaction ends: issue last, just before it commits.
 */

export type InvoiceErrorCode =
  | 'bad-time-zone'
  | 'order-not-found'
  | 'order-not-paid'
  | 'invalid-document'
  | 'invoice-not-found'
  | 'credit-before-invoice'
  | 'bad-credit-lines'
  | 'over-credit'
  | 'nothing-to-credit'

/** A document that was not issued, and why: nothing was written and no number taken. */
export class InvoiceError extends Error {
  override name = 'InvoiceError'
  constructor(
    readonly code: InvoiceErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export type IssuedDocument = { id: string; number: string }

export type IssueInvoiceInput = Omit<
  InvoiceDocument,
  'kind' | 'number' | 'issuedAt' | 'issueDate' | 'creditsInvoiceNumber'
> & {
  orderId: string
  issuedAt: Date
  /** The seller's IANA time zone, for the date printed and the year numbered in ('UTC' by default). */
  timeZone?: string
}

/**
 * The invoice of a paid order: the order's row is locked first, so issuing twice for one order (a retried webhook,
 * two at once) returns the invoice issued already, never a second number. Refused (InvoiceError) when the order is
 * not paid or the document is not one the law and the order agree with (documentProblems, and its order number,
 * currency and total must be the order's).
 */
export async function issueInvoice(tx: Tx, input: IssueInvoiceInput): Promise<IssuedDocument> {
  const date = issueDate(input.issuedAt, input.timeZone)
  const [order] = await tx
    .select({
      number: orders.number,
      status: orders.status,
      currency: orders.currency,
      totalCents: orders.totalCents,
    })
    .from(orders)
    .where(eq(orders.id, input.orderId))
    .for('no key update')
  if (!order) throw new InvoiceError('order-not-found', `No order ${input.orderId} to invoice.`)
  const [existing] = await tx
    .select({ id: invoices.id, number: invoices.number })
    .from(invoices)
    .where(and(eq(invoices.orderId, input.orderId), eq(invoices.kind, 'invoice')))
  if (existing) return existing
  if (order.status !== 'paid' && order.status !== 'refunded')
    throw new InvoiceError(
      'order-not-paid',
      `Order #${order.number} is ${order.status}: only a paid order is invoiced.`,
    )
  const problems = documentProblems(input)
  if (input.orderNumber !== order.number)
    problems.push(`the order number #${input.orderNumber} is not the order's #${order.number}`)
  if (input.currency !== order.currency)
    problems.push(`the currency ${input.currency} is not the order's ${order.currency}`)
  if (input.totals.grossCents !== order.totalCents)
    problems.push(`the total ${input.totals.grossCents} is not the ${order.totalCents} the order was paid`)
  if (problems.length > 0)
    throw new InvoiceError(
      'invalid-document',
      `The invoice of order #${order.number} was not issued: ${problems.join('; ')}.`,
    )
  const notes =
    input.reverseCharge && !input.notes.includes(REVERSE_CHARGE_NOTE)
      ? [...input.notes, REVERSE_CHARGE_NOTE]
      : [...input.notes]
  const { totals, taxByRate } = summarizeLines(input.lines)
  const numbered = await takeNumber(tx, 'invoice', date.year)
  // Field by field, so that nothing the caller's object carries besides the document's fields is kept.
  return insertDocument(tx, numbered, input.orderId, null, {
    kind: 'invoice',
    number: numbered.number,
    issuedAt: input.issuedAt.toISOString(),
    issueDate: date.isoDate,
    seller: pickSeller(input.seller),
    buyer: pickBuyer(input.buyer),
    currency: input.currency,
    pricesIncludeTax: input.pricesIncludeTax,
    lines: input.lines.map(pickLine),
    // The same as the input's (documentProblems checked), in the one order the document keeps them.
    totals,
    taxByRate,
    reverseCharge: input.reverseCharge,
    notes,
    orderNumber: input.orderNumber,
  })
}

/**
 * What a credit note gives back: 'remaining' (all that the invoice's earlier credit notes left, as a whole
 * refund), or amounts of some of its lines (`line`: the index in the invoice's lines), net and VAT as the caller
 * worked them out (features/tax): nothing here computes a tax.
 */
export type CreditLines = 'remaining' | Array<{ line: number; netCents: number; taxCents: number }>

export type IssueCreditNoteInput = {
  invoiceId: string
  lines: CreditLines
  issuedAt: Date
  timeZone?: string
  /** Printed on the credit note ('Refund requested by the buyer'). */
  reason: string
}

/**
 * A credit note for (part of) an invoice, numbered in its own series. The invoice's row is locked, so two credit
 * notes of one invoice queue; together with the earlier ones a credit note never credits more of a line, net or
 * VAT, than the invoice charged (InvoiceError 'over-credit', nothing written).
 */
export async function issueCreditNote(tx: Tx, input: IssueCreditNoteInput): Promise<IssuedDocument> {
  const date = issueDate(input.issuedAt, input.timeZone)
  const [invoice] = await tx
    .select({
      id: invoices.id,
      orderId: invoices.orderId,
      issuedAt: invoices.issuedAt,
      document: invoices.document,
    })
    .from(invoices)
    .where(and(eq(invoices.id, input.invoiceId), eq(invoices.kind, 'invoice')))
    .for('no key update')
  if (!invoice) throw new InvoiceError('invoice-not-found', `No invoice ${input.invoiceId} to credit.`)
  const original = invoice.document as InvoiceDocument
  if (input.issuedAt < invoice.issuedAt)
    throw new InvoiceError(
      'credit-before-invoice',
      `A credit note cannot predate invoice ${original.number}.`,
    )
  const reason = input.reason.trim()
  if (!reason) throw new InvoiceError('bad-credit-lines', 'A credit note needs a reason.')
  const earlier = await tx
    .select({ document: invoices.document })
    .from(invoices)
    .where(eq(invoices.creditsInvoiceId, invoice.id))
  const left = original.lines.map(({ netCents, taxCents }) => ({ netCents, taxCents }))
  for (const { document } of earlier)
    for (const line of (document as InvoiceDocument).lines) {
      const rest = left[line.creditsLine!]!
      rest.netCents -= line.netCents
      rest.taxCents -= line.taxCents
    }
  const lines = creditedLines(original, left, input.lines)
  const numbered = await takeNumber(tx, 'credit_note', date.year)
  const { totals, taxByRate } = summarizeLines(lines)
  return insertDocument(tx, numbered, invoice.orderId, invoice.id, {
    kind: 'credit_note',
    number: numbered.number,
    issuedAt: input.issuedAt.toISOString(),
    issueDate: date.isoDate,
    seller: original.seller,
    buyer: original.buyer,
    currency: original.currency,
    pricesIncludeTax: original.pricesIncludeTax,
    lines,
    totals,
    taxByRate,
    reverseCharge: original.reverseCharge,
    notes: [
      `This credit note credits invoice ${original.number} of ${original.issueDate}.`,
      `Reason: ${reason}`,
      ...(original.reverseCharge ? [REVERSE_CHARGE_NOTE] : []),
    ],
    orderNumber: original.orderNumber,
    creditsInvoiceNumber: original.number,
  })
}

/** The credit note's lines, checked against what each invoice line has left to credit. */
function creditedLines(
  invoice: InvoiceDocument,
  left: Array<{ netCents: number; taxCents: number }>,
  asked: CreditLines,
): InvoiceLine[] {
  const line = (index: number, netCents: number, taxCents: number): InvoiceLine => ({
    title: invoice.lines[index]!.title,
    quantity: 1,
    netCents,
    taxRateBp: invoice.lines[index]!.taxRateBp,
    taxCents,
    grossCents: netCents + taxCents,
    creditsLine: index,
  })
  const leftGross = left.reduce((sum, rest) => sum + rest.netCents + rest.taxCents, 0)
  if (asked === 'remaining') {
    const lines = left
      .map((rest, index) => line(index, rest.netCents, rest.taxCents))
      .filter((credit) => credit.grossCents > 0)
    if (lines.length === 0)
      throw new InvoiceError('nothing-to-credit', `Invoice ${invoice.number} is credited in full already.`)
    return lines
  }
  const indexes = asked.map((credit) => credit.line)
  const wellFormed =
    asked.length > 0 &&
    new Set(indexes).size === indexes.length &&
    asked.every(
      (credit) =>
        Number.isInteger(credit.line) &&
        invoice.lines[credit.line] !== undefined &&
        [credit.netCents, credit.taxCents].every((cents) => Number.isSafeInteger(cents) && cents >= 0) &&
        credit.netCents + credit.taxCents > 0,
    )
  if (!wellFormed)
    throw new InvoiceError(
      'bad-credit-lines',
      `A credit note names each line of invoice ${invoice.number} at most once, with whole, positive cents.`,
    )
  const askedGross = asked.reduce((sum, credit) => sum + credit.netCents + credit.taxCents, 0)
  const over = asked.filter(
    (credit) =>
      credit.netCents > left[credit.line]!.netCents || credit.taxCents > left[credit.line]!.taxCents,
  )
  if (over.length > 0 || askedGross > leftGross) {
    const money = (cents: number) => `${formatAmount(cents)} ${invoice.currency}`
    const lines = over.map(
      (credit) =>
        `line ${credit.line + 1} ('${invoice.lines[credit.line]!.title}') has ${money(left[credit.line]!.netCents)} net and ${money(left[credit.line]!.taxCents)} VAT left`,
    )
    throw new InvoiceError(
      'over-credit',
      `A credit note of ${money(askedGross)} is more than the ${money(leftGross)} left to credit of invoice ${invoice.number} (${money(invoice.totals.grossCents - leftGross)} credited already)${lines.length ? `: ${lines.join('; ')}` : ''}.`,
    )
  }
  return asked.map((credit) => line(credit.line, credit.netCents, credit.taxCents))
}

function issueDate(moment: Date, timeZone = 'UTC') {
  try {
    return issueDateIn(moment, timeZone)
  } catch (error) {
    throw new InvoiceError('bad-time-zone', `'${timeZone}' is not a time zone: ${String(error)}`)
  }
}

type Numbered = { series: string; year: number; sequence: number; number: string }

/**
 * The next number of a series in a year, from its counter row: inserted at the year's first document, then
 * incremented, in one statement whose row lock lasts until the caller's transaction ends.
 */
async function takeNumber(tx: Tx, kind: InvoiceKind, year: number): Promise<Numbered> {
  const series = INVOICE_SERIES[kind]
  const [counter] = await tx
    .insert(invoiceCounters)
    .values({ series, year, nextNumber: 2 })
    .onConflictDoUpdate({
      target: [invoiceCounters.series, invoiceCounters.year],
      set: { nextNumber: sql`${invoiceCounters.nextNumber} + 1` },
    })
    .returning({ sequence: sql<number>`${invoiceCounters.nextNumber} - 1` })
  const sequence = Number(counter!.sequence)
  return { series, year, sequence, number: formatInvoiceNumber(series, year, sequence) }
}

async function insertDocument(
  tx: Tx,
  numbered: Numbered,
  orderId: string,
  creditsInvoiceId: string | null,
  document: InvoiceDocument,
): Promise<IssuedDocument> {
  const pdf = await renderInvoicePdf(document)
  const [row] = await tx
    .insert(invoices)
    .values({
      kind: document.kind,
      series: numbered.series,
      year: numbered.year,
      sequence: numbered.sequence,
      number: numbered.number,
      orderId,
      creditsInvoiceId,
      issuedAt: new Date(document.issuedAt),
      currency: document.currency,
      netCents: document.totals.netCents,
      taxCents: document.totals.taxCents,
      totalCents: document.totals.grossCents,
      document,
      pdf,
    })
    .returning({ id: invoices.id, number: invoices.number })
  return row!
}

const pickSeller = ({ legalName, postalAddress, vatNumber, email }: InvoiceDocument['seller']) => ({
  legalName,
  postalAddress,
  vatNumber,
  email,
})
const pickBuyer = ({ name, email, country, address, vatNumber }: InvoiceDocument['buyer']) => ({
  name,
  email,
  country,
  address,
  vatNumber,
})
const pickLine = ({ title, netCents, taxRateBp, taxCents, grossCents }: InvoiceLine): InvoiceLine => ({
  title,
  quantity: 1,
  netCents,
  taxRateBp,
  taxCents,
  grossCents,
})
