import { and, asc, eq, gt, gte, or, sql, type SQLWrapper } from 'drizzle-orm'
import { csvStream } from '#app/server/csv.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { invoices, orderRefunds, orders } from '#app/server/db/schema/index.server.ts'
import { xlsxStream, type XlsxCell, type XlsxSheet } from '#app/server/xlsx.server.ts'
import type { AccountingPeriod } from './period.ts'
import { inBounds } from './revenue.server.ts'
import { getTaxReturn, type TaxReturnRow, type TaxRowKind } from './tax-return.server.ts'

/**
 * The accountant's files for a period (issue 31): the orders paid in it, the invoices and credit notes issued in
 * it, the refunds confirmed in it, and the tax per country and rate; each as CSV, and all four as the sheets of
 * one XLSX workbook. The long ones are read in keyset batches as the file is written, never whole.
 */
export const ACCOUNTS_FILES = ['orders', 'documents', 'refunds', 'tax'] as const
export type AccountsFile = (typeof ACCOUNTS_FILES)[number]

/** A cell as both formats write it (`{ cents }` is money). */
type Cell = XlsxCell
type Batches = AsyncIterable<Cell[][]>

const BATCH_SIZE = 1000

const amount = (cents: number): Cell => ({ cents })
const yesNo = (value: boolean) => (value ? 'yes' : 'no')

/** Each file: its sheet's name, its columns, and its rows in batches. */
const FILES: Record<
  AccountsFile,
  { sheet: string; header: string[]; rows: (db: Db, period: AccountingPeriod) => Batches }
> = {
  orders: {
    sheet: 'Orders',
    header: [
      'Order number',
      'Paid on',
      'Paid at (UTC)',
      'Status now',
      'Billing country',
      'IP country',
      'Card country',
      'Evidence',
      'Buyer VAT number',
      'Reverse charge',
      'Tax country',
      'Currency',
      'Net',
      'Tax',
      'Total',
    ],
    rows: orderRows,
  },
  documents: {
    sheet: 'Invoices and credit notes',
    header: [
      'Number',
      'Issued on',
      'Kind',
      'Order number',
      'Credits invoice',
      'Buyer country',
      'Currency',
      'Net',
      'Tax',
      'Total',
    ],
    rows: documentRows,
  },
  refunds: {
    sheet: 'Refunds',
    header: [
      'Order number',
      'Confirmed on',
      'Confirmed at (UTC)',
      'Tax country',
      'Reverse charge',
      'Credit note',
      'Currency',
      'Net',
      'Tax',
      'Amount',
    ],
    rows: refundRows,
  },
  tax: {
    sheet: 'Tax per country and rate',
    header: [
      'Kind',
      'Country',
      'Country name',
      'Scheme',
      'Rate (%)',
      'Currency',
      'Sales net',
      'Sales tax',
      'Refunds net',
      'Refunds tax',
      'Taxable net (sales less refunds)',
      'Tax (sales less refunds)',
    ],
    rows: taxRows,
  },
}

/** 'codebook-orders-2026-Q1.csv', 'codebook-accounts-2026-Q1.xlsx'. */
export function accountsFileName(period: AccountingPeriod, file: AccountsFile | 'workbook'): string {
  return file === 'workbook' ? `codebook-accounts-${period.slug}.xlsx` : `codebook-${file}-${period.slug}.csv`
}

export function accountsCsv(
  db: Db,
  period: AccountingPeriod,
  file: AccountsFile,
): ReadableStream<Uint8Array> {
  const { header, rows } = FILES[file]
  return csvStream(header, rows(db, period))
}

export function accountsWorkbook(db: Db, period: AccountingPeriod): ReadableStream<Uint8Array> {
  return xlsxStream(
    ACCOUNTS_FILES.map((file): XlsxSheet => ({
      name: FILES[file].sheet,
      header: FILES[file].header,
      rows: FILES[file].rows(db, period),
    })),
  )
}

/** The calendar day of a moment in the period's time zone, as the database writes it ('2026-03-31'). */
const dayOf = (column: SQLWrapper, timeZone: string) =>
  sql<string>`((${column} at time zone ${timeZone})::date)::text`
/** A moment as text with its offset: exact to the microsecond (a JavaScript Date keeps milliseconds). */
const exactly = (column: SQLWrapper) => sql<string>`${column}::text`
const utc = (column: SQLWrapper) =>
  sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`

/**
 * The rows after `cursor` in (moment, key) order. The first condition alone bounds the moment's index range to
 * start at the cursor; the OR alone would have each batch read the period again from its start.
 */
function afterCursor(
  moment: SQLWrapper,
  key: SQLWrapper,
  cursor: { at: string; key: string | number } | null,
) {
  if (!cursor) return undefined
  const at = sql`${cursor.at}::timestamptz`
  return and(gte(moment, at), or(gt(moment, at), and(eq(moment, at), gt(key, cursor.key))))
}

/**
 * Pages through rows in (moment, tie-breaker) order: each batch starts after the last one's key, so a batch
 * costs the same at the end of a year as at its start (the moment's partial index bounds and orders it).
 */
async function* keyset<Row extends { at: string; key: string | number }>(
  read: (after: { at: string; key: string | number } | null) => Promise<Row[]>,
  toCells: (row: Row) => Cell[],
): AsyncGenerator<Cell[][]> {
  let after: { at: string; key: string | number } | null = null
  for (;;) {
    const rows = await read(after)
    if (rows.length > 0) yield rows.map(toCells)
    if (rows.length < BATCH_SIZE) return
    const last = rows[rows.length - 1]!
    after = { at: last.at, key: last.key }
  }
}

function orderRows(db: Db, period: AccountingPeriod): Batches {
  return keyset(
    (after) =>
      db
        .select({
          at: exactly(sql`${orders.paidAt}`),
          key: orders.number,
          paidOn: dayOf(orders.paidAt, period.timeZone),
          paidAt: utc(sql`${orders.paidAt}`),
          status: orders.status,
          billingCountry: orders.billingCountry,
          ipCountry: orders.ipCountry,
          cardCountry: orders.cardCountry,
          evidence: orders.evidenceStatus,
          vatNumber: orders.buyerVatNumber,
          reverseCharge: orders.reverseCharge,
          taxCountry: orders.taxCountry,
          currency: orders.currency,
          netCents: orders.netCents,
          taxCents: orders.taxCents,
          totalCents: orders.totalCents,
        })
        .from(orders)
        .where(and(inBounds(orders.paidAt, period), afterCursor(orders.paidAt, orders.number, after)))
        .orderBy(asc(orders.paidAt), asc(orders.number))
        .limit(BATCH_SIZE),
    (row) => [
      row.key,
      row.paidOn,
      row.paidAt,
      row.status,
      row.billingCountry,
      row.ipCountry,
      row.cardCountry,
      row.evidence,
      row.vatNumber,
      yesNo(row.reverseCharge),
      row.taxCountry,
      row.currency,
      amount(row.netCents),
      amount(row.taxCents),
      amount(row.totalCents),
    ],
  )
}

function documentRows(db: Db, period: AccountingPeriod): Batches {
  const credited = sql<
    string | null
  >`(select i.number from ${invoices} i where i.id = ${invoices.creditsInvoiceId})`
  return keyset(
    (after) =>
      db
        .select({
          at: exactly(sql`${invoices.issuedAt}`),
          key: invoices.number,
          kind: invoices.kind,
          issuedOn: sql<string>`${invoices.document}->>'issueDate'`,
          orderNumber: orders.number,
          credits: credited,
          buyerCountry: sql<string | null>`${invoices.document}->'buyer'->>'country'`,
          currency: invoices.currency,
          netCents: invoices.netCents,
          taxCents: invoices.taxCents,
          totalCents: invoices.totalCents,
        })
        .from(invoices)
        .innerJoin(orders, eq(orders.id, invoices.orderId))
        .where(
          and(inBounds(invoices.issuedAt, period), afterCursor(invoices.issuedAt, invoices.number, after)),
        )
        .orderBy(asc(invoices.issuedAt), asc(invoices.number))
        .limit(BATCH_SIZE),
    (row) => [
      row.key,
      row.issuedOn,
      row.kind === 'invoice' ? 'Invoice' : 'Credit note',
      row.orderNumber,
      row.credits,
      row.buyerCountry,
      row.currency,
      amount(row.netCents),
      amount(row.taxCents),
      amount(row.totalCents),
    ],
  )
}

function refundRows(db: Db, period: AccountingPeriod): Batches {
  const creditNote = sql<
    string | null
  >`(select i.number from ${invoices} i where i.id = ${orderRefunds.creditNoteId})`
  return keyset(
    (after) =>
      db
        .select({
          at: exactly(sql`${orderRefunds.confirmedAt}`),
          key: sql<string>`${orderRefunds.id}::text`,
          orderNumber: orders.number,
          confirmedOn: dayOf(sql`${orderRefunds.confirmedAt}`, period.timeZone),
          confirmedAt: utc(sql`${orderRefunds.confirmedAt}`),
          taxCountry: orders.taxCountry,
          reverseCharge: orders.reverseCharge,
          creditNote,
          currency: orderRefunds.currency,
          netCents: orderRefunds.netCents,
          taxCents: orderRefunds.taxCents,
          amountCents: orderRefunds.amountCents,
        })
        .from(orderRefunds)
        .innerJoin(orders, eq(orders.id, orderRefunds.orderId))
        .where(
          and(
            eq(orderRefunds.status, 'confirmed'),
            inBounds(sql`${orderRefunds.confirmedAt}`, period),
            afterCursor(orderRefunds.confirmedAt, orderRefunds.id, after),
          ),
        )
        .orderBy(asc(orderRefunds.confirmedAt), asc(orderRefunds.id))
        .limit(BATCH_SIZE),
    (row) => [
      row.orderNumber,
      row.confirmedOn,
      row.confirmedAt,
      row.taxCountry,
      yesNo(row.reverseCharge),
      row.creditNote,
      row.currency,
      amount(row.netCents),
      amount(row.taxCents),
      amount(row.amountCents),
    ],
  )
}

export const TAX_KIND_LABELS: Record<TaxRowKind, string> = {
  taxed: 'Taxed',
  'reverse-charge': 'Reverse charge (net only)',
  untaxed: 'No tax charged',
}

/** A row of the tax table as the files write it: reverse-charged and untaxed sales have a net only. */
export function taxRowCells(row: TaxReturnRow): Cell[] {
  const taxed = row.kind === 'taxed'
  return [
    TAX_KIND_LABELS[row.kind],
    row.country,
    row.countryName,
    row.scheme,
    taxed ? row.rateBp / 100 : null,
    row.currency,
    amount(row.salesNetCents),
    taxed ? amount(row.salesTaxCents) : null,
    amount(row.refundsNetCents),
    taxed ? amount(row.refundsTaxCents) : null,
    amount(row.netCents),
    taxed ? amount(row.taxCents) : null,
  ]
}

async function* taxRows(db: Db, period: AccountingPeriod): Batches {
  yield (await getTaxReturn(db, period)).map(taxRowCells)
}
