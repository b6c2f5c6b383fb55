/** Invoices and credit notes with gapless numbers (issue 31, docs/decisions/037). */
import { sql } from 'drizzle-orm'
import {
  type AnyPgColumn,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { orders } from './orders.server.ts'

export const INVOICE_KINDS = ['invoice', 'credit_note'] as const
export type InvoiceKind = (typeof INVOICE_KINDS)[number]

/** Each kind is its own gapless series, numbered from 1 in every year: 'INV-2026-000042', 'CN-2026-000003'. */
export const INVOICE_SERIES = { invoice: 'INV', credit_note: 'CN' } as const satisfies Record<
  InvoiceKind,
  string
>

/** Bytes; node-postgres reads a Buffer, PGlite a Uint8Array: both are Uint8Arrays (as in outbox.server.ts). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
})

/**
 * One row per series and year: `next_number` is the number the next document of that series and year gets.
 * A number is taken by an upsert that increments the row, inside the transaction that writes the document
 * (features/invoices): a transaction that rolls back gives its number back with its row version, and
 * concurrent transactions queue on the row's lock, so numbers have no gap and no duplicate. Never a SEQUENCE:
 * a sequence's nextval is not rolled back.
 */
export const invoiceCounters = pgTable(
  'invoice_counters',
  {
    series: text('series').notNull(),
    year: integer('year').notNull(),
    nextNumber: integer('next_number').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.series, table.year] }),
    check('invoice_counters_next_number_check', sql`${table.nextNumber} >= 1`),
  ],
)

/**
 * Invoices and credit notes as issued: the document as a JSON snapshot (seller, buyer, lines, totals, notes:
 * features/invoices/invoice-document.ts) and its PDF, rendered once when it was issued. A trigger refuses every
 * UPDATE, DELETE and TRUNCATE (the migration's 'invoices: immutable' block): a mistake is corrected by a credit
 * note, never by an edit. Rows are kept for the legal retention period (10 years in Germany, § 147 AO, and
 * similar elsewhere) even when the buyer's account is deleted (GDPR Art. 17(3)(b)); deleting older ones is an
 * operator's deliberate act (docs/decisions/037).
 *
 * Amounts are in integer cents and never negative: a credit note's amounts are what it gives back, and its kind
 * (and `credits_invoice_id`) say that they are credits.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: INVOICE_KINDS }).notNull(),
    series: text('series').notNull(),
    /** The calendar year of `issued_at` in the seller's time zone: the numbers restart at 1 each year. */
    year: integer('year').notNull(),
    sequence: integer('sequence').notNull(),
    /** As printed: series, year and sequence ('INV-2026-000042'). */
    number: text('number').notNull(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => orders.id, { onDelete: 'restrict' }),
    /** A credit note: the invoice it credits (part or all of). */
    creditsInvoiceId: uuid('credits_invoice_id').references((): AnyPgColumn => invoices.id, {
      onDelete: 'restrict',
    }),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull(),
    currency: text('currency').notNull(),
    netCents: integer('net_cents').notNull(),
    taxCents: integer('tax_cents').notNull(),
    totalCents: integer('total_cents').notNull(),
    /** The document as issued (features/invoices/invoice-document.ts `InvoiceDocument`). */
    document: jsonb('document').notNull(),
    pdf: bytea('pdf').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('invoices_number_unique').on(table.number),
    uniqueIndex('invoices_series_year_sequence_unique').on(table.series, table.year, table.sequence),
    // One invoice per order; its credit notes are as many as its refunds.
    uniqueIndex('invoices_one_invoice_per_order')
      .on(table.orderId)
      .where(sql`${table.kind} = 'invoice'`),
    index('invoices_order_id_idx').on(table.orderId),
    // The accounts' documents of a period (features/accounts), in the order they were issued.
    index('invoices_issued_at_idx').on(table.issuedAt),
    index('invoices_credits_invoice_id_idx')
      .on(table.creditsInvoiceId)
      .where(sql`${table.creditsInvoiceId} is not null`),
    check('invoices_kind_check', sql`${table.kind} in ('invoice', 'credit_note')`),
    check(
      'invoices_series_check',
      sql`${table.series} = case ${table.kind} when 'invoice' then 'INV' else 'CN' end`,
    ),
    check(
      'invoices_credits_check',
      sql`(${table.kind} = 'credit_note') = (${table.creditsInvoiceId} is not null)`,
    ),
    check('invoices_year_check', sql`${table.year} between 2000 and 9999`),
    check('invoices_sequence_check', sql`${table.sequence} >= 1`),
    check(
      'invoices_number_check',
      sql`${table.number} = ${table.series} || '-' || ${table.year}::text || '-' || lpad(${table.sequence}::text, greatest(6, length(${table.sequence}::text)), '0')`,
    ),
    check('invoices_currency_check', sql`${table.currency} ~ '^[A-Z]{3}$'`),
    check(
      'invoices_amounts_check',
      sql`${table.netCents} >= 0 and ${table.taxCents} >= 0 and ${table.totalCents} = ${table.netCents} + ${table.taxCents}`,
    ),
    // A credit note gives something back; an invoice may be of 0 (a 100 % coupon).
    check('invoices_credit_note_total_check', sql`${table.kind} = 'invoice' or ${table.totalCents} > 0`),
  ],
)
