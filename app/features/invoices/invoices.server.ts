import { and, asc, eq, sql, type SQL } from 'drizzle-orm'
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { invoices, orders, type InvoiceKind } from '#app/server/db/schema/index.server.ts'
import type { InvoiceDocument } from './invoice-document.ts'

/** Reading issued invoices and credit notes: the PDF as issued for a download, and an order's documents. */

export type InvoiceFile = {
  id: string
  kind: InvoiceKind
  number: string
  /** 'INV-2026-000042.pdf'. */
  fileName: string
  pdf: Uint8Array
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The PDF of an invoice or credit note by its id (of that order, when `orderId` is given too), or of an order's
 * invoice, as it was issued (never rendered again). With `userId`, only if the order is that buyer's: null
 * otherwise, as for an unknown or malformed id, so a route answers both with the same 404. The back office
 * calls it without `userId`.
 */
export async function getInvoicePdf(
  db: Db | Tx,
  which: ({ invoiceId: string; orderId?: string } | { orderId: string }) & { userId?: string },
): Promise<InvoiceFile | null> {
  const valid = (id: unknown) => typeof id === 'string' && UUID.test(id)
  const ids = 'invoiceId' in which ? [which.invoiceId, which.orderId ?? which.invoiceId] : [which.orderId]
  if (!ids.every(valid)) return null
  const conditions: Array<SQL | undefined> = [
    'invoiceId' in which
      ? and(
          eq(invoices.id, which.invoiceId),
          which.orderId === undefined ? undefined : eq(invoices.orderId, which.orderId),
        )
      : and(eq(invoices.orderId, which.orderId), eq(invoices.kind, 'invoice')),
    which.userId === undefined ? undefined : eq(orders.userId, which.userId),
  ]
  const [row] = await db
    .select({ id: invoices.id, kind: invoices.kind, number: invoices.number, pdf: invoices.pdf })
    .from(invoices)
    .innerJoin(orders, eq(orders.id, invoices.orderId))
    .where(and(...conditions))
  return row ? { ...row, fileName: `${row.number}.pdf` } : null
}

export type InvoiceSummary = {
  id: string
  kind: InvoiceKind
  number: string
  issuedAt: Date
  currency: string
  /** What the document charges (an invoice) or gives back (a credit note), never negative. */
  totalCents: number
  /** A credit note: the invoice it credits. */
  creditsInvoiceId: string | null
}

/** An order's invoice and its credit notes, in the order they were issued (the PDFs are not read). */
export async function listInvoicesOfOrder(db: Db | Tx, orderId: string): Promise<InvoiceSummary[]> {
  if (!UUID.test(orderId)) return []
  return db
    .select({
      id: invoices.id,
      kind: invoices.kind,
      number: invoices.number,
      issuedAt: invoices.issuedAt,
      currency: invoices.currency,
      totalCents: invoices.totalCents,
      creditsInvoiceId: invoices.creditsInvoiceId,
    })
    .from(invoices)
    .where(eq(invoices.orderId, orderId))
    .orderBy(asc(invoices.issuedAt), sql`${invoices.kind} <> 'invoice'`, asc(invoices.sequence))
}

/**
 * An order's invoice with the title and gross of each of its lines, in the order they were printed: what a
 * credit note names a line by (its index), for the caller to match with the order's own lines.
 */
export async function getInvoiceOfOrder(
  db: Db | Tx,
  orderId: string,
): Promise<{ id: string; number: string; lines: Array<{ title: string; grossCents: number }> } | null> {
  if (!UUID.test(orderId)) return null
  const [row] = await db
    .select({ id: invoices.id, number: invoices.number, document: invoices.document })
    .from(invoices)
    .where(and(eq(invoices.orderId, orderId), eq(invoices.kind, 'invoice')))
  if (!row) return null
  const { lines } = row.document as InvoiceDocument
  return {
    id: row.id,
    number: row.number,
    lines: lines.map(({ title, grossCents }) => ({ title, grossCents })),
  }
}

/**
 * A document's PDF as a download, the bytes as issued: saved under its number, and private (it names its buyer):
 * no shared cache or the browser's may keep it.
 */
export function invoicePdfResponse(file: InvoiceFile): Response {
  // A copy in a plain ArrayBuffer: the driver's Buffer may be a view of a larger, shared one.
  return new Response(new Uint8Array(file.pdf), {
    headers: {
      'Content-Type': 'application/pdf',
      'Content-Disposition': `attachment; filename="${file.fileName}"`,
      'Content-Length': String(file.pdf.byteLength),
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
