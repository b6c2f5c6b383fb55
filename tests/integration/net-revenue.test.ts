import crypto from 'node:crypto'
import { and, eq, sql } from 'drizzle-orm'
import JSZip from 'jszip'
import { describe, expect } from 'vitest'
import { getMoneyByDay } from '#app/features/accounts/revenue.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { summarizeLines, type InvoiceLine } from '#app/features/invoices/invoice-document.ts'
import { issueCreditNote, issueInvoice } from '#app/features/invoices/issue-invoice.server.ts'
import { taxLines } from '#app/features/tax/compute-tax.ts'
import { loader as accountsExportLoader } from '#app/routes/admin/accounts-export.ts'
import Accounts, { loader as accountsLoader } from '#app/routes/admin/accounts.tsx'
import { loader as analyticsExportLoader } from '#app/routes/admin/analytics-export.ts'
import { loader as analyticsLoader } from '#app/routes/admin/analytics.tsx'
import { loader as ordersExportLoader } from '#app/routes/admin/orders-export.ts'
import Overview, { loader as overviewLoader } from '#app/routes/admin/overview.tsx'
import Analytics from '#app/routes/admin/analytics.tsx'
import { orderItems, orderRefunds, orders } from '#app/server/db/schema/index.server.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { renderRoute, textOf } from '#tests/render-route.ts'
import { answerOf, routeArgs } from '#tests/route-args.ts'
import { migrateUpTo, openMigrationDatabase } from '#tests/migration-database.ts'

/**
 * Net revenue everywhere (issue 31, decision 039): orders in several countries and two currencies, refunds
 * whole and partial, one confirmed in the next month, and refunds requested or failed (which never count), read
 * back through the dashboard, the back office's front page, the orders export and the accounts page and files.
 * Orders, lines and refunds are written straight into their tables, as the checkout and the refund code store
 * them; invoices and credit notes are issued by the invoices feature.
 */

let database: TestDatabase
let admin: Awaited<ReturnType<typeof createAdmin>>
let bookIds: string[]
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  admin = await createAdmin(database.db)
  bookIds = (await listBooks(database.db)).map((book) => book.id)
})

const seller = {
  legalName: 'CodeBook GmbH',
  postalAddress: 'Hauptstraße 1\n10115 Berlin\nGermany',
  vatNumber: 'DE123456789',
  email: 'billing@codebook.example',
}

type Sale = {
  buyer: { userId: string }
  /** The country taxed (null: none), and the buyer's billing country. */
  country: string | null
  billing: string
  currency: string
  rateBp: number
  /** Each line's price, tax included. */
  prices: number[]
  paidAt: Date
  vatNumber?: string
}

type Order = Awaited<ReturnType<typeof paidOrder>>

/** A paid order as checkout stores it: each line taxed by the tax feature's own function. */
async function paidOrder(sale: Sale) {
  const taxed = taxLines(sale.prices, sale.rateBp, 'inclusive')
  const [order] = await database.db
    .insert(orders)
    .values({
      userId: sale.buyer.userId,
      status: 'paid',
      paidAt: sale.paidAt,
      totalCents: taxed.grossCents,
      netCents: taxed.netCents,
      taxCents: taxed.taxCents,
      taxCountry: sale.country,
      reverseCharge: Boolean(sale.vatNumber),
      buyerVatNumber: sale.vatNumber ?? null,
      billingCountry: sale.billing,
      ipCountry: sale.billing,
      evidenceStatus: sale.country ? 'two-agree' : 'untaxed',
      currency: sale.currency,
      idempotencyKey: crypto.randomUUID(),
      attemptId: crypto.randomUUID(),
      paymentProvider: 'test',
      paymentReference: crypto.randomUUID(),
    })
    .returning({ id: orders.id, number: orders.number })
  const lines = taxed.lines.map((line, index) => ({
    bookId: bookIds[index]!,
    title: `Book ${index + 1}`,
    ...line,
  }))
  await database.db.insert(orderItems).values(
    lines.map((line) => ({
      orderId: order!.id,
      bookId: line.bookId,
      title: line.title,
      priceCents: line.grossCents,
      listPriceCents: line.grossCents,
      currency: sale.currency,
      taxRateBp: line.rateBp,
      netCents: line.netCents,
      taxCents: line.taxCents,
      grossCents: line.grossCents,
    })),
  )
  return { ...order!, sale, lines, totals: taxed }
}

/** Its invoice, issued when it was paid. */
async function invoiceOf(order: Order) {
  const lines: InvoiceLine[] = order.lines.map((line) => ({
    title: line.title,
    quantity: 1,
    netCents: line.netCents,
    taxRateBp: line.rateBp,
    taxCents: line.taxCents,
    grossCents: line.grossCents,
  }))
  return database.db.transaction((tx) =>
    issueInvoice(tx, {
      orderId: order.id,
      orderNumber: order.number,
      issuedAt: order.sale.paidAt,
      seller,
      buyer: {
        name: 'Ada Reader',
        email: 'ada@example.com',
        country: order.sale.billing,
        address: null,
        vatNumber: order.sale.vatNumber ?? null,
      },
      currency: order.sale.currency,
      pricesIncludeTax: true,
      lines,
      ...summarizeLines(lines),
      reverseCharge: Boolean(order.sale.vatNumber),
      notes: [],
    }),
  )
}

/**
 * A refund of some of the order's lines (by index), as the refund code records it: confirmed on `at` (with its
 * credit note when the order was invoiced), or still requested, or failed.
 */
async function refund(
  order: Order,
  lineIndexes: number[],
  at: Date,
  status: 'confirmed' | 'requested' | 'failed' = 'confirmed',
  invoiceId?: string,
) {
  const lines = lineIndexes.map((index) => order.lines[index]!)
  const creditNote =
    invoiceId && status === 'confirmed'
      ? await database.db.transaction((tx) =>
          issueCreditNote(tx, {
            invoiceId,
            lines: lineIndexes.map((index) => ({
              line: index,
              netCents: order.lines[index]!.netCents,
              taxCents: order.lines[index]!.taxCents,
            })),
            issuedAt: at,
            reason: 'Refund requested by the buyer',
          }),
        )
      : null
  const sum = (pick: (line: (typeof lines)[number]) => number) =>
    lines.reduce((total, line) => total + pick(line), 0)
  await database.db.insert(orderRefunds).values({
    orderId: order.id,
    status,
    amountCents: sum((line) => line.grossCents),
    netCents: sum((line) => line.netCents),
    taxCents: sum((line) => line.taxCents),
    currency: order.sale.currency,
    lines: lines.map(({ bookId, netCents, taxCents, grossCents }) => ({
      bookId,
      netCents,
      taxCents,
      grossCents,
    })),
    requestedBy: 'test',
    requestedAt: at,
    confirmedAt: status === 'confirmed' ? at : null,
    creditNoteId: creditNote?.id ?? null,
  })
  return creditNote
}

const on = (day: string, time = '10:00:00') => new Date(`${day}T${time}Z`)

/** April 2025's sales and refunds, and one refund of them confirmed in May. */
async function april() {
  const buyer = await createReader(database.db)
  // Germany, 19 % on two books: €11.90 (net 10.00) and €23.80 (net 20.00).
  const germany = await paidOrder({
    buyer,
    country: 'DE',
    billing: 'DE',
    currency: 'EUR',
    rateBp: 1900,
    prices: [1190, 2380],
    paidAt: on('2025-04-03'),
  })
  // France, 5.5 % (eBooks): €10.55 (net 10.00).
  const france = await paidOrder({
    buyer,
    country: 'FR',
    billing: 'FR',
    currency: 'EUR',
    rateBp: 550,
    prices: [1055],
    paidAt: on('2025-04-10'),
  })
  // The United States: no tax charged, in dollars.
  const untaxed = await paidOrder({
    buyer,
    country: null,
    billing: 'US',
    currency: 'USD',
    rateBp: 0,
    prices: [1999],
    paidAt: on('2025-04-15'),
  })
  // A Dutch business with a VAT number: reverse-charged, net only.
  const business = await paidOrder({
    buyer,
    country: 'NL',
    billing: 'NL',
    currency: 'EUR',
    rateBp: 0,
    prices: [1500],
    paidAt: on('2025-04-20'),
    vatNumber: 'NL123456789B01',
  })
  // Australia, 10 % GST, in dollars: $11.00 (net 10.00).
  const australia = await paidOrder({
    buyer,
    country: 'AU',
    billing: 'AU',
    currency: 'USD',
    rateBp: 1000,
    prices: [1100],
    paidAt: on('2025-04-22'),
  })
  const germanyInvoice = await invoiceOf(germany)
  const untaxedInvoice = await invoiceOf(untaxed)
  // The German order's second book given back in April (a partial refund), with its credit note.
  const germanyCredit = await refund(germany, [1], on('2025-04-25'), 'confirmed', germanyInvoice.id)
  // The French order refunded whole in April.
  await refund(france, [0], on('2025-04-28'))
  await database.db
    .update(orders)
    .set({ status: 'refunded', refundedAt: on('2025-04-28') })
    .where(eq(orders.id, france.id))
  // The American order refunded whole, confirmed on 2 May: May's refund, not April's.
  const untaxedCredit = await refund(untaxed, [0], on('2025-05-02'), 'confirmed', untaxedInvoice.id)
  // Asked of the provider and not confirmed, and one that failed: neither counts, ever.
  await refund(australia, [0], on('2025-04-29'), 'requested')
  await refund(business, [0], on('2025-04-29'), 'failed')
  return {
    buyer,
    germany,
    france,
    untaxed,
    business,
    australia,
    documents: {
      germanyInvoice,
      untaxedInvoice,
      germanyCredit: germanyCredit!,
      untaxedCredit: untaxedCredit!,
    },
  }
}

// Gross, refunds, tax and net of April 2025, per currency (money.ts): worked out by hand from the orders above.
const aprilEur = {
  currency: 'EUR',
  orders: 3,
  grossCents: 3570 + 1055 + 1500,
  refunds: 2,
  refundsCents: 2380 + 1055,
  taxCents: 570 + 55 - 380 - 55,
  netCents: 3000 + 1000 + 1500 - 2000 - 1000,
}
const aprilUsd = {
  currency: 'USD',
  orders: 2,
  grossCents: 1999 + 1100,
  refunds: 0,
  refundsCents: 0,
  taxCents: 100,
  netCents: 1999 + 1000,
}
const mayUsd = {
  currency: 'USD',
  orders: 0,
  grossCents: 0,
  refunds: 1,
  refundsCents: 1999,
  taxCents: 0,
  netCents: -1999,
}

const load = <T>(loader: (args: never) => Promise<T>, path: string) =>
  loader(routeArgs({ db: database.db, path, cookie: admin.cookie }) as never)

async function dashboardFor(from: string, to: string) {
  const page = await load(analyticsLoader, `/admin/analytics?range=custom&from=${from}&to=${to}`)
  if ('type' in page || !page.dashboard)
    throw new Error(`expected the dashboard, got ${JSON.stringify(page)}`)
  return page.dashboard
}

/** A CSV file's rows, its byte order mark left out (no cell here holds a comma or a quote). */
async function csvRows(response: Response): Promise<string[][]> {
  expect(response.status).toBe(200)
  return (await response.text())
    .replace(/^\uFEFF/, '')
    .trim()
    .split('\r\n')
    .map((line) => line.split(','))
}

describe('net revenue: April 2025 in two currencies, refunds whole, partial and next month', () => {
  let sales: Awaited<ReturnType<typeof april>>
  test.beforeAll(async () => {
    sales = await april()
  })

  test('the money adds up: gross − refunds − tax = net, in each currency', () => {
    for (const money of [aprilEur, aprilUsd, mayUsd])
      expect(money.grossCents - money.refundsCents - money.taxCents).toBe(money.netCents)
    expect(aprilEur).toMatchObject({ grossCents: 6125, refundsCents: 3435, taxCents: 190, netCents: 2500 })
  })

  test('the dashboard: every currency, the main one per day, its CSV in a column group per currency', async () => {
    const dashboard = await dashboardFor('2025-04-01', '2025-04-30')
    expect(dashboard.currency).toBe('EUR')
    expect(dashboard.money).toEqual([aprilEur, aprilUsd])
    expect(dashboard.totals).toMatchObject({
      orders: 3,
      grossCents: 6125,
      refundsCents: 3435,
      taxCents: 190,
      netCents: 2500,
    })
    expect(dashboard.previous).toMatchObject({ orders: 0, grossCents: 0, netCents: 0 })
    // The partial refund counts on the day it was confirmed, not on its order's.
    const day = (date: string) => dashboard.days.find((figures) => figures.day === date)
    expect(day('2025-04-03')).toMatchObject({ orders: 1, grossCents: 3570, taxCents: 570, netCents: 3000 })
    expect(day('2025-04-25')).toMatchObject({
      orders: 0,
      grossCents: 0,
      refundsCents: 2380,
      taxCents: -380,
      netCents: -2000,
    })
    // Requested (29 April) and failed refunds are nowhere.
    expect(day('2025-04-29')).toMatchObject({ refundsCents: 0, netCents: 0 })

    const html = textOf(
      renderRoute({
        Component: Analytics as never,
        pattern: 'admin/analytics',
        path: '/admin/analytics?range=custom&from=2025-04-01&to=2025-04-30',
        loaderData: await load(
          analyticsLoader,
          '/admin/analytics?range=custom&from=2025-04-01&to=2025-04-30',
        ),
      }),
    )
    expect(html).toContain(
      'Gross sales €61.25 €0 new Refunds €34.35 €0 new Tax €1.90 €0 new Net revenue €25 €0 new',
    )
    expect(html).toContain('Every currency sold in this period')
    expect(html).toContain('USD 2 $30.99 $0 $1 $29.99')

    const may = await dashboardFor('2025-05-01', '2025-05-31')
    expect(may.money).toEqual([mayUsd])
    expect(may.currency).toBe('EUR') // the period before (April) sold most in euros

    const rows = await csvRows(
      await load(
        analyticsExportLoader,
        '/admin/analytics/export.csv?range=custom&from=2025-04-01&to=2025-04-30',
      ),
    )
    expect(rows[0]).toEqual([
      'day',
      'visitors',
      'page_views',
      'book_views',
      'add_to_cart',
      'begin_checkout',
      'orders',
      'gross_sales_EUR',
      'refunds_EUR',
      'tax_EUR',
      'net_revenue_EUR',
      'gross_sales_USD',
      'refunds_USD',
      'tax_USD',
      'net_revenue_USD',
    ])
    expect(rows).toHaveLength(31)
    const csvDay = (date: string) => rows.find((row) => row[0] === date)!.slice(6)
    expect(csvDay('2025-04-03')).toEqual([
      '1',
      '35.70',
      '0.00',
      '5.70',
      '30.00',
      '0.00',
      '0.00',
      '0.00',
      '0.00',
    ])
    expect(csvDay('2025-04-22')).toEqual([
      '1',
      '0.00',
      '0.00',
      '0.00',
      '0.00',
      '11.00',
      '0.00',
      '1.00',
      '10.00',
    ])
    expect(csvDay('2025-04-25')).toEqual([
      '0',
      '0.00',
      '23.80',
      '-3.80',
      '-20.00',
      '0.00',
      '0.00',
      '0.00',
      '0.00',
    ])
  })

  test('the orders export: per order, what was refunded and the tax and net revenue left', async () => {
    const rows = await csvRows(
      await load(
        ordersExportLoader,
        `/admin/orders/export.csv?buyer=${encodeURIComponent(sales.buyer.email)}`,
      ),
    )
    expect(rows[0]!.slice(-4)).toEqual([
      'Refunded at (UTC)',
      'Refunded',
      'Tax (less refunded)',
      'Net revenue',
    ])
    const byNumber = (order: Order) => rows.find((row) => row[0] === String(order.number))!.slice(-3)
    expect(byNumber(sales.germany)).toEqual(['23.80', '1.90', '10.00'])
    expect(byNumber(sales.france)).toEqual(['10.55', '0.00', '0.00'])
    expect(byNumber(sales.untaxed)).toEqual(['19.99', '0.00', '0.00'])
    // Requested and failed refunds give nothing back.
    expect(byNumber(sales.australia)).toEqual(['0.00', '1.00', '10.00'])
    expect(byNumber(sales.business)).toEqual(['0.00', '0.00', '15.00'])
  })

  test('the accounts page: the month’s money and its tax per country and rate; the quarter has May’s refund', async () => {
    const page = await answerOf(load(accountsLoader, '/admin/accounts?period=month&month=2025-04'))
    expect(page.status).toBe(200)
    expect(page.body).toMatchObject({
      errors: null,
      timeZone: 'UTC',
      period: { kind: 'month', from: '2025-04-01', to: '2025-04-30', label: 'April 2025' },
      money: [aprilEur, aprilUsd],
    })
    const tax = page.body!.taxReturn as Array<Record<string, unknown>>
    expect(
      tax.map((row) => [row.kind, row.country, row.rateBp, row.currency, row.netCents, row.taxCents]),
    ).toEqual([
      ['taxed', 'AU', 1000, 'USD', 1000, 100],
      ['taxed', 'DE', 1900, 'EUR', 3000 - 2000, 570 - 380],
      ['taxed', 'FR', 550, 'EUR', 0, 0],
      ['reverse-charge', 'NL', 0, 'EUR', 1500, 0],
      ['untaxed', null, 0, 'USD', 1999, 0],
    ])
    expect(tax[1]).toMatchObject({
      scheme: 'EU',
      countryName: 'Germany',
      salesNetCents: 3000,
      salesTaxCents: 570,
      refundsNetCents: 2000,
      refundsTaxCents: 380,
    })

    // What the owner reads: the money per currency, the tax table's parts, the files for this period.
    const html = renderRoute({
      Component: Accounts as never,
      pattern: 'admin/accounts',
      path: '/admin/accounts?period=month&month=2025-04',
      loaderData: page.body,
    })
    const text = textOf(html)
    expect(text).toContain('whole calendar days in UTC')
    expect(text).toContain(
      'Currency Orders Gross sales Refunds Tax Net revenue EUR 3 €61.25 €34.35 €1.90 €25 USD 2 $30.99 $0 $1 $29.99',
    )
    expect(text).toContain('Germany (DE) EU 19 % EUR €30 €20 €10 €1.90')
    expect(text).toContain('Reverse-charged sales (net only) ')
    expect(text).toContain('Netherlands (NL) EU EUR €15 €0 €15')
    expect(html).toContain('href="/admin/accounts/accounts.xlsx?period=month&amp;month=2025-04"')

    const quarter = await answerOf(load(accountsLoader, '/admin/accounts?period=quarter&quarter=2025-Q2'))
    expect(quarter.body).toMatchObject({
      period: { from: '2025-04-01', to: '2025-06-30', label: 'Q2 2025' },
      money: [aprilEur, { ...aprilUsd, refunds: 1, refundsCents: 1999, netCents: aprilUsd.netCents - 1999 }],
    })
    const year = await answerOf(load(accountsLoader, '/admin/accounts?period=year&year=2025'))
    expect(year.body).toMatchObject({ period: { from: '2025-01-01', to: '2025-12-31', label: '2025' } })
    const custom = await answerOf(
      load(accountsLoader, '/admin/accounts?period=custom&from=2025-04-26&to=2025-05-02'),
    )
    expect(custom.body).toMatchObject({
      money: [
        { currency: 'EUR', orders: 0, refundsCents: 1055, taxCents: -55, netCents: -1000 },
        { currency: 'USD', orders: 0, refundsCents: 1999, netCents: -1999 },
      ],
    })
  })

  test('the accounts files: orders, invoices and credit notes, refunds and tax as CSV', async () => {
    const file = (name: string, query = 'period=month&month=2025-04') =>
      load(accountsExportLoader, `/admin/accounts/${name}?${query}`)

    const ordersFile = await file('orders.csv')
    expect(ordersFile.headers.get('Content-Disposition')).toBe(
      'attachment; filename="codebook-orders-2025-04.csv"',
    )
    const orderRows = await csvRows(ordersFile)
    expect(orderRows[0]).toEqual([
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
    ])
    // One row per order paid in April, in the order they were paid; May's refund changes none of them.
    expect(orderRows.slice(1).map((row) => row[0])).toEqual(
      [sales.germany, sales.france, sales.untaxed, sales.business, sales.australia].map((order) =>
        String(order.number),
      ),
    )
    expect(orderRows[1]).toEqual([
      String(sales.germany.number),
      '2025-04-03',
      '2025-04-03T10:00:00Z',
      'paid',
      'DE',
      'DE',
      '',
      'two-agree',
      '',
      'no',
      'DE',
      'EUR',
      '30.00',
      '5.70',
      '35.70',
    ])
    expect(orderRows[4]!.slice(8, 15)).toEqual([
      'NL123456789B01',
      'yes',
      'NL',
      'EUR',
      '15.00',
      '0.00',
      '15.00',
    ])

    const documents = await csvRows(await file('documents.csv'))
    expect(documents.slice(1)).toEqual([
      [
        sales.documents.germanyInvoice.number,
        '2025-04-03',
        'Invoice',
        String(sales.germany.number),
        '',
        'DE',
        'EUR',
        '30.00',
        '5.70',
        '35.70',
      ],
      [
        sales.documents.untaxedInvoice.number,
        '2025-04-15',
        'Invoice',
        String(sales.untaxed.number),
        '',
        'US',
        'USD',
        '19.99',
        '0.00',
        '19.99',
      ],
      [
        sales.documents.germanyCredit.number,
        '2025-04-25',
        'Credit note',
        String(sales.germany.number),
        sales.documents.germanyInvoice.number,
        'DE',
        'EUR',
        '20.00',
        '3.80',
        '23.80',
      ],
    ])
    // May's credit note is May's.
    const mayDocuments = await csvRows(await file('documents.csv', 'period=month&month=2025-05'))
    expect(mayDocuments.slice(1).map((row) => row[0])).toEqual([sales.documents.untaxedCredit.number])

    const refunds = await csvRows(await file('refunds.csv'))
    expect(refunds.slice(1)).toEqual([
      [
        String(sales.germany.number),
        '2025-04-25',
        '2025-04-25T10:00:00Z',
        'DE',
        'no',
        sales.documents.germanyCredit.number,
        'EUR',
        '20.00',
        '3.80',
        '23.80',
      ],
      [
        String(sales.france.number),
        '2025-04-28',
        '2025-04-28T10:00:00Z',
        'FR',
        'no',
        '',
        'EUR',
        '10.00',
        '0.55',
        '10.55',
      ],
    ])

    const tax = await csvRows(await file('tax.csv'))
    expect(tax[0]).toEqual([
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
    ])
    expect(tax.slice(1)).toEqual([
      ['Taxed', 'AU', 'Australia', 'AU', '10', 'USD', '10.00', '1.00', '0.00', '0.00', '10.00', '1.00'],
      ['Taxed', 'DE', 'Germany', 'EU', '19', 'EUR', '30.00', '5.70', '20.00', '3.80', '10.00', '1.90'],
      ['Taxed', 'FR', 'France', 'EU', '5.5', 'EUR', '10.00', '0.55', '10.00', '0.55', '0.00', '0.00'],
      [
        'Reverse charge (net only)',
        'NL',
        'Netherlands',
        'EU',
        '',
        'EUR',
        '15.00',
        '',
        '0.00',
        '',
        '15.00',
        '',
      ],
      ['No tax charged', '', 'No tax charged', '', '', 'USD', '19.99', '', '0.00', '', '19.99', ''],
    ])
    // May: the dollar sale given back, a negative taxable amount.
    const mayTax = await csvRows(await file('tax.csv', 'period=month&month=2025-05'))
    expect(mayTax.slice(1)).toEqual([
      ['No tax charged', '', 'No tax charged', '', '', 'USD', '0.00', '', '19.99', '', '-19.99', ''],
    ])
  })

  test('the workbook opens: four sheets with the same rows', async () => {
    const response = await load(
      accountsExportLoader,
      '/admin/accounts/accounts.xlsx?period=quarter&quarter=2025-Q2',
    )
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    )
    expect(response.headers.get('Content-Disposition')).toBe(
      'attachment; filename="codebook-accounts-2025-Q2.xlsx"',
    )
    const zip = await JSZip.loadAsync(await response.arrayBuffer())
    const workbook = await zip.file('xl/workbook.xml')!.async('string')
    expect([...workbook.matchAll(/<sheet name="([^"]+)"/g)].map((match) => match[1])).toEqual([
      'Orders',
      'Invoices and credit notes',
      'Refunds',
      'Tax per country and rate',
    ])
    const sheet = (n: number) => zip.file(`xl/worksheets/sheet${n}.xml`)!.async('string')
    const text = (value: string) => `<t xml:space="preserve">${value}</t>`
    const rowsOf = (xml: string) => xml.match(/<row /g)!.length - 1
    const ordersSheet = await sheet(1)
    expect(rowsOf(ordersSheet)).toBe(5)
    expect(ordersSheet).toContain(`<c r="A2"><v>${sales.germany.number}</v></c>`)
    expect(ordersSheet).toContain(text('NL123456789B01'))
    // Money is a number with two decimals: the German order's total.
    expect(ordersSheet).toContain('<c r="O2" s="1"><v>35.70</v></c>')
    const documentsSheet = await sheet(2)
    expect(rowsOf(documentsSheet)).toBe(4)
    expect(documentsSheet).toContain(text(sales.documents.untaxedCredit.number))
    expect(rowsOf(await sheet(3))).toBe(3)
    const taxSheet = await sheet(4)
    expect(taxSheet).toContain(text('Germany'))
    // The quarter's untaxed dollars: 19.99 sold, 19.99 given back in May.
    expect(taxSheet).toMatch(
      /No tax charged.*<v>19\.99<\/v><\/c><c r="I\d" s="1"><v>19\.99<\/v><\/c><c r="K\d" s="1"><v>0\.00<\/v>/,
    )
  })
})

describe('the front page: today’s and this month’s money', () => {
  test('gross, refunds, tax and net per currency; requested and failed refunds do not count', async () => {
    const buyer = await createReader(database.db)
    const now = new Date()
    const germany = await paidOrder({
      buyer,
      country: 'DE',
      billing: 'DE',
      currency: 'EUR',
      rateBp: 1900,
      prices: [1190, 2380],
      paidAt: now,
    })
    const untaxed = await paidOrder({
      buyer,
      country: null,
      billing: 'US',
      currency: 'USD',
      rateBp: 0,
      prices: [999],
      paidAt: now,
    })
    await refund(germany, [0], now)
    await refund(germany, [1], now, 'requested')
    await refund(untaxed, [0], now, 'failed')
    const overview = await load(overviewLoader, '/admin')
    const expected = [
      {
        currency: 'EUR',
        orders: 1,
        grossCents: 3570,
        refunds: 1,
        refundsCents: 1190,
        taxCents: 570 - 190,
        netCents: 3000 - 1000,
      },
      {
        currency: 'USD',
        orders: 1,
        grossCents: 999,
        refunds: 0,
        refundsCents: 0,
        taxCents: 0,
        netCents: 999,
      },
    ]
    expect(overview.today).toEqual(expected)
    expect(overview.month).toEqual(expected)
    const text = textOf(
      renderRoute({ Component: Overview as never, pattern: 'admin', path: '/admin', loaderData: overview }),
    )
    expect(text).toContain(
      'Today €20 net revenue 1 order , 1 refund Gross sales €35.70 Refunds -€11.90 Tax -€3.80 $9.99 net revenue 1 order , 0 refunds Gross sales $9.99 Refunds $0 Tax $0',
    )
  })
})

describe('a long file', () => {
  test('every order of the period once, in order, across batches and orders paid at the same moment', async () => {
    const buyer = await createReader(database.db)
    // 2,500 orders in February 2024, five at each moment: batches of 1,000 end in the middle of a tie.
    await database.db.execute(sql`
      insert into orders (user_id, status, paid_at, total_cents, net_cents, currency, idempotency_key,
        attempt_id, payment_provider, payment_reference)
      select ${buyer.userId}, 'paid', '2024-02-01T00:00:00Z'::timestamptz + (g / 5) * interval '1 minute', 100,
        100, 'USD', 'long-' || g, 'long-' || g, 'test', 'long-' || g
      from generate_series(0, 2499) as g`)
    const rows = await csvRows(
      await load(accountsExportLoader, '/admin/accounts/orders.csv?period=month&month=2024-02'),
    )
    const numbers = rows.slice(1).map((row) => Number(row[0]))
    expect(numbers).toHaveLength(2500)
    expect(numbers).toEqual(numbers.toSorted((a, b) => a - b))
    expect(rows.at(-1)!.slice(1, 3)).toEqual(['2024-02-01', '2024-02-01T08:19:00Z'])
  })
})

describe('the money kept per day', () => {
  test('follows every write of an order or a refund: it is always what the orders and refunds add up to', async () => {
    const everyDay = { from: '2025-01-01', to: new Date().toISOString().slice(0, 10), timeZone: 'UTC' }
    const bothWays = async () => {
      const kept = await getMoneyByDay(database.db, everyDay)
      expect(kept).toEqual(await getMoneyByDay(database.db, everyDay, { fromOrders: true }))
      return kept
    }
    const buyer = await createReader(database.db)
    const order = await paidOrder({
      buyer,
      country: 'DE',
      billing: 'DE',
      currency: 'EUR',
      rateBp: 1900,
      prices: [1190, 2380],
      paidAt: on('2025-06-10'),
    })
    await refund(order, [0], on('2025-06-12'), 'requested')
    const before = await bothWays()
    expect(before.filter((day) => day.day.startsWith('2025-06'))).toMatchObject([
      { day: '2025-06-10', orders: 1, grossCents: 3570, refunds: 0 },
    ])
    // The requested refund is confirmed; the order's payment date is corrected by hand; another refund
    // recorded by mistake is deleted.
    await database.db
      .update(orderRefunds)
      .set({ status: 'confirmed', confirmedAt: on('2025-06-14') })
      .where(eq(orderRefunds.orderId, order.id))
    await database.db
      .update(orders)
      .set({ paidAt: on('2025-06-11') })
      .where(eq(orders.id, order.id))
    await refund(order, [1], on('2025-06-15'))
    await database.db
      .delete(orderRefunds)
      .where(and(eq(orderRefunds.orderId, order.id), eq(orderRefunds.confirmedAt, on('2025-06-15'))))
    // Setting a column to what it was changes nothing.
    await database.db
      .update(orders)
      .set({ paidAt: on('2025-06-11'), totalCents: 3570 })
      .where(eq(orders.id, order.id))
    const after = await bothWays()
    expect(after.filter((day) => day.day.startsWith('2025-06'))).toMatchObject([
      { day: '2025-06-11', currency: 'EUR', orders: 1, grossCents: 3570, taxCents: 570, refunds: 0 },
      {
        day: '2025-06-14',
        currency: 'EUR',
        orders: 0,
        refunds: 1,
        refundsCents: 1190,
        taxCents: -190,
        netCents: -1000,
      },
    ])
  })
})

describe('migration 0036', () => {
  test('the orders paid and refunds confirmed before it are in the money kept per day', async () => {
    const { handle, dispose } = await openMigrationDatabase()
    try {
      await migrateUpTo(handle, '0034_order-refunds')
      const { db } = handle
      await db.execute(
        sql`insert into "user" (id, name, email) values ('old-buyer', 'Old', 'old@example.com')`,
      )
      // Paid, refunded (with its refund copied by 0034), pending, in two currencies and on two days.
      await db.execute(sql`
        insert into orders (user_id, status, total_cents, net_cents, tax_cents, currency, idempotency_key,
          attempt_id, payment_provider, paid_at, refunded_at)
        values ('old-buyer', 'paid', 1190, 1000, 190, 'EUR', 'a', 'a', 'test', '2026-01-10T09:00:00Z', null),
               ('old-buyer', 'refunded', 1999, 1999, 0, 'USD', 'b', 'b', 'test', '2026-01-10T23:00:00Z', null),
               ('old-buyer', 'pending', 500, 500, 0, 'USD', 'c', 'c', 'test', null, null)`)
      await db.execute(sql`
        insert into order_refunds (order_id, status, amount_cents, net_cents, tax_cents, currency, lines,
          requested_by, confirmed_at)
        select id, 'confirmed', 1999, 1999, 0, 'USD', '[]'::jsonb, 'migration', '2026-01-12T08:00:00Z'
        from orders where idempotency_key = 'b'`)
      await handle.migrate()
      const january = { from: '2026-01-01', to: '2026-01-31', timeZone: 'UTC' }
      const kept = await getMoneyByDay(db, january)
      expect(kept).toEqual(await getMoneyByDay(db, january, { fromOrders: true }))
      expect(
        kept.map((day) => [day.day, day.currency, day.orders, day.grossCents, day.refundsCents]),
      ).toEqual([
        ['2026-01-10', 'EUR', 1, 1190, 0],
        ['2026-01-10', 'USD', 1, 1999, 0],
        ['2026-01-12', 'USD', 0, 0, 1999],
      ])
    } finally {
      await dispose()
    }
  })
})

describe('the accounts page refuses a bad period, next to its field', () => {
  test.each([
    ['period=month&month=2025-13', 'month', 'Enter a month as YYYY-MM.'],
    ['period=month', 'month', 'Choose a month.'],
    ['period=quarter&quarter=2025-Q5', 'quarter', 'Enter a quarter as YYYY-Q1 to YYYY-Q4.'],
    ['period=year&year=1999', 'year', 'Choose a year from 2000 to 2999.'],
    ['period=custom&from=2025-02-30&to=2025-03-01', 'from', 'That day does not exist.'],
    ['period=custom&from=2025-03-01', 'to', 'Enter the last day.'],
    ['period=custom&from=2025-03-05&to=2025-03-01', 'to', 'The last day must not be before the first.'],
    ['period=custom&from=2020-01-01&to=2025-01-01', 'to', 'Choose a period of at most 5 years.'],
    ['period=week', 'period', 'Choose a month, a quarter, a year or a custom period.'],
  ])('%s → 400, %s: %s', async (query, field, message) => {
    const page = await answerOf(load(accountsLoader, `/admin/accounts?${query}`))
    expect(page.status).toBe(400)
    expect(page.body).toMatchObject({ errors: { [field]: message }, period: null, money: [] })
    const file = await load(accountsExportLoader, `/admin/accounts/tax.csv?${query}`)
    expect(file.status).toBe(400)
    expect(await file.text()).toContain(message)
  })

  test('five years less a day is accepted; no period at all is this month', async () => {
    const longest = await answerOf(
      load(accountsLoader, '/admin/accounts?period=custom&from=2020-01-01&to=2024-12-31'),
    )
    expect(longest.status).toBe(200)
    const fresh = await answerOf(load(accountsLoader, '/admin/accounts'))
    const month = new Date().toISOString().slice(0, 7)
    expect(fresh.body).toMatchObject({
      form: { period: 'month', month },
      period: { kind: 'month', slug: month },
    })
  })
})
