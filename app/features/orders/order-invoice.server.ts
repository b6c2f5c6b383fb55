import { and, asc, eq, isNull } from 'drizzle-orm'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { documentProblems, summarizeLines } from '#app/features/invoices/invoice-document.ts'
import { getInvoiceOfOrder, getInvoicePdf } from '#app/features/invoices/invoices.server.ts'
import {
  InvoiceError,
  issueCreditNote,
  issueInvoice,
  type IssuedDocument,
  type IssueInvoiceInput,
} from '#app/features/invoices/issue-invoice.server.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import { countryName } from '#app/features/tax/countries.ts'
import { getTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import {
  orderItems,
  orderRefunds,
  orders,
  user,
  type RefundLine,
} from '#app/server/db/schema/index.server.ts'

/**
 * An order's invoice and its refunds' credit notes (issue 31, decision 037): the order's own figures put into
 * the invoices feature's documents. The invoice is issued in the payment's transaction, dated the moment of
 * payment; a credit note in the refund's, for exactly the refund's lines. The seller's time zone is UTC: the
 * store has no setting for another yet.
 */

const TIME_ZONE = 'UTC'

/** Why a paid order has no invoice, in words for the back office and the log. */
export type MissingInvoice = { reason: 'seller-not-set' | 'refused'; message: string }

export const SELLER_NOT_SET = "No invoice: set the seller's legal name and address in Settings"

/**
 * Issues the invoice of a paid order in the caller's transaction (or returns the one it has). Never throws for a
 * document that cannot be issued: a payment must not fail because the owner has not set the seller's legal
 * identity yet, or for an order the law's checks refuse (`MissingInvoice`, nothing written, no number taken).
 * Issue it last in the transaction: the series' counter stays locked until the commit.
 */
export async function invoiceOrder(
  tx: Tx,
  orderId: string,
  issuedAt: Date,
): Promise<{ ok: true; invoice: IssuedDocument } | ({ ok: false } & MissingInvoice)> {
  const input = await invoiceInputOf(tx, orderId, issuedAt)
  if ('reason' in input) return { ok: false, ...input }
  try {
    return { ok: true, invoice: await issueInvoice(tx, input) }
  } catch (error) {
    if (error instanceof InvoiceError)
      return { ok: false, reason: 'refused', message: `No invoice: ${error.message}` }
    throw error
  }
}

/** The invoice's PDF and file name, to attach to a mail. */
export async function invoiceAttachment(tx: Tx, invoiceId: string) {
  const file = await getInvoicePdf(tx, { invoiceId })
  return file ? { fileName: file.fileName, contentType: 'application/pdf', content: file.pdf } : null
}

/**
 * Why a paid (or refunded) order has no invoice, or null when it has one or was never paid: the back office's
 * note, and the warning logged once a payment has committed without one. Checks the document as `issueInvoice`
 * would, without taking a number.
 */
export async function explainMissingInvoice(db: Db, orderId: string): Promise<MissingInvoice | null> {
  const [order] = await db
    .select({ status: orders.status, totalCents: orders.totalCents })
    .from(orders)
    .where(eq(orders.id, orderId))
  if (!order || (order.status !== 'paid' && order.status !== 'refunded')) return null
  if (await getInvoiceOfOrder(db, orderId)) return null
  const input = await invoiceInputOf(db, orderId, new Date())
  if ('reason' in input) return input
  const problems = documentProblems(input)
  if (input.totals.grossCents !== order.totalCents)
    problems.push(`the lines come to ${input.totals.grossCents}, not the ${order.totalCents} paid`)
  return {
    reason: 'refused',
    message: `No invoice: ${problems.length ? problems.join('; ') : 'it was not issued when the order was paid'}.`,
  }
}

/**
 * The back office's 'Issue invoice' for a paid order without one (the seller's identity was set after it was
 * paid): the invoice dated now, and a credit note for each refund already confirmed, in the order they were
 * made, so the documents add up to what the buyer paid and got back. Audited. Idempotent: an order that has
 * its invoice answers 'exists' and changes nothing.
 */
export async function issueMissingInvoice(
  db: Db,
  input: { orderId: string; actor: Actor },
): Promise<
  | { outcome: 'issued' | 'exists'; number: string }
  | { outcome: 'refused'; message: string }
  | { outcome: 'not-found' }
> {
  return db.transaction(async (tx) => {
    const [order] = await tx
      .select({ id: orders.id })
      .from(orders)
      .where(eq(orders.id, input.orderId))
      .for('update')
    if (!order) return { outcome: 'not-found' as const }
    const existing = await getInvoiceOfOrder(tx, input.orderId)
    if (existing) return { outcome: 'exists' as const, number: existing.number }
    const now = new Date()
    const issued = await invoiceOrder(tx, input.orderId, now)
    if (!issued.ok) return { outcome: 'refused' as const, message: issued.message }
    const uncredited = await tx
      .select({ id: orderRefunds.id, lines: orderRefunds.lines, reason: orderRefunds.reason })
      .from(orderRefunds)
      .where(
        and(
          eq(orderRefunds.orderId, input.orderId),
          eq(orderRefunds.status, 'confirmed'),
          isNull(orderRefunds.creditNoteId),
        ),
      )
      .orderBy(asc(orderRefunds.confirmedAt))
    const creditNotes: string[] = []
    for (const refund of uncredited) {
      const note = await creditRefund(tx, { orderId: input.orderId, ...refund, issuedAt: now })
      if (!note) continue
      await tx.update(orderRefunds).set({ creditNoteId: note.id }).where(eq(orderRefunds.id, refund.id))
      creditNotes.push(note.number)
    }
    await recordAudit(tx, {
      actor: input.actor,
      action: 'order.invoice',
      entityType: 'order',
      entityId: input.orderId,
      before: null,
      after: { invoice: issued.invoice.number, creditNotes },
    })
    return { outcome: 'issued' as const, number: issued.invoice.number }
  })
}

/**
 * The credit note of a refund, for exactly its lines (net and VAT as the refund split them), if the order has
 * an invoice; null if it has none (nothing to credit). A refund is never more than is left of a line, so the
 * invoices feature's own check that a credit note never credits more than its invoice line is a second guard.
 */
export async function creditRefund(
  tx: Tx,
  refund: { orderId: string; lines: RefundLine[]; reason: string; issuedAt: Date },
): Promise<IssuedDocument | null> {
  const invoice = await getInvoiceOfOrder(tx, refund.orderId)
  if (!invoice) return null
  const items = await invoiceLinesOf(tx, refund.orderId)
  // The invoice printed the order's lines in this same order; a document that says otherwise is not this order's.
  const matches =
    items.length === invoice.lines.length &&
    items.every(
      (item, index) =>
        item.title === invoice.lines[index]!.title && item.grossCents === invoice.lines[index]!.grossCents,
    )
  if (!matches)
    throw new Error(
      `Invoice ${invoice.number} does not list the lines of order ${refund.orderId} as they are`,
    )
  return issueCreditNote(tx, {
    invoiceId: invoice.id,
    lines: refund.lines.map((part) => ({
      line: items.findIndex((item) => item.bookId === part.bookId),
      netCents: part.netCents,
      taxCents: part.taxCents,
    })),
    issuedAt: refund.issuedAt,
    timeZone: TIME_ZONE,
    reason: refund.reason.trim() || 'Refund',
  })
}

/** The order's lines as its invoice prints them: by title, then by book (a stable order for credit notes). */
function invoiceLinesOf(db: Db | Tx, orderId: string) {
  return db
    .select({
      bookId: orderItems.bookId,
      title: orderItems.title,
      netCents: orderItems.netCents,
      taxRateBp: orderItems.taxRateBp,
      taxCents: orderItems.taxCents,
      grossCents: orderItems.grossCents,
    })
    .from(orderItems)
    .where(eq(orderItems.orderId, orderId))
    .orderBy(asc(orderItems.title), asc(orderItems.bookId))
}

/**
 * The invoice of an order as the invoices feature takes it: the seller from the store's settings (legal name
 * and address) and the tax settings (VAT number, country), the buyer from the account and the order (billing
 * country, VAT number), each line's net, rate, VAT and gross as checkout stored them.
 */
async function invoiceInputOf(
  tx: Db | Tx,
  orderId: string,
  issuedAt: Date,
): Promise<IssueInvoiceInput | MissingInvoice> {
  const seller = await readSeller(tx)
  if (!seller.legalName.trim() || !seller.postalAddress.trim())
    return { reason: 'seller-not-set', message: SELLER_NOT_SET }
  const [order] = await tx
    .select({
      number: orders.number,
      currency: orders.currency,
      pricesIncludeTax: orders.pricesIncludeTax,
      reverseCharge: orders.reverseCharge,
      buyerVatNumber: orders.buyerVatNumber,
      billingCountry: orders.billingCountry,
      billingName: orders.billingName,
      billingAddress: orders.billingAddress,
      name: user.name,
      email: user.email,
    })
    .from(orders)
    .innerJoin(user, eq(user.id, orders.userId))
    .where(eq(orders.id, orderId))
  if (!order) return { reason: 'refused', message: `No invoice: no order ${orderId}.` }
  const tax = await getTaxSettings(tx)
  const lines = (await invoiceLinesOf(tx, orderId)).map((line) => ({
    title: line.title,
    quantity: 1 as const,
    netCents: line.netCents,
    taxRateBp: line.taxRateBp,
    taxCents: line.taxCents,
    grossCents: line.grossCents,
  }))
  const name = order.name.trim()
  return {
    orderId,
    orderNumber: order.number,
    issuedAt,
    timeZone: TIME_ZONE,
    seller: {
      legalName: seller.legalName.trim(),
      postalAddress: withCountry(seller.postalAddress.trim(), tax.sellerCountry),
      vatNumber: tax.sellerVatNumber.trim() || null,
      email: seller.contactEmail.trim(),
    },
    buyer: {
      // The name given at checkout, else the account's (one registered by email alone is named by its
      // email: the invoice says it once).
      name: order.billingName ?? (name.toLowerCase() === order.email.toLowerCase() ? '' : name),
      email: order.email,
      country: order.billingCountry ?? '',
      address: order.billingAddress,
      vatNumber: order.buyerVatNumber,
    },
    currency: order.currency,
    pricesIncludeTax: order.pricesIncludeTax,
    lines,
    ...summarizeLines(lines),
    reverseCharge: order.reverseCharge,
    notes: [],
  }
}

/**
 * The seller's address with their country (tax settings) as its last line, unless the owner wrote it there
 * already: an invoice names the seller's country (Art. 226(5)), and the address field may leave it out.
 */
function withCountry(address: string, country: string | null): string {
  if (!country) return address
  const name = countryName(country)
  const last = address.split('\n').at(-1)?.trim().toLowerCase()
  return last === name.toLowerCase() || last === country.toLowerCase() ? address : `${address}\n${name}`
}
