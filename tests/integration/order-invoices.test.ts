import crypto from 'node:crypto'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { and, asc, eq, sql } from 'drizzle-orm'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub } from 'react-router'
import { describe, expect, vi } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { addToCart, requireUserCart, setCartCoupon } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { InvoiceDocument } from '#app/features/invoices/invoice-document.ts'
import { issueDateIn } from '#app/features/invoices/issue-date.ts'
import { cardBrand } from '#app/features/orders/card.ts'
import { checkoutWithCard } from '#app/features/orders/card-checkout.server.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import { checkoutFree } from '#app/features/orders/free-checkout.server.ts'
import { createTestPaymentProvider } from '#app/features/orders/payments.server.ts'
import { readEditableStoreSettings, saveStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { saveTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import type { BuyerTax } from '#app/features/tax/checkout-tax.server.ts'
import AdminOrder, { action as adminAction, loader as adminLoader } from '#app/routes/admin/order.tsx'
import { loader as adminDownload } from '#app/routes/admin/order-invoice.ts'
import Order, { loader as orderLoader } from '#app/routes/order.tsx'
import { loader as download } from '#app/routes/order-invoice.ts'
import {
  coupons,
  emailAttachments,
  emailOutbox,
  invoices,
  orderItems,
  orderRefunds,
  orders,
} from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'
import { deliverOutboxOverSmtp } from '#tests/smtp.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'

/**
 * Invoices issued when an order is paid (issue 31): in the payment's transaction, attached to the receipt,
 * downloadable by the buyer and the back office only; and, while the seller's legal identity is not set, paid
 * orders without one that the back office can invoice later.
 */

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let admin: Awaited<ReturnType<typeof createAdmin>>
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-order-invoices-'))

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  admin = await createAdmin(database.db)
  await saveTaxSettings(database.db, admin.actor, {
    pricesIncludeTax: true,
    sellerCountry: 'DE',
    sellerVatNumber: 'DE123456789',
  })
})
test.afterAll(() => fs.rmSync(folder, { recursive: true, force: true }))

const book = (index: number) => catalogue[index % catalogue.length]!
const inGermany: BuyerTax = { billingCountry: 'DE', ipCountry: 'DE', evidenceStatus: 'two-agree' }
const thisYear = () => issueDateIn(new Date(), 'UTC').year

/** The seller's legal identity in the store's settings (empty: not set). */
async function setSeller(legalName: string, postalAddress: string) {
  const { settings, version } = await readEditableStoreSettings(database.db)
  const { logo: _logo, ...edited } = settings
  const saved = await saveStoreSettings(database.db, admin.actor, version, {
    ...edited,
    legalName,
    postalAddress,
    contactEmail: 'billing@codebook.example',
  })
  expect(saved.outcome).toBe('saved')
}
const sellerIsSet = () => setSeller('CodeBook GmbH', 'Hauptstraße 1\n10115 Berlin')

function pdfText(pdf: Uint8Array): string {
  const file = path.join(folder, `${crypto.randomUUID()}.pdf`)
  fs.writeFileSync(file, pdf)
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/[ \t]+/g, ' ')
}

async function invoicesOf(orderId: string) {
  return database.db
    .select()
    .from(invoices)
    .where(eq(invoices.orderId, orderId))
    .orderBy(asc(invoices.issuedAt), sql`${invoices.kind} <> 'invoice'`, asc(invoices.sequence))
}

function loadAdminOrder(orderId: string) {
  return adminLoader(
    routeArgs({
      db: database.db,
      path: `/admin/orders/${orderId}`,
      cookie: admin.cookie,
      params: { orderId },
    }),
  )
}

function postAdmin(orderId: string, fields: Record<string, string>) {
  return adminAction(
    routeArgs({
      db: database.db,
      path: `/admin/orders/${orderId}`,
      cookie: admin.cookie,
      params: { orderId },
      init: { method: 'POST', body: new URLSearchParams(fields) },
    }),
  )
}

/** A page as the server renders it from its loader data. */
function render(
  routePath: string,
  url: string,
  Component: typeof Order | typeof AdminOrder,
  loaderData: unknown,
) {
  const Stub = createRoutesStub([{ id: 'page', path: routePath, Component }])
  return renderToString(
    createElement(Stub, { initialEntries: [url], hydrationData: { loaderData: { page: loaderData } } }),
  ).replaceAll('<!-- -->', '')
}

/** The links of a page: where each goes and what it says. */
function linksIn(html: string) {
  return [...html.matchAll(/<a [^>]*href="([^"]*)"[^>]*>(.*?)<\/a>/g)].map(([, href, text]) => ({
    href: href!,
    text: text!.replace(/<[^>]+>/g, ''),
  }))
}

describe('the invoice, issued when the order is paid', () => {
  test('numbered this year, with the seller, the buyer’s country and each line as the order stored it', async () => {
    await sellerIsSet()
    const bought = await createBuyer(database.db, [book(0).id, book(1).id], { buyer: inGermany })
    const [invoice, ...more] = await invoicesOf(bought.orderId)
    expect(more).toEqual([])
    const [order] = await database.db.select().from(orders).where(eq(orders.id, bought.orderId))
    expect(invoice).toMatchObject({
      kind: 'invoice',
      totalCents: order!.totalCents,
      taxCents: order!.taxCents,
    })
    expect(invoice!.number).toMatch(new RegExp(`^INV-${thisYear()}-\\d{6}$`))
    const document = invoice!.document as InvoiceDocument
    expect(document.issuedAt).toBe(order!.paidAt!.toISOString())
    expect(document.seller).toEqual({
      legalName: 'CodeBook GmbH',
      // The seller's country (tax settings) ends the address when the address does not name it.
      postalAddress: 'Hauptstraße 1\n10115 Berlin\nGermany',
      vatNumber: 'DE123456789',
      email: 'billing@codebook.example',
    })
    expect(document.buyer).toMatchObject({ email: bought.email, country: 'DE', vatNumber: null })
    const items = await database.db
      .select()
      .from(orderItems)
      .where(eq(orderItems.orderId, bought.orderId))
      .orderBy(asc(orderItems.title))
    // Germany's 7 % on eBooks, included in the price, as checkout stored it.
    expect(items.every((item) => item.taxRateBp === 700 && item.taxCents > 0)).toBe(true)
    expect(
      document.lines.map(({ title, netCents, taxRateBp, taxCents, grossCents }) => ({
        title,
        netCents,
        taxRateBp,
        taxCents,
        grossCents,
      })),
    ).toEqual(
      items.map(({ title, netCents, taxRateBp, taxCents, grossCents }) => ({
        title,
        netCents,
        taxRateBp,
        taxCents,
        grossCents,
      })),
    )
  })

  test('made out to the name and address the buyer gave at checkout', async () => {
    await sellerIsSet()
    const invoiceTo = {
      billingName: 'Łódź Books sp. z o.o.',
      billingAddress: 'ul. Piotrkowska 1\n90-001 Łódź',
    }
    const bought = await createBuyer(database.db, [book(2).id], { buyer: { ...inGermany, ...invoiceTo } })
    const [invoice] = await invoicesOf(bought.orderId)
    expect((invoice!.document as InvoiceDocument).buyer).toMatchObject({
      name: 'Łódź Books sp. z o.o.',
      address: 'ul. Piotrkowska 1\n90-001 Łódź',
      email: bought.email,
    })
  })

  test('the receipt carries it: INV-….pdf, application/pdf, naming the order (through a real SMTP server)', async () => {
    await sellerIsSet()
    const bought = await createBuyer(database.db, [book(2).id], { buyer: inGermany })
    const [invoice] = await invoicesOf(bought.orderId)
    const received = (await deliverOutboxOverSmtp(database.db)).filter(
      (mail) => mail.envelope.to.includes(bought.email) && mail.parsed.subject?.includes('receipt'),
    )
    expect(received).toHaveLength(1)
    const { parsed } = received[0]!
    expect(parsed.text).toContain(`Your invoice is attached (${invoice!.number}.pdf).`)
    expect(parsed.attachments).toHaveLength(1)
    const [attachment] = parsed.attachments
    expect(attachment!.filename).toBe(`${invoice!.number}.pdf`)
    expect(attachment!.filename).toMatch(/^INV-\d{4}-\d{6}\.pdf$/)
    expect(attachment!.contentType).toBe('application/pdf')
    const text = pdfText(attachment!.content)
    expect(text).toContain(`Number: ${invoice!.number}`)
    expect(text).toContain(`Order: #${bought.orderNumber}`)
    expect(text).toContain(book(2).title)
    // Sent, the attachment's bytes leave the outbox.
    const [receipt] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'receipt'), eq(emailOutbox.subjectKey, bought.orderId)))
    expect(
      await database.db.select().from(emailAttachments).where(eq(emailAttachments.emailId, receipt!.id)),
    ).toEqual([])
  })

  test('an order of 0 (a 100 % coupon) is invoiced at 0', async () => {
    await sellerIsSet()
    const reader = await createReader(database.db)
    const cartId = await requireUserCart(database.db, reader.userId)
    await addToCart(database.db, cartId, book(3).id)
    const code = `FREE${crypto.randomBytes(4).toString('hex').toUpperCase()}`
    await database.db.insert(coupons).values({ code, kind: 'percent', value: 100 })
    await setCartCoupon(database.db, cartId, code)
    const checkout = await getCheckout(database.db, reader.userId, { buyer: inGermany })
    expect(checkout.totalCents).toBe(0)
    const result = await checkoutFree(servicesFor(database.db), {
      userId: reader.userId,
      idempotencyKey: checkout.idempotencyKey,
      attemptId: checkout.attemptId,
      buyer: inGermany,
    })
    if (result.outcome !== 'order') throw new Error(`not ordered: ${result.outcome}`)
    const [invoice] = await invoicesOf(result.orderId)
    expect(invoice).toMatchObject({ kind: 'invoice', totalCents: 0, taxCents: 0, netCents: 0 })
    expect((invoice!.document as InvoiceDocument).lines).toEqual([
      expect.objectContaining({ title: book(3).title, grossCents: 0 }),
    ])
  })
})

describe('an order paid while the seller’s identity is not set', () => {
  test('is paid without an invoice, warned about once; the back office says why and issues it later', async () => {
    await setSeller('', '')
    const logger = createLogger('silent')
    const warn = vi.spyOn(logger, 'warn')
    const reader = await createReader(database.db)
    const cartId = await requireUserCart(database.db, reader.userId)
    for (const index of [4, 5]) await addToCart(database.db, cartId, book(index).id)
    const checkout = await getCheckout(database.db, reader.userId, { buyer: inGermany })
    const number = '4242424242424242'
    const result = await checkoutWithCard(
      { ...servicesFor(database.db), logger },
      createTestPaymentProvider(),
      {
        userId: reader.userId,
        idempotencyKey: checkout.idempotencyKey,
        attemptId: checkout.attemptId,
        buyer: inGermany,
        card: { number, brand: cardBrand(number), name: 'Ada Reader', expiry: '12/34', cvc: '123' },
      },
    )
    if (result.outcome !== 'order') throw new Error(`not ordered: ${result.outcome}`)
    const orderId = result.orderId
    const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId))
    expect(order!.status).toBe('paid')
    expect(await invoicesOf(orderId)).toEqual([])
    await vi.waitFor(() => expect(warn).toHaveBeenCalledTimes(1))
    expect(warn.mock.calls[0]).toEqual([
      expect.objectContaining({ orderId, reason: 'seller-not-set' }),
      'order paid without an invoice',
    ])
    // The receipt went out all the same, without an attachment.
    const [receipt] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'receipt'), eq(emailOutbox.subjectKey, orderId)))
    expect(
      await database.db.select().from(emailAttachments).where(eq(emailAttachments.emailId, receipt!.id)),
    ).toEqual([])

    const page = await loadAdminOrder(orderId)
    expect(page.order.missingInvoice).toBe("No invoice: set the seller's legal name and address in Settings")
    const html = render('/admin/orders/:orderId', `/admin/orders/${orderId}`, AdminOrder, page)
    expect(html).toContain('No invoice: set the seller&#x27;s legal name and address in Settings')
    expect(html).toMatch(/<button[^>]*type="submit"[^>]*>Issue invoice<\/button>/)
    // Asked while the identity is still missing: refused with the reason, nothing issued.
    expect(await postAdmin(orderId, { intent: 'issue-invoice' })).toMatchObject({
      init: { status: 409 },
      data: { invoiceError: expect.stringContaining('legal name') },
    })

    // A refund made meanwhile has no credit note: there is nothing to credit yet.
    const refunded = await postAdmin(orderId, {
      intent: 'refund',
      scope: 'lines',
      line: book(4).id,
      confirm: 'yes',
      key: crypto.randomUUID(),
    })
    expect((refunded as Response).status).toBe(302)

    await sellerIsSet()
    const before = new Date()
    const issued = await postAdmin(orderId, { intent: 'issue-invoice' })
    expect((issued as Response).headers.get('Location')).toBe(`/admin/orders/${orderId}?invoice=issued`)
    const documents = await invoicesOf(orderId)
    expect(documents.map((document) => document.kind)).toEqual(['invoice', 'credit_note'])
    const [invoice, creditNote] = documents
    // Dated the day it was issued, not the day of payment.
    expect(invoice!.issuedAt.getTime()).toBeGreaterThanOrEqual(before.getTime())
    expect((invoice!.document as InvoiceDocument).issueDate).toBe(new Date().toISOString().slice(0, 10))
    expect(invoice!.totalCents).toBe(order!.totalCents)
    // The earlier refund's credit note, for exactly what it gave back.
    const [refund] = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, orderId))
    expect(creditNote).toMatchObject({ totalCents: refund!.amountCents, creditsInvoiceId: invoice!.id })
    expect(refund!.creditNoteId).toBe(creditNote!.id)

    // Idempotent: asked again, the same invoice, no new number, no second audit entry.
    await postAdmin(orderId, { intent: 'issue-invoice' })
    expect(await invoicesOf(orderId)).toHaveLength(2)
    const { rows } = await listAuditLog(database.db, { entity: { type: 'order', id: orderId } })
    expect(rows.filter((row) => row.action === 'order.invoice')).toHaveLength(1)
    const after = await loadAdminOrder(orderId)
    expect(after.order.missingInvoice).toBeNull()
    expect(after.order.documents.map((document) => document.number)).toEqual([
      invoice!.number,
      creditNote!.number,
    ])
  })
})

describe('downloads', () => {
  test('the buyer’s order page links the invoice and each credit note; the PDFs are the buyer’s alone', async () => {
    await sellerIsSet()
    const bought = await createBuyer(database.db, [book(6).id, book(0).id], { buyer: inGermany })
    await postAdmin(bought.orderId, {
      intent: 'refund',
      scope: 'lines',
      line: book(6).id,
      confirm: 'yes',
      key: crypto.randomUUID(),
    })
    const [invoice, creditNote] = await invoicesOf(bought.orderId)
    expect(creditNote?.kind).toBe('credit_note')

    const page = await orderLoader(
      routeArgs({
        db: database.db,
        path: `/orders/${bought.orderId}`,
        cookie: bought.cookie,
        params: { orderId: bought.orderId },
      }),
    )
    const html = render('/orders/:orderId', `/orders/${bought.orderId}`, Order, page)
    expect(linksIn(html)).toEqual(
      expect.arrayContaining([
        { href: `/orders/${bought.orderId}/invoices/${invoice!.id}`, text: 'Download invoice (PDF)' },
        {
          href: `/orders/${bought.orderId}/invoices/${creditNote!.id}`,
          text: `Download credit note ${creditNote!.number} (PDF)`,
        },
      ]),
    )
    expect(html).toContain(`${formatPrice(creditNote!.totalCents, 'USD')} of this order was refunded.`)

    const get = (
      loader: typeof download | typeof adminDownload,
      pathname: string,
      cookie: string | undefined,
      params: { orderId: string; invoiceId: string },
    ) => loader(routeArgs({ db: database.db, path: pathname, cookie, params }))
    for (const document of [invoice!, creditNote!]) {
      const params = { orderId: bought.orderId, invoiceId: document.id }
      const response = (await get(
        download,
        `/orders/${params.orderId}/invoices/${params.invoiceId}`,
        bought.cookie,
        params,
      )) as Response
      expect(response.status).toBe(200)
      expect(response.headers.get('Content-Type')).toBe('application/pdf')
      expect(response.headers.get('Content-Disposition')).toBe(
        `attachment; filename="${document.number}.pdf"`,
      )
      expect(response.headers.get('Cache-Control')).toBe('private, no-store')
      expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(document.pdf))).toBe(true)
      const fromBackOffice = (await get(adminDownload, `/admin/orders/x`, admin.cookie, params)) as Response
      expect(fromBackOffice.headers.get('Content-Disposition')).toBe(
        `attachment; filename="${document.number}.pdf"`,
      )
    }

    // Anyone else: the same 404 as for a document that does not exist.
    const stranger = await createReader(database.db)
    const [otherOrder] = await database.db
      .select({ id: orders.id })
      .from(orders)
      .where(eq(orders.userId, stranger.userId))
    expect(otherOrder).toBeUndefined()
    const cases: [string | undefined, { orderId: string; invoiceId: string }][] = [
      [stranger.cookie, { orderId: bought.orderId, invoiceId: invoice!.id }],
      [undefined, { orderId: bought.orderId, invoiceId: invoice!.id }],
      // The buyer's own document, under another order's address.
      [bought.cookie, { orderId: crypto.randomUUID(), invoiceId: invoice!.id }],
      [bought.cookie, { orderId: bought.orderId, invoiceId: crypto.randomUUID() }],
      [bought.cookie, { orderId: bought.orderId, invoiceId: 'INV-2026-000001.pdf' }],
    ]
    for (const [cookie, params] of cases)
      expect(await thrownBy(() => get(download, '/orders/x', cookie, params))).toMatchObject({
        init: { status: 404 },
      })
    // The back office's route is the back office's: the buyer gets its 404 too.
    expect(
      await thrownBy(() =>
        get(adminDownload, '/admin/orders/x', bought.cookie, {
          orderId: bought.orderId,
          invoiceId: invoice!.id,
        }),
      ),
    ).toMatchObject({ init: { status: 404 }, data: { title: 'Page not found' } })
  })

  test('the back office’s order page lists the invoice and credit notes with their downloads', async () => {
    await sellerIsSet()
    const bought = await createBuyer(database.db, [book(1).id, book(2).id], { buyer: inGermany })
    await postAdmin(bought.orderId, {
      scope: 'amount',
      amount: '5',
      confirm: 'yes',
      key: crypto.randomUUID(),
    })
    const [invoice, creditNote] = await invoicesOf(bought.orderId)
    const page = await loadAdminOrder(bought.orderId)
    const html = render('/admin/orders/:orderId', `/admin/orders/${bought.orderId}`, AdminOrder, page)
    expect(linksIn(html)).toEqual(
      expect.arrayContaining([
        { href: `/admin/orders/${bought.orderId}/invoices/${invoice!.id}`, text: 'Download invoice (PDF)' },
        {
          href: `/admin/orders/${bought.orderId}/invoices/${creditNote!.id}`,
          text: `Download credit note ${creditNote!.number} (PDF)`,
        },
      ]),
    )
    expect(html).toContain(`, credit note ${creditNote!.number}`)
  })
})
