import crypto from 'node:crypto'
import { and, asc, eq, sql } from 'drizzle-orm'
import Stripe from 'stripe'
import { beforeAll, describe, expect, vi } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { REVERSE_CHARGE_NOTE, type InvoiceDocument } from '#app/features/invoices/invoice-document.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { createStripePaymentProvider } from '#app/features/orders/stripe.server.ts'
import { readEditableStoreSettings, saveStoreSettings } from '#app/features/settings/store-settings.server.ts'
import type { BuyerTax } from '#app/features/tax/checkout-tax.server.ts'
import { saveTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import { action as orderAction, loader as orderLoader } from '#app/routes/admin/order.tsx'
import { action as webhookAction } from '#app/routes/stripe-webhook.ts'
import {
  emailOutbox,
  invoices,
  libraryItems,
  orderItems,
  orderRefunds,
  orders,
} from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'
import { deliverOutboxOverSmtp } from '#tests/smtp.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'

/**
 * Partial refunds from the back office's order page (issue 31): a line, several, or an amount spread over the
 * lines; never more than is left; each with its credit note, audit entry and mail; a book leaving the library
 * only once its line is refunded in full; with the test provider and with Stripe (a local fake of its API).
 */

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let admin: Awaited<ReturnType<typeof createAdmin>>

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  admin = await createAdmin(database.db)
  const { settings, version } = await readEditableStoreSettings(database.db)
  const { logo: _logo, ...edited } = settings
  await saveStoreSettings(database.db, admin.actor, version, {
    ...edited,
    legalName: 'CodeBook GmbH',
    postalAddress: 'Hauptstraße 1\n10115 Berlin',
    contactEmail: 'billing@codebook.example',
  })
  await saveTaxSettings(database.db, admin.actor, {
    pricesIncludeTax: true,
    sellerCountry: 'DE',
    sellerVatNumber: 'DE123456789',
  })
})

const book = (index: number) => catalogue[index % catalogue.length]!
/** A consumer in Germany (eBooks at 7 %, included in the price). */
const inGermany: BuyerTax = { billingCountry: 'DE', ipCountry: 'DE', evidenceStatus: 'two-agree' }
/** A French business with a valid VAT number: reverse charge, no VAT. */
const frenchBusiness: BuyerTax = {
  billingCountry: 'FR',
  ipCountry: 'FR',
  evidenceStatus: 'two-agree',
  reverseChargeVatNumber: 'FR40303265045',
}

/** A refund form as the order page posts it, with a fresh key unless one is given. */
function postRefund(orderId: string, fields: Record<string, string | string[]>, services?: StoreServices) {
  const body = new URLSearchParams({ confirm: 'yes', key: crypto.randomUUID() })
  for (const [name, value] of Object.entries(fields)) {
    body.delete(name)
    for (const one of [value].flat()) body.append(name, one)
  }
  return orderAction(
    routeArgs({
      db: database.db,
      path: `/admin/orders/${orderId}`,
      cookie: admin.cookie,
      services,
      params: { orderId },
      init: { method: 'POST', body },
    }),
  )
}

/** What the action answered: a redirect's target, or the data and status of a page shown again. */
function outcomeOf(result: unknown) {
  if (result instanceof Response) return { status: result.status, location: result.headers.get('Location') }
  const { data, init } = result as { data: Record<string, unknown>; init: ResponseInit | null }
  return { status: init?.status ?? 200, data }
}

async function orderRow(orderId: string) {
  return (await database.db.select().from(orders).where(eq(orders.id, orderId)))[0]!
}

async function linesOf(orderId: string) {
  return database.db
    .select()
    .from(orderItems)
    .where(eq(orderItems.orderId, orderId))
    .orderBy(asc(orderItems.title), asc(orderItems.bookId))
}

async function refundsOf(orderId: string) {
  return database.db
    .select()
    .from(orderRefunds)
    .where(eq(orderRefunds.orderId, orderId))
    .orderBy(asc(orderRefunds.requestedAt))
}

async function documentsOf(orderId: string) {
  return database.db
    .select()
    .from(invoices)
    .where(eq(invoices.orderId, orderId))
    .orderBy(asc(invoices.issuedAt), sql`${invoices.kind} <> 'invoice'`, asc(invoices.sequence))
}

async function ownedBy(userId: string) {
  const rows = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, userId))
  return rows.map((row) => ({ bookId: row.bookId, orderId: row.orderId }))
}

const sequenceOf = (number: string) => Number(number.split('-')[2])

describe('refunding one line, then the rest', () => {
  test('each refund: its row, a credit note for exactly its line, the book gone only with its line, a mail', async () => {
    const bought = await createBuyer(database.db, [book(0).id, book(1).id], { buyer: inGermany })
    const [first, second] = await linesOf(bought.orderId)
    const refunded = await postRefund(bought.orderId, {
      scope: 'lines',
      line: first!.bookId,
      reason: 'Wrong book',
    })
    expect(outcomeOf(refunded)).toEqual({
      status: 302,
      location: `/admin/orders/${bought.orderId}?refund=done`,
    })
    const [refund] = await refundsOf(bought.orderId)
    expect(refund).toMatchObject({
      status: 'confirmed',
      amountCents: first!.grossCents,
      netCents: first!.netCents,
      taxCents: first!.taxCents,
      requestedBy: admin.email,
      reason: 'Wrong book',
      lines: [
        {
          bookId: first!.bookId,
          netCents: first!.netCents,
          taxCents: first!.taxCents,
          grossCents: first!.grossCents,
        },
      ],
    })
    expect(refund!.providerReference).toMatch(/^test_refund_/)
    // The order stays paid; only the refunded line's book left the library.
    expect((await orderRow(bought.orderId)).status).toBe('paid')
    expect(await ownedBy(bought.userId)).toEqual([{ bookId: second!.bookId, orderId: bought.orderId }])

    const [invoice, creditNote] = await documentsOf(bought.orderId)
    expect(creditNote).toMatchObject({
      kind: 'credit_note',
      creditsInvoiceId: invoice!.id,
      netCents: first!.netCents,
      taxCents: first!.taxCents,
      totalCents: first!.grossCents,
    })
    expect(refund!.creditNoteId).toBe(creditNote!.id)
    const credited = creditNote!.document as InvoiceDocument
    expect(credited.lines).toEqual([
      expect.objectContaining({ title: first!.title, taxRateBp: 700, creditsLine: 0 }),
    ])
    expect(credited.notes).toContain('Reason: Wrong book')

    // The rest: the order is refunded, its last book leaves, and the invoice is credited in full.
    expect(outcomeOf(await postRefund(bought.orderId, { scope: 'everything' })).status).toBe(302)
    expect((await orderRow(bought.orderId)).status).toBe('refunded')
    expect(await ownedBy(bought.userId)).toEqual([])
    const documents = await documentsOf(bought.orderId)
    expect(documents.map((document) => document.kind)).toEqual(['invoice', 'credit_note', 'credit_note'])
    expect(documents[2]).toMatchObject({ netCents: second!.netCents, taxCents: second!.taxCents })
    const creditedCents = documents.slice(1).reduce((sum, document) => sum + document.totalCents, 0)
    expect(creditedCents).toBe(invoice!.totalCents)
    expect(sequenceOf(documents[2]!.number)).toBe(sequenceOf(creditNote!.number) + 1)

    // Audited, and each refund mailed: the first names its amount and the book that left, with its credit note.
    const { rows: audit } = await listAuditLog(database.db, { entity: { type: 'order', id: bought.orderId } })
    expect(audit.map((entry) => entry.action)).toEqual(['order.refund', 'order.refund'])
    expect(audit[1]!.after).toMatchObject({ status: 'paid', refund: { amountCents: first!.grossCents } })
    const mails = (await deliverOutboxOverSmtp(database.db)).filter(
      (mail) => mail.envelope.to.includes(bought.email) && mail.parsed.subject?.includes('refund'),
    )
    expect(mails).toHaveLength(2)
    const partial = mails.find((mail) => mail.parsed.text?.startsWith('Part of your order'))!
    expect(partial.parsed.subject).toBe(`Your CodeBook refund — order #${bought.orderNumber}`)
    expect(partial.parsed.text).toContain(
      `Part of your order #${bought.orderNumber} has been refunded: ${formatPrice(first!.grossCents, 'USD')} is on its way back to you.`,
    )
    expect(partial.parsed.text).toContain(`These eBooks have left your CodeBook library:\n- ${first!.title}`)
    expect(partial.parsed.text).not.toContain(second!.title)
    expect(partial.parsed.attachments.map((file) => [file.filename, file.contentType])).toEqual([
      [`${creditNote!.number}.pdf`, 'application/pdf'],
    ])
    // The last names only the book it took away, and the order as refunded.
    const last = mails.find((mail) => mail !== partial)!
    expect(last.parsed.text).toContain(
      `Your order #${bought.orderNumber} has been refunded: ${formatPrice(second!.grossCents, 'USD')}`,
    )
    expect(last.parsed.text).toContain(
      `These eBooks have left your CodeBook library:\n- ${second!.title}\n\n`,
    )
  })
})

describe('refunding an amount', () => {
  test('spread over the lines by what is left of each; the books stay until a line is refunded in full', async () => {
    const bought = await createBuyer(database.db, [book(0).id, book(2).id], { buyer: inGermany })
    const lines = await linesOf(bought.orderId)
    const total = lines.reduce((sum, line) => sum + line.grossCents, 0)
    expect(outcomeOf(await postRefund(bought.orderId, { scope: 'amount', amount: '10.01' })).status).toBe(302)
    const [refund] = await refundsOf(bought.orderId)
    expect(refund!.amountCents).toBe(1001)
    // Each line's part within a cent of its share, its tax at its own rate's proportion.
    for (const part of refund!.lines) {
      const line = lines.find((l) => l.bookId === part.bookId)!
      expect(Math.abs(part.grossCents - (1001 * line.grossCents) / total)).toBeLessThan(1)
      expect(part.taxCents).toBe(Math.round((part.grossCents * line.taxCents) / line.grossCents))
    }
    expect(refund!.lines.reduce((sum, part) => sum + part.grossCents, 0)).toBe(1001)
    expect((await ownedBy(bought.userId)).map((item) => item.bookId).toSorted()).toEqual(
      lines.map((line) => line.bookId).toSorted(),
    )
    const [, creditNote] = await documentsOf(bought.orderId)
    expect(creditNote).toMatchObject({
      totalCents: 1001,
      netCents: refund!.netCents,
      taxCents: refund!.taxCents,
    })

    // The rest of the first line alone: its book goes, the other stays.
    const [first, second] = lines
    expect(outcomeOf(await postRefund(bought.orderId, { scope: 'lines', line: first!.bookId })).status).toBe(
      302,
    )
    expect(await ownedBy(bought.userId)).toEqual([{ bookId: second!.bookId, orderId: bought.orderId }])
    // Everything the order's refunds gave back of that line is its gross, net and tax exactly.
    const given = (await refundsOf(bought.orderId))
      .flatMap((row) => row.lines)
      .filter((p) => p.bookId === first!.bookId)
    expect(given.reduce((sum, p) => sum + p.netCents, 0)).toBe(first!.netCents)
    expect(given.reduce((sum, p) => sum + p.taxCents, 0)).toBe(first!.taxCents)
    const page = await orderLoader(
      routeArgs({
        db: database.db,
        path: `/admin/orders/${bought.orderId}`,
        cookie: admin.cookie,
        params: { orderId: bought.orderId },
      }),
    )
    expect(page.order.lines.find((line) => line.bookId === first!.bookId)!.library.kind).toBe('revoked')
    expect(page.order.lines.find((line) => line.bookId === second!.bookId)!.library.kind).toBe('this-order')
    expect(page.order.canRefund).toBe(true)
  })
})

describe('what cannot be refunded', () => {
  test('bad amounts and choices: 400 with the message beside the field, nothing changed', async () => {
    const bought = await createBuyer(database.db, [book(3).id], { buyer: inGermany })
    const total = (await orderRow(bought.orderId)).totalCents
    const cases: [Record<string, string | string[]>, string, RegExp][] = [
      [{ scope: 'amount', amount: '0' }, 'amount', /above 0/],
      [{ scope: 'amount', amount: '-5' }, 'amount', /above 0/],
      [{ scope: 'amount', amount: 'ten' }, 'amount', /like 12\.50/],
      [{ scope: 'amount', amount: '1.234' }, 'amount', /two decimals/],
      [{ scope: 'amount', amount: '' }, 'amount', /Enter the amount/],
      [
        { scope: 'amount', amount: ((total + 1) / 100).toFixed(2) },
        'amount',
        /At most \$[\d.,]+ is left to refund/,
      ],
      [{ scope: 'lines' }, 'lines', /at least one book/],
      [{ scope: 'lines', line: book(4).id }, 'lines', /books of this order/],
      [{ scope: 'lines', line: 'not-a-book' }, 'lines', /books of this order/],
      [{ scope: 'sideways' }, 'scope', /what to refund/],
    ]
    for (const [fields, field, message] of cases) {
      const answer = outcomeOf(await postRefund(bought.orderId, fields))
      expect(answer.status, JSON.stringify(fields)).toBe(400)
      expect((answer.data!.fieldErrors as Record<string, string>)[field], JSON.stringify(fields)).toMatch(
        message,
      )
      // The form shows what was typed again.
      if (fields.amount !== undefined) expect(answer.data!.amount).toBe(fields.amount)
    }
    expect(await refundsOf(bought.orderId)).toEqual([])
    expect(await documentsOf(bought.orderId)).toHaveLength(1)
    expect((await listAuditLog(database.db, { entity: { type: 'order', id: bought.orderId } })).rows).toEqual(
      [],
    )

    // A line refunded in full cannot be refunded again; nor can more than is left.
    await postRefund(bought.orderId, { scope: 'amount', amount: '1' })
    const [line] = await linesOf(bought.orderId)
    const left = line!.grossCents - 100
    expect(
      outcomeOf(await postRefund(bought.orderId, { scope: 'amount', amount: ((left + 1) / 100).toFixed(2) })),
    ).toMatchObject({
      status: 400,
      data: { fieldErrors: { amount: `At most ${formatPrice(left, 'USD')} is left to refund.` } },
    })
    await postRefund(bought.orderId, { scope: 'lines', line: line!.bookId })
    expect((await orderRow(bought.orderId)).status).toBe('refunded')
    expect(outcomeOf(await postRefund(bought.orderId, { scope: 'amount', amount: '1' }))).toMatchObject({
      status: 409,
      data: { formError: /refunded already/ },
    })
  })

  test('two refunds at once never give back more than is left; the same form posted twice is one refund', async () => {
    const bought = await createBuyer(database.db, [book(5).id, book(6).id], { buyer: inGermany })
    const total = (await orderRow(bought.orderId)).totalCents
    // Each asks for 60 % of the order: both cannot be.
    const amount = (Math.ceil(total * 0.6) / 100).toFixed(2)
    const answers = (
      await Promise.all([0, 1].map(() => postRefund(bought.orderId, { scope: 'amount', amount })))
    ).map(outcomeOf)
    expect(answers.map((answer) => answer.status).toSorted()).toEqual([302, 400])
    let refunds = await refundsOf(bought.orderId)
    expect(refunds).toHaveLength(1)

    const key = crypto.randomUUID()
    const twice = (
      await Promise.all([0, 1].map(() => postRefund(bought.orderId, { scope: 'amount', amount: '1', key })))
    ).map(outcomeOf)
    expect(twice.map((answer) => answer.status)).toEqual([302, 302])
    refunds = await refundsOf(bought.orderId)
    expect(refunds).toHaveLength(2)
    expect(refunds.reduce((sum, refund) => sum + refund.amountCents, 0)).toBeLessThanOrEqual(total)
    // One credit note per refund, never more credited than invoiced.
    const documents = await documentsOf(bought.orderId)
    expect(documents.filter((document) => document.kind === 'credit_note')).toHaveLength(2)
  })
})

describe('the library', () => {
  test('a book also paid for in another order stays, through that order; a line refunded in full is no such order', async () => {
    const bought = await createBuyer(database.db, [book(0).id, book(1).id], { buyer: inGermany })
    const [first, second] = await linesOf(bought.orderId)
    // The same books paid for again in a second order (two Checkout tabs, as decision 009 allows).
    const [again] = await database.db
      .insert(orders)
      .values({
        userId: bought.userId,
        status: 'paid',
        paidAt: new Date(),
        totalCents: first!.grossCents + second!.grossCents,
        netCents: first!.grossCents + second!.grossCents,
        currency: 'USD',
        idempotencyKey: crypto.randomUUID(),
        attemptId: crypto.randomUUID(),
        paymentProvider: 'test',
        paymentReference: `test_${crypto.randomUUID()}`,
      })
      .returning({ id: orders.id })
    await database.db.insert(orderItems).values(
      [first!, second!].map((line) => ({
        orderId: again!.id,
        bookId: line.bookId,
        title: line.title,
        priceCents: line.grossCents,
        listPriceCents: line.grossCents,
        netCents: line.grossCents,
        grossCents: line.grossCents,
        currency: 'USD',
      })),
    )
    // The second order's first line refunded in full: it no longer stands for that book.
    await postRefund(again!.id, { scope: 'lines', line: first!.bookId })
    expect((await orderRow(again!.id)).status).toBe('paid')
    // The first order refunded whole: its second book stays (through the second order), its first goes.
    expect(await refundOrder(database.db, bought.orderId)).toBe('refunded')
    expect(await ownedBy(bought.userId)).toEqual([{ bookId: second!.bookId, orderId: again!.id }])
    // A script's refund is recorded too, with its credit note: the invoice is credited in full.
    const [refund] = await refundsOf(bought.orderId)
    expect(refund).toMatchObject({
      status: 'confirmed',
      requestedBy: 'cli',
      amountCents: (await orderRow(bought.orderId)).totalCents,
    })
    expect((await documentsOf(bought.orderId)).map((document) => document.kind)).toEqual([
      'invoice',
      'credit_note',
    ])
  })
})

describe('a reverse-charged order', () => {
  test('its credit note gives back net only, no VAT, and says the reverse charge applies', async () => {
    const bought = await createBuyer(database.db, [book(2).id, book(3).id], { buyer: frenchBusiness })
    const order = await orderRow(bought.orderId)
    expect(order).toMatchObject({ reverseCharge: true, taxCents: 0, buyerVatNumber: 'FR40303265045' })
    expect(outcomeOf(await postRefund(bought.orderId, { scope: 'amount', amount: '7.77' })).status).toBe(302)
    const [invoice, creditNote] = await documentsOf(bought.orderId)
    expect((invoice!.document as InvoiceDocument).reverseCharge).toBe(true)
    expect(creditNote).toMatchObject({ totalCents: 777, netCents: 777, taxCents: 0 })
    const document = creditNote!.document as InvoiceDocument
    expect(document.reverseCharge).toBe(true)
    expect(document.notes).toContain(REVERSE_CHARGE_NOTE)
    expect(document.buyer.vatNumber).toBe('FR40303265045')
  })
})

describe('refunding with Stripe', () => {
  const WEBHOOK_SECRET = 'whsec_codebook_partial_refunds'
  const STRIPE_ENV = { STRIPE_SECRET_KEY: 'sk_test_codebook_partial', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }
  const stripeApi = fakeStripeApi()
  const kickOutbox = vi.fn()
  let services: StoreServices

  beforeAll(() => {
    services = createStoreServices({
      db: database.db,
      env: parseEnv(STRIPE_ENV),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: createLogger('silent'),
      kickOutbox,
      payments: createStripePaymentProvider({
        secretKey: STRIPE_ENV.STRIPE_SECRET_KEY,
        webhookSecret: WEBHOOK_SECRET,
        httpClient: stripeApi.httpClient,
      }),
    })
  })

  /**
   * Stripe's API as far as refunds go (as in admin-orders.test.ts), behind the SDK's own fetch client: a
   * Checkout Session to read, refunds to create for an amount (a repeated idempotency key gets the first back),
   * each answered 'pending' as a card refund may be until Stripe's event says it succeeded.
   */
  function fakeStripeApi() {
    const requests: { path: string; headers: Headers; body: URLSearchParams }[] = []
    const refunds = new Map<string, Record<string, unknown>>()
    const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init)
      const body = new URLSearchParams(await request.text())
      const path = new URL(request.url).pathname
      requests.push({ path, headers: request.headers, body })
      const session = /^\/v1\/checkout\/sessions\/(cs_[^/]+)$/.exec(path)
      if (session)
        return Response.json({
          id: session[1],
          object: 'checkout.session',
          payment_intent: `pi_for_${session[1]}`,
        })
      if (path === '/v1/refunds' && request.method === 'POST') {
        const key = request.headers.get('Idempotency-Key') ?? crypto.randomUUID()
        if (!refunds.has(key))
          refunds.set(key, {
            id: `re_${crypto.randomBytes(12).toString('hex')}`,
            object: 'refund',
            status: 'pending',
            amount: Number(body.get('amount')),
            payment_intent: body.get('payment_intent'),
            metadata: { orderId: body.get('metadata[orderId]'), refundId: body.get('metadata[refundId]') },
          })
        return Response.json(refunds.get(key))
      }
      return Response.json({ error: { message: `No fake for ${path}` } }, { status: 404 })
    }
    return { requests, httpClient: Stripe.createFetchHttpClient(fetchFn as typeof fetch) }
  }

  /** Signed as Stripe signs its events. */
  function deliver(type: string, object: Record<string, unknown>) {
    const payload = JSON.stringify({
      id: `evt_${crypto.randomBytes(12).toString('hex')}`,
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      type,
      data: { object },
    })
    return webhookAction(
      routeArgs({
        db: database.db,
        path: '/webhooks/stripe',
        services,
        init: {
          method: 'POST',
          body: payload,
          headers: {
            'Content-Type': 'application/json',
            'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
          },
        },
      }),
    )
  }

  /** A paid Stripe order of two books, taxed in Germany, with its invoice issued from the back office. */
  async function paidStripeOrder() {
    const reader = await createReader(database.db)
    const lines = [book(0), book(1)].map((b) => {
      const taxCents = Math.round((b.priceCents * 700) / 10_700)
      return { book: b, netCents: b.priceCents - taxCents, taxCents, grossCents: b.priceCents }
    })
    const sum = (pick: (line: (typeof lines)[number]) => number) => lines.reduce((s, l) => s + pick(l), 0)
    const sessionId = `cs_test_${crypto.randomBytes(12).toString('hex')}`
    const [order] = await database.db
      .insert(orders)
      .values({
        userId: reader.userId,
        status: 'paid',
        paidAt: new Date(),
        totalCents: sum((l) => l.grossCents),
        netCents: sum((l) => l.netCents),
        taxCents: sum((l) => l.taxCents),
        taxCountry: 'DE',
        billingCountry: 'DE',
        currency: 'USD',
        idempotencyKey: crypto.randomUUID(),
        attemptId: crypto.randomUUID(),
        paymentProvider: 'stripe',
        paymentReference: sessionId,
      })
      .returning({ id: orders.id, number: orders.number, totalCents: orders.totalCents })
    await database.db.insert(orderItems).values(
      lines.map((line) => ({
        orderId: order!.id,
        bookId: line.book.id,
        title: line.book.title,
        priceCents: line.grossCents,
        listPriceCents: line.grossCents,
        currency: 'USD',
        taxRateBp: 700,
        netCents: line.netCents,
        taxCents: line.taxCents,
        grossCents: line.grossCents,
      })),
    )
    await database.db
      .insert(libraryItems)
      .values(lines.map((line) => ({ userId: reader.userId, bookId: line.book.id, orderId: order!.id })))
    const issued = await postRefund(order!.id, { intent: 'issue-invoice' }, services)
    expect(outcomeOf(issued).status).toBe(302)
    return { ...reader, ...order!, sessionId }
  }

  test('a line: asked of Stripe for its amount, confirmed by the signed event (its credit note then), once', async () => {
    const order = await paidStripeOrder()
    const [first, second] = await linesOf(order.id)
    const before = stripeApi.requests.length
    const answer = outcomeOf(await postRefund(order.id, { scope: 'lines', line: first!.bookId }, services))
    expect(answer).toEqual({ status: 302, location: `/admin/orders/${order.id}?refund=requested` })
    const [asked] = await refundsOf(order.id)
    expect(asked).toMatchObject({ status: 'requested', amountCents: first!.grossCents, confirmedAt: null })
    const sent = stripeApi.requests.slice(before).find((request) => request.path === '/v1/refunds')!
    expect(sent.headers.get('Idempotency-Key')).toBe(`refund-${asked!.id}`)
    expect(Object.fromEntries(sent.body)).toMatchObject({
      amount: String(first!.grossCents),
      payment_intent: `pi_for_${order.sessionId}`,
      'metadata[refundId]': asked!.id,
    })
    expect(asked!.providerReference).toMatch(/^re_/)
    // Asked for, not given back yet: no credit note, the books stay, and no second refund meanwhile.
    expect((await documentsOf(order.id)).map((document) => document.kind)).toEqual(['invoice'])
    expect(await ownedBy(order.userId)).toHaveLength(2)
    expect(outcomeOf(await postRefund(order.id, { scope: 'amount', amount: '1' }, services))).toMatchObject({
      status: 409,
      data: { formError: /refund was asked for/ },
    })

    const succeeded = {
      id: asked!.providerReference,
      object: 'refund',
      amount: first!.grossCents,
      status: 'succeeded',
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: { orderId: order.id, refundId: asked!.id },
    }
    for (const _ of [1, 2]) expect((await deliver('refund.updated', succeeded)).status).toBe(200)
    const [confirmed] = await refundsOf(order.id)
    expect(confirmed).toMatchObject({ status: 'confirmed', confirmedAt: expect.any(Date) })
    expect((await orderRow(order.id)).status).toBe('paid')
    expect(await ownedBy(order.userId)).toEqual([{ bookId: second!.bookId, orderId: order.id }])
    const documents = await documentsOf(order.id)
    expect(documents.map((document) => [document.kind, document.totalCents])).toEqual([
      ['invoice', order.totalCents],
      ['credit_note', first!.grossCents],
    ])
    const mails = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'refund'), eq(emailOutbox.subjectKey, `${order.id}:${asked!.id}`)))
    expect(mails).toHaveLength(1)
    const { rows: audit } = await listAuditLog(database.db, { entity: { type: 'order', id: order.id } })
    expect(audit.map((entry) => [entry.action, entry.actorEmail])).toEqual([
      ['order.refund', 'stripe'],
      ['order.refund-request', admin.email],
      ['order.invoice', admin.email],
    ])

    // The rest, confirmed by `charge.refunded` (which names no refund: the payment's refunds so far).
    expect(outcomeOf(await postRefund(order.id, { scope: 'everything' }, services)).status).toBe(302)
    await deliver('charge.refunded', {
      id: `ch_${crypto.randomBytes(8).toString('hex')}`,
      object: 'charge',
      amount: order.totalCents,
      amount_refunded: order.totalCents,
      refunded: true,
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: { orderId: order.id },
    })
    expect((await orderRow(order.id)).status).toBe('refunded')
    expect(await ownedBy(order.userId)).toEqual([])
    expect((await refundsOf(order.id)).map((refund) => refund.status)).toEqual(['confirmed', 'confirmed'])
    const credited = (await documentsOf(order.id)).filter((document) => document.kind === 'credit_note')
    expect(credited.reduce((sum, document) => sum + document.totalCents, 0)).toBe(order.totalCents)
  })

  test('a part refunded in Stripe’s dashboard is recorded as that amount with its credit note, once', async () => {
    const order = await paidStripeOrder()
    const charge = (amountRefunded: number) => ({
      id: `ch_${order.sessionId}`,
      object: 'charge',
      amount: order.totalCents,
      amount_refunded: amountRefunded,
      refunded: false,
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: { orderId: order.id },
    })
    // `charge.refunded` first: more went back than is recorded, and it does not say which refund; nothing yet.
    expect((await deliver('charge.refunded', charge(500))).status).toBe(200)
    expect(await refundsOf(order.id)).toEqual([])
    const dashboard = {
      id: `re_${crypto.randomBytes(12).toString('hex')}`,
      object: 'refund',
      amount: 500,
      status: 'succeeded',
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: { orderId: order.id },
    }
    for (const _ of [1, 2]) expect((await deliver('refund.created', dashboard)).status).toBe(200)
    const [recorded, ...more] = await refundsOf(order.id)
    expect(more).toEqual([])
    expect(recorded).toMatchObject({
      status: 'confirmed',
      amountCents: 500,
      requestedBy: 'stripe',
      providerReference: dashboard.id,
      reason: 'Refunded in the Stripe dashboard',
    })
    // Spread over both books, neither refunded in full: both stay in the library, the order paid.
    expect(recorded!.lines).toHaveLength(2)
    expect(await ownedBy(order.userId)).toHaveLength(2)
    expect((await orderRow(order.id)).status).toBe('paid')
    const credit = (await documentsOf(order.id)).find((document) => document.kind === 'credit_note')
    expect(credit).toMatchObject({ totalCents: 500 })
    // The charge's own event again, or late: what it says went back is all recorded now.
    expect((await deliver('charge.refunded', charge(500))).status).toBe(200)
    expect(await refundsOf(order.id)).toHaveLength(1)
  })
})
