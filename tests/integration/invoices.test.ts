import crypto from 'node:crypto'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { and, asc, eq, sql } from 'drizzle-orm'
import { describe, expect } from 'vitest'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { deleteAccount } from '#app/features/identity/account-deletion.server.ts'
import {
  REVERSE_CHARGE_NOTE,
  summarizeLines,
  type InvoiceDocument,
  type InvoiceLine,
} from '#app/features/invoices/invoice-document.ts'
import { getInvoicePdf, listInvoicesOfOrder } from '#app/features/invoices/invoices.server.ts'
import {
  InvoiceError,
  issueCreditNote,
  issueInvoice,
  type IssueInvoiceInput,
} from '#app/features/invoices/issue-invoice.server.ts'
import type { Transaction } from '#app/server/db/database.server.ts'
import { invoiceCounters, invoices, orderItems, orders } from '#app/server/db/schema/index.server.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { servicesFor } from '#tests/route-args.ts'

let database: TestDatabase
test.beforeAll(({ database: fileDatabase }) => {
  database = fileDatabase
})

// Each test numbers in a year of its own, so that none depends on what another issued.
const inYear = (year: number, rest = '03-01T10:00:00Z') => new Date(`${year}-${rest}`)

const seller = {
  legalName: 'CodeBook GmbH',
  postalAddress: 'Hauptstraße 1\n10115 Berlin\nGermany',
  vatNumber: 'DE123456789',
  email: 'billing@codebook.example',
}
const buyer = {
  name: 'Ada Reader',
  email: 'ada@example.com',
  country: 'DE',
  address: null,
  vatNumber: null,
}

type Order = { id: string; number: number }

/** Paid orders of one new reader, written straight into the table: the invoice reads only the order's row. */
async function paidOrders(count: number, totalCents = 1190): Promise<Order[]> {
  const reader = await createReader(database.db)
  return database.db
    .insert(orders)
    .values(
      Array.from({ length: count }, () => ({
        userId: reader.userId,
        status: 'paid' as const,
        paidAt: new Date(),
        totalCents,
        // Recorded as untaxed (net = total): these tests hand the invoice its own lines.
        netCents: totalCents,
        currency: 'EUR',
        idempotencyKey: crypto.randomUUID(),
        attemptId: crypto.randomUUID(),
        paymentProvider: 'test',
        paymentReference: crypto.randomUUID(),
      })),
    )
    .returning({ id: orders.id, number: orders.number })
}

const book = (title: string, netCents: number, taxRateBp: number, taxCents: number): InvoiceLine => ({
  title,
  quantity: 1,
  netCents,
  taxRateBp,
  taxCents,
  grossCents: netCents + taxCents,
})

/** An invoice of one book at 19 % VAT included (the tax feature's figures, made up here). */
function invoiceOf(order: Order, overrides: Partial<IssueInvoiceInput> = {}): IssueInvoiceInput {
  const lines = overrides.lines ?? [book('Programming TypeScript', 1000, 1900, 190)]
  return {
    orderId: order.id,
    orderNumber: order.number,
    issuedAt: inYear(2040),
    timeZone: 'Europe/Berlin',
    seller,
    buyer,
    currency: 'EUR',
    pricesIncludeTax: true,
    lines,
    ...summarizeLines(lines),
    reverseCharge: false,
    notes: [],
    ...overrides,
  }
}

const issue = (input: IssueInvoiceInput) => database.db.transaction((tx) => issueInvoice(tx, input))
const sequenceOf = (number: string) => Number(number.split('-')[2])

/** A transaction that issues, then fails: the caller's order transaction rolling back after its invoice. */
class RolledBack extends Error {}
async function issueThenRollBack(input: IssueInvoiceInput): Promise<string> {
  let number = ''
  await expect(
    database.db.transaction(async (tx) => {
      number = (await issueInvoice(tx, input)).number
      throw new RolledBack()
    }),
  ).rejects.toBeInstanceOf(RolledBack)
  return number
}

/** The SQLSTATE and message a statement failed with. */
async function refusalOf(statement: PromiseLike<unknown>) {
  try {
    await statement
  } catch (error) {
    const { code, cause, message } = error as {
      code?: string
      message: string
      cause?: { code?: string; message?: string }
    }
    return { code: cause?.code ?? code, message: cause?.message ?? message }
  }
  return { code: 'no error', message: '' }
}

/** Holds the transaction open a moment after it took its number, so that the others queue behind it. */
const linger = (tx: Transaction) => tx.execute(sql`select pg_sleep(0.01)`)

describe('invoice numbers: gapless per series and year', () => {
  test('40 invoices issued at once are numbered 1 to 40, no gap and no duplicate', async () => {
    const made = await paidOrders(40)
    const issued = await Promise.all(
      made.map((order) =>
        database.db.transaction(async (tx) => {
          const invoice = await issueInvoice(tx, invoiceOf(order, { issuedAt: inYear(2041) }))
          await linger(tx)
          return invoice
        }),
      ),
    )
    expect(issued.map((invoice) => sequenceOf(invoice.number)).toSorted((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    )
    expect(new Set(issued.map((invoice) => invoice.number)).size).toBe(40)
    expect(issued.map((invoice) => invoice.number)).toContain('INV-2041-000040')
    const [counter] = await database.db
      .select()
      .from(invoiceCounters)
      .where(and(eq(invoiceCounters.series, 'INV'), eq(invoiceCounters.year, 2041)))
    expect(counter?.nextNumber).toBe(41)
  })

  test('a transaction that rolls back gives its number back, also among concurrent ones', async () => {
    const [first, second, ...more] = await paidOrders(32)
    const at = { issuedAt: inYear(2042) }
    expect(await issueThenRollBack(invoiceOf(first!, at))).toBe('INV-2042-000001')
    expect(await database.db.select().from(invoices).where(eq(invoices.orderId, first!.id))).toEqual([])
    expect((await issue(invoiceOf(second!, at))).number).toBe('INV-2042-000001')
    expect((await issue(invoiceOf(first!, at))).number).toBe('INV-2042-000002')

    // Every third of 30 concurrent order transactions fails after its invoice: the 20 that commit are 3..22.
    const outcomes = await Promise.allSettled(
      more.map((order, index) =>
        database.db.transaction(async (tx) => {
          const invoice = await issueInvoice(tx, invoiceOf(order, at))
          await linger(tx)
          if (index % 3 === 0) throw new RolledBack()
          return invoice
        }),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toHaveLength(10)
    const kept = await database.db
      .select({ sequence: invoices.sequence })
      .from(invoices)
      .where(and(eq(invoices.series, 'INV'), eq(invoices.year, 2042)))
      .orderBy(asc(invoices.sequence))
    expect(kept.map((row) => row.sequence)).toEqual(Array.from({ length: 22 }, (_, i) => i + 1))
  })

  test('numbers restart at 1 in each year of the seller’s time zone', async () => {
    const [late, later, utc] = await paidOrders(3)
    // 23:30 on New Year's Eve in Berlin, then half past midnight there: the new year's first invoice.
    const lastOf2035 = await issue(invoiceOf(late!, { issuedAt: new Date('2035-12-31T22:30:00Z') }))
    const firstOf2036 = await issue(invoiceOf(later!, { issuedAt: new Date('2035-12-31T23:30:00Z') }))
    // The same moment is still 2035 for a seller in UTC.
    const inUtc = await issue(
      invoiceOf(utc!, { issuedAt: new Date('2035-12-31T23:30:00Z'), timeZone: 'UTC' }),
    )
    expect([lastOf2035.number, firstOf2036.number, inUtc.number]).toEqual([
      'INV-2035-000001',
      'INV-2036-000001',
      'INV-2035-000002',
    ])
    const [row] = await database.db.select().from(invoices).where(eq(invoices.id, firstOf2036.id))
    expect(row).toMatchObject({ year: 2036, sequence: 1 })
    expect((row!.document as InvoiceDocument).issueDate).toBe('2036-01-01')
    await expect(issue(invoiceOf(late!, { timeZone: 'Mars/Olympus_Mons' }))).rejects.toMatchObject({
      code: 'bad-time-zone',
    })
  })

  test('issuing twice for one order, one after the other or at once, gives the one invoice and one number', async () => {
    const [order, next] = await paidOrders(2)
    const input = invoiceOf(order!, { issuedAt: inYear(2044) })
    const [a, b] = await Promise.all([issue(input), issue(input)])
    const again = await issue(input)
    expect(b).toEqual(a)
    expect(again).toEqual(a)
    expect(a.number).toBe('INV-2044-000001')
    expect(await listInvoicesOfOrder(database.db, order!.id)).toHaveLength(1)
    // No number was spent on the repeats.
    expect((await issue(invoiceOf(next!, { issuedAt: inYear(2044) }))).number).toBe('INV-2044-000002')
  })

  test('an invoice that does not add up, or of an unpaid order, is refused and takes no number', async () => {
    const [order] = await paidOrders(1)
    const at = { issuedAt: inYear(2045) }
    const refused = (input: IssueInvoiceInput) => issue(input).catch((error: unknown) => error)
    const wrongTotal = await refused(
      invoiceOf(order!, { ...at, totals: { netCents: 1000, taxCents: 190, grossCents: 1200 } }),
    )
    expect(wrongTotal).toBeInstanceOf(InvoiceError)
    expect(wrongTotal).toMatchObject({ code: 'invalid-document', message: expect.stringMatching(/totals/) })
    const lines = [book('Programming TypeScript', 1190, 0, 0)]
    expect(
      await refused(invoiceOf(order!, { ...at, lines, ...summarizeLines(lines), reverseCharge: true })),
    ).toMatchObject({ code: 'invalid-document', message: expect.stringMatching(/VAT number is missing/) })
    expect(await refused(invoiceOf(order!, { ...at, seller: { ...seller, legalName: ' ' } }))).toMatchObject({
      code: 'invalid-document',
      message: expect.stringMatching(/legal name/),
    })
    const [pending] = await database.db
      .update(orders)
      .set({ status: 'pending', paidAt: null })
      .where(eq(orders.id, order!.id))
      .returning({ id: orders.id, number: orders.number })
    expect(await refused(invoiceOf(pending!, at))).toMatchObject({ code: 'order-not-paid' })
    expect(await refused(invoiceOf({ id: crypto.randomUUID(), number: 1 }, at))).toMatchObject({
      code: 'order-not-found',
    })
    const [paid] = await paidOrders(1)
    expect((await issue(invoiceOf(paid!, at))).number).toBe('INV-2045-000001')
  })
})

describe('credit notes', () => {
  const at = (day: string) => ({ issuedAt: new Date(`2043-${day}T10:00:00Z`), timeZone: 'Europe/Berlin' })
  const credit = (input: Parameters<typeof issueCreditNote>[1]) =>
    database.db.transaction((tx) => issueCreditNote(tx, input))

  test('are numbered in their own series, and never credit more than the invoice has left', async () => {
    const lines = [
      book('Programming TypeScript', 1000, 1900, 190),
      book('Tax Law for Coders', 2000, 700, 140),
    ]
    const [order, other] = await paidOrders(2, 3330)
    await issue(
      invoiceOf(other!, { issuedAt: inYear(2043, '01-01T10:00:00Z'), lines, ...summarizeLines(lines) }),
    )
    const invoice = await issue(invoiceOf(order!, { ...at('03-01'), lines, ...summarizeLines(lines) }))
    expect(invoice.number).toBe('INV-2043-000002')

    // A partial refund of the second book: the caller says what net and VAT it gives back.
    const partial = await credit({
      invoiceId: invoice.id,
      lines: [{ line: 1, netCents: 1000, taxCents: 70 }],
      ...at('03-02'),
      reason: 'Partial refund: the book was withdrawn',
    })
    expect(partial.number).toBe('CN-2043-000001')

    const over = await credit({
      invoiceId: invoice.id,
      lines: [{ line: 1, netCents: 1001, taxCents: 70 }],
      ...at('03-03'),
      reason: 'Again',
    }).catch((error: unknown) => error)
    expect(over).toBeInstanceOf(InvoiceError)
    expect(over).toMatchObject({
      code: 'over-credit',
      message: expect.stringContaining(
        "line 2 ('Tax Law for Coders') has 10.00 EUR net and 0.70 EUR VAT left",
      ),
    })

    const rest = await credit({ invoiceId: invoice.id, lines: 'remaining', ...at('03-04'), reason: 'Refund' })
    // The refused one took no number.
    expect(rest.number).toBe('CN-2043-000002')
    const [row] = await database.db.select().from(invoices).where(eq(invoices.id, rest.id))
    expect(row).toMatchObject({
      kind: 'credit_note',
      creditsInvoiceId: invoice.id,
      netCents: 2000,
      taxCents: 260,
      totalCents: 2260,
    })
    expect(
      (row!.document as InvoiceDocument).lines.map((line) => [line.creditsLine, line.grossCents]),
    ).toEqual([
      [0, 1190],
      [1, 1070],
    ])
    expect(
      await credit({ invoiceId: invoice.id, lines: 'remaining', ...at('03-05'), reason: 'Once more' }).catch(
        (error: unknown) => error,
      ),
    ).toMatchObject({ code: 'nothing-to-credit' })
    expect(
      await credit({
        invoiceId: invoice.id,
        lines: [{ line: 0, netCents: 1, taxCents: 0 }],
        ...at('03-05'),
        reason: 'x',
      }).catch((error: unknown) => error),
    ).toMatchObject({
      code: 'over-credit',
      message: expect.stringMatching(/0\.00 EUR left to credit .* \(33\.30 EUR credited already\)/),
    })

    expect(
      (await listInvoicesOfOrder(database.db, order!.id)).map((row) => [
        row.kind,
        row.number,
        row.totalCents,
      ]),
    ).toEqual([
      ['invoice', 'INV-2043-000002', 3330],
      ['credit_note', 'CN-2043-000001', 1070],
      ['credit_note', 'CN-2043-000002', 2260],
    ])
  })

  test('two credit notes of one invoice at once do not both take what is left', async () => {
    const [order] = await paidOrders(1)
    const invoice = await issue(invoiceOf(order!, at('04-01')))
    const outcomes = await Promise.allSettled(
      [0, 1].map(() =>
        credit({ invoiceId: invoice.id, lines: 'remaining', ...at('04-02'), reason: 'Refund' }),
      ),
    )
    expect(outcomes.map((outcome) => outcome.status).toSorted()).toEqual(['fulfilled', 'rejected'])
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({
      reason: { code: 'nothing-to-credit' },
    })
  })
})

describe('issued invoices are immutable', () => {
  test('the database refuses to update, delete or truncate them, and to delete their order', async () => {
    const [order] = await paidOrders(1)
    const invoice = await issue(invoiceOf(order!, { issuedAt: inYear(2046) }))
    const refusals = [
      await refusalOf(database.db.update(invoices).set({ totalCents: 0 }).where(eq(invoices.id, invoice.id))),
      await refusalOf(database.db.delete(invoices).where(eq(invoices.id, invoice.id))),
    ]
    for (const refusal of refusals) {
      expect(refusal.code).toBe('23001')
      expect(refusal.message).toMatch(/invoice INV-2046-000001 is immutable/)
    }
    expect(await refusalOf(database.db.execute(sql`truncate invoices cascade`))).toMatchObject({
      code: '23001',
      message: expect.stringMatching(/immutable: TRUNCATE refused/),
    })
    // Its order is kept too: the foreign key restricts (23503 on PostgreSQL 15, 23001 on PGlite's 17).
    const orderDeletion = await refusalOf(database.db.delete(orders).where(eq(orders.id, order!.id)))
    expect(['23001', '23503']).toContain(orderDeletion.code)
    expect(orderDeletion.message).toMatch(/foreign key constraint "invoices_order_id_orders_id_fk"/)
    const [kept] = await database.db.select().from(invoices).where(eq(invoices.id, invoice.id))
    expect(kept).toMatchObject({ number: 'INV-2046-000001', totalCents: 1190 })
  })

  test('deleting the buyer’s account keeps their invoices, still downloadable by the back office only', async () => {
    const bookIds = (await listBooks(database.db)).slice(0, 1).map((b) => b.id)
    const bought = await createBuyer(database.db, bookIds)
    const [paid] = await database.db.select().from(orders).where(eq(orders.id, bought.orderId))
    const taxCents = Math.round((paid!.totalCents * 1900) / 11900)
    const lines = [book('A book', paid!.totalCents - taxCents, 1900, taxCents)]
    const input = invoiceOf(paid!, {
      issuedAt: inYear(2048),
      currency: paid!.currency,
      lines,
      ...summarizeLines(lines),
      buyer: { ...buyer, email: bought.email },
    })
    const invoice = await issue(input)
    const before = await getInvoicePdf(database.db, { invoiceId: invoice.id, userId: bought.userId })
    expect(before?.fileName).toBe('INV-2048-000001.pdf')
    const stranger = await createReader(database.db)
    expect(await getInvoicePdf(database.db, { orderId: bought.orderId, userId: stranger.userId })).toBeNull()
    expect(await getInvoicePdf(database.db, { invoiceId: 'not-a-uuid' })).toBeNull()

    await deleteAccount(
      { ...servicesFor(database.db), clientIp: '127.0.0.1' },
      { userId: bought.userId, email: bought.email },
    )
    const after = await getInvoicePdf(database.db, { orderId: bought.orderId })
    expect(after?.number).toBe('INV-2048-000001')
    expect(Buffer.from(after!.pdf).equals(Buffer.from(before!.pdf))).toBe(true)
  })
})

describe('the PDF, as pdftotext reads it', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-invoices-'))
  test.afterAll(() => fs.rmSync(folder, { recursive: true, force: true }))

  /** Runs a poppler tool on the PDF (`pdftotext -layout file -` keeps each table row on one line). */
  function poppler(pdf: Uint8Array, tool: 'pdftotext' | 'pdfinfo', ...args: string[]): string {
    const file = path.join(folder, `${crypto.randomUUID()}.pdf`)
    fs.writeFileSync(file, pdf)
    return execFileSync(tool, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], { encoding: 'utf8' })
  }
  const pdfOf = async (id: string) => (await getInvoicePdf(database.db, { invoiceId: id }))!.pdf
  const squeeze = (text: string) => text.replace(/[ \t]+/g, ' ')

  test('an order’s invoice names its number, seller, buyer, each line’s net, rate and VAT, and the totals', async () => {
    const bookIds = (await listBooks(database.db)).slice(0, 2).map((b) => b.id)
    const bought = await createBuyer(database.db, bookIds)
    const items = await database.db
      .select()
      .from(orderItems)
      .where(eq(orderItems.orderId, bought.orderId))
      .orderBy(asc(orderItems.title))
    // 19 % VAT included in each price paid, as the tax feature will store it.
    const lines = items.map((item) => {
      const taxCents = Math.round((item.priceCents * 1900) / 11900)
      return book(item.title, item.priceCents - taxCents, 1900, taxCents)
    })
    const name = 'Zoë Łódź-Kowalska Ελένη Иванова 山田'
    const invoice = await issue(
      invoiceOf(
        { id: bought.orderId, number: bought.orderNumber },
        {
          issuedAt: inYear(2047),
          currency: items[0]!.currency,
          lines,
          ...summarizeLines(lines),
          buyer: {
            name,
            email: bought.email,
            country: 'PL',
            address: 'ul. Piotrkowska 1\n90-001 Łódź',
            vatNumber: null,
          },
        },
      ),
    )
    const pdf = await pdfOf(invoice.id)
    expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe('%PDF-')
    const text = squeeze(poppler(pdf, 'pdftotext', '-layout'))
    const currency = items[0]!.currency
    expect(text).toContain('Invoice')
    expect(text).toContain('Number: INV-2047-000001')
    expect(text).toContain('Date of issue: 2047-03-01')
    expect(text).toContain(`Order: #${bought.orderNumber}`)
    expect(text).toContain('CodeBook GmbH')
    expect(text).toContain('VAT no. DE123456789')
    // The embedded font prints every European script as written; a script it lacks (CJK) becomes '?', the name
    // kept exactly in the metadata and the attachment.
    expect(text).toContain('Zoë Łódź-Kowalska Ελένη Иванова ??')
    expect(text).toContain('90-001 Łódź')
    expect(text).toContain(`Net (${currency})`)
    const money = (cents: number) => (cents / 100).toFixed(2)
    for (const line of lines)
      expect(text).toContain(
        `${line.title} ${money(line.netCents)} 19% ${money(line.taxCents)} ${money(line.grossCents)}`,
      )
    const totals = summarizeLines(lines).totals
    expect(text).toContain(`VAT 19% ${money(totals.netCents)} 19% ${money(totals.taxCents)}`)
    expect(text).toContain(`Total net ${money(totals.netCents)} ${currency}`)
    expect(text).toContain(`Total VAT ${money(totals.taxCents)} ${currency}`)
    expect(text).toContain(`Total ${money(totals.grossCents)} ${currency}`)
    expect(totals.grossCents).toBe(
      (await database.db.select().from(orders).where(eq(orders.id, bought.orderId)))[0]!.totalCents,
    )
    expect(text).not.toContain('Reverse charge')
    const info = poppler(pdf, 'pdfinfo')
    expect(info).toMatch(new RegExp(`Subject:\\s+Invoice INV-2047-000001 for ${name}\n`))
    // The document as issued travels inside the PDF, every name exactly as written.
    const pdfFile = path.join(folder, 'attached.pdf')
    const jsonFile = path.join(folder, 'attached.json')
    fs.writeFileSync(pdfFile, pdf)
    execFileSync('pdfdetach', ['-save', '1', '-o', jsonFile, pdfFile])
    const [row] = await database.db.select().from(invoices).where(eq(invoices.id, invoice.id))
    expect(JSON.parse(fs.readFileSync(jsonFile, 'utf8'))).toEqual(row!.document)
    expect((row!.document as InvoiceDocument).buyer.name).toBe(name)
    expect(info).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/)
    expect(info).toMatch(/Pages:\s+1\n/)
  })

  test('the reverse charge sentence is printed when, and only when, it applies', async () => {
    const [b2b, b2c] = await paidOrders(2, 2000)
    const lines = [book('Enterprise TypeScript', 2000, 0, 0)]
    const reverse = await issue(
      invoiceOf(b2b!, {
        issuedAt: inYear(2049),
        lines,
        ...summarizeLines(lines),
        reverseCharge: true,
        buyer: {
          name: 'Acme SARL',
          email: 'ap@acme.example',
          country: 'FR',
          address: '1 rue de la Paix\n75002 Paris',
          vatNumber: 'FR40303265045',
        },
      }),
    )
    const text = squeeze(poppler(await pdfOf(reverse.id), 'pdftotext', '-layout'))
    expect(text).toContain(REVERSE_CHARGE_NOTE)
    expect(text).toContain('VAT no. FR40303265045')
    expect(text).toContain('Enterprise TypeScript 20.00 0% 0.00 20.00')
    const [row] = await database.db.select().from(invoices).where(eq(invoices.id, reverse.id))
    expect((row!.document as InvoiceDocument).notes).toEqual([REVERSE_CHARGE_NOTE])

    const ordinaryLines = [book('Enterprise TypeScript', 1681, 1900, 319)]
    const ordinary = await issue(
      invoiceOf(b2c!, { issuedAt: inYear(2049), lines: ordinaryLines, ...summarizeLines(ordinaryLines) }),
    )
    expect(poppler(await pdfOf(ordinary.id), 'pdftotext')).not.toContain('Reverse charge')
  })

  test('long titles wrap and many lines flow onto further pages, the header repeated', async () => {
    const lines = Array.from({ length: 60 }, (_, i) =>
      book(
        i % 4 === 0
          ? `Book ${i + 1}: a very long title about building, testing and deploying web applications with TypeScript, React Router and PostgreSQL`
          : `Book ${i + 1}`,
        840,
        1900,
        160,
      ),
    )
    const [order] = await paidOrders(1, 60_000)
    const invoice = await issue(
      invoiceOf(order!, { issuedAt: inYear(2050), lines, ...summarizeLines(lines) }),
    )
    const pdf = await pdfOf(invoice.id)
    const pages = Number(/Pages:\s+(\d+)/.exec(poppler(pdf, 'pdfinfo'))![1])
    expect(pages).toBeGreaterThanOrEqual(2)
    const text = squeeze(poppler(pdf, 'pdftotext', '-layout'))
    expect(text).toContain('Invoice INV-2050-000001 (continued)')
    expect(text.match(/Description Net \(EUR\) VAT rate VAT \(EUR\) Gross \(EUR\)/g)).toHaveLength(pages)
    expect(text).toContain(`Page ${pages} of ${pages}`)
    // Every line is there once, the long titles wrapped under their first words.
    for (let i = 1; i <= 60; i++) expect(text).toMatch(new RegExp(`Book ${i}(:| 8\\.40)`))
    expect(text).toMatch(
      /\nBook 1: a very long title about building, testing and 8\.40 19% 1\.60 10\.00\ndeploying web applications/,
    )
    expect(text).toContain('Total 600.00 EUR')
  })

  test('a credit note says what it credits', async () => {
    const [order] = await paidOrders(1)
    const invoice = await issue(invoiceOf(order!, { issuedAt: inYear(2051) }))
    const note = await database.db.transaction((tx) =>
      issueCreditNote(tx, {
        invoiceId: invoice.id,
        lines: 'remaining',
        issuedAt: inYear(2051, '03-02T10:00:00Z'),
        reason: 'Refunded at the buyer’s request',
      }),
    )
    const text = squeeze(poppler(await pdfOf(note.id), 'pdftotext', '-layout'))
    expect(text).toContain('Credit note')
    expect(text).toContain('Number: CN-2051-000001')
    expect(text).toContain('Credits invoice: INV-2051-000001')
    expect(text).toContain('Programming TypeScript 10.00 19% 1.90 11.90')
    expect(text).toContain('Total credited 11.90 EUR')
    expect(text).toContain('Reason: Refunded at the buyer’s request')
  })
})
