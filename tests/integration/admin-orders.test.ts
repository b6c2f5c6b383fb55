import crypto from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub } from 'react-router'
import Stripe from 'stripe'
import { beforeAll, describe, expect, vi } from 'vitest'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { recordDownload } from '#app/features/library/library.server.ts'
import { streamOrdersCsv } from '#app/features/orders/admin-orders.server.ts'
import { csvCell } from '#app/server/csv.server.ts'
import { createStripePaymentProvider } from '#app/features/orders/stripe.server.ts'
import AdminOrder, { action as orderAction, loader as orderLoader } from '#app/routes/admin/order.tsx'
import { loader as exportLoader } from '#app/routes/admin/orders-export.ts'
import AdminOrders, { loader as ordersLoader } from '#app/routes/admin/orders.tsx'
import { action as webhookAction } from '#app/routes/stripe-webhook.ts'
import {
  emailOutbox,
  libraryItems,
  orderItems,
  orderRefunds,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer, createReader } from '#harness/factories/buyers.ts'
import { routeArgs, thrownBy } from '#tests/route-args.ts'
import { deliverOutboxOverSmtp } from '#tests/smtp.ts'

const logger = createLogger('silent')
let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let admin: Awaited<ReturnType<typeof createAdmin>>

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  admin = await createAdmin(database.db)
})

const book = (index: number) => catalogue[index % catalogue.length]!

function loadOrders(query: string, cookie: string | undefined = admin.cookie) {
  return ordersLoader(routeArgs({ db: database.db, path: `/admin/orders${query}`, cookie }))
}

/** A loader's or action's answer, whether plain data or data with a status (400, 409); not a redirect. */
function unwrap<T>(result: T | Response | { data: T; init: ResponseInit | null }): {
  status: number
  data: T
} {
  if (result instanceof Response) throw new Error(`expected data, got a ${result.status} response`)
  if (result && typeof result === 'object' && 'init' in result && 'data' in result)
    return { status: result.init?.status ?? 200, data: result.data }
  return { status: 200, data: result as T }
}

function loadOrder(orderId: string, cookie = admin.cookie, services?: StoreServices) {
  return orderLoader(
    routeArgs({ db: database.db, path: `/admin/orders/${orderId}`, cookie, params: { orderId }, services }),
  )
}

function postRefund(
  orderId: string,
  fields: Record<string, string>,
  options: { cookie?: string; services?: StoreServices } = {},
) {
  return orderAction(
    routeArgs({
      db: database.db,
      path: `/admin/orders/${orderId}`,
      cookie: 'cookie' in options ? options.cookie : admin.cookie,
      services: options.services,
      params: { orderId },
      init: { method: 'POST', body: new URLSearchParams(fields) },
    }),
  )
}

async function orderRow(orderId: string) {
  const [row] = await database.db.select().from(orders).where(eq(orders.id, orderId))
  return row!
}

/** Inserts orders straight into the tables (many at once), each with one line of `bookIndex`. */
async function insertOrders(
  userId: string,
  count: number,
  options: {
    status?: 'paid' | 'pending' | 'failed'
    createdAt?: Date
    title?: string
    bookIndex?: number
  } = {},
) {
  const status = options.status ?? 'paid'
  const target = book(options.bookIndex ?? 0)
  const rows = await database.db
    .insert(orders)
    .values(
      Array.from({ length: count }, () => ({
        userId,
        status,
        totalCents: target.priceCents,
        netCents: target.priceCents,
        currency: target.currency,
        idempotencyKey: crypto.randomUUID(),
        attemptId: crypto.randomUUID(),
        paymentProvider: 'test',
        paymentReference: `test_${crypto.randomUUID()}`,
        paidAt: status === 'paid' ? new Date() : null,
        ...(options.createdAt ? { createdAt: options.createdAt } : {}),
      })),
    )
    .returning({ id: orders.id, number: orders.number })
  await database.db.insert(orderItems).values(
    rows.map((row) => ({
      orderId: row.id,
      bookId: target.id,
      title: options.title ?? target.title,
      priceCents: target.priceCents,
      listPriceCents: target.priceCents,
      netCents: target.priceCents,
      grossCents: target.priceCents,
      currency: target.currency,
    })),
  )
  return rows
}

/** A route's page as the server renders it from this loader (and action) data. */
function render(
  path: string,
  Component: typeof AdminOrders | typeof AdminOrder,
  loaderData: unknown,
  actionData?: unknown,
) {
  const Stub = createRoutesStub([{ id: 'page', path: path.split('?')[0], Component }])
  return renderToString(
    createElement(Stub, {
      initialEntries: [path],
      hydrationData: {
        loaderData: { page: loaderData },
        ...(actionData ? { actionData: { page: actionData } } : {}),
      },
    }),
  ).replaceAll('<!-- -->', '') // React's marker between adjacent text nodes
}

/** RFC 4180, as a spreadsheet reads it: enough to check what the export wrote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"'
        index++
      } else if (char === '"') quoted = false
      else cell += char
    } else if (char === '"') quoted = true
    else if (char === ',') {
      row.push(cell)
      cell = ''
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(cell)
      rows.push(row)
      row = []
      cell = ''
      index++
    } else cell += char
  }
  if (cell || row.length) rows.push([...row, cell])
  return rows
}

describe('who may use the orders back office', () => {
  test('nobody and a customer get the ordinary 404 from every loader and action; nothing changes', async () => {
    const buyer = await createBuyer(database.db, [book(0).id])
    const customer = await createReader(database.db)
    for (const cookie of [undefined, customer.cookie, buyer.cookie]) {
      const calls = [
        () => ordersLoader(routeArgs({ db: database.db, path: '/admin/orders', cookie })),
        () => exportLoader(routeArgs({ db: database.db, path: '/admin/orders/export.csv', cookie })),
        () =>
          orderLoader(
            routeArgs({
              db: database.db,
              path: `/admin/orders/${buyer.orderId}`,
              cookie,
              params: { orderId: buyer.orderId },
            }),
          ),
        () => postRefund(buyer.orderId, { confirm: 'yes' }, { cookie }),
      ]
      for (const call of calls) expect(await thrownBy(call)).toMatchObject({ init: { status: 404 } })
    }
    expect((await orderRow(buyer.orderId)).status).toBe('paid')
  })

  test('an order page for a malformed or unknown id is a 404', async () => {
    for (const orderId of ['not-a-uuid', "1' or '1'='1", crypto.randomUUID()]) {
      expect(await thrownBy(() => loadOrder(orderId))).toMatchObject({ init: { status: 404 } })
      expect(await thrownBy(() => postRefund(orderId, { confirm: 'yes' }))).toMatchObject({
        init: { status: 404 },
      })
    }
  })
})

describe('/admin/orders', () => {
  test('filters by status, buyer email (contains, any case, wildcards literal), book and dates', async () => {
    const tag = crypto.randomBytes(4).toString('hex')
    const ada = await createBuyer(database.db, [book(1).id], { email: `ada.${tag}@example.com` })
    const bob = await createBuyer(database.db, [book(2).id, book(3).id], { email: `bob_${tag}@example.com` })
    const [old] = await insertOrders(bob.userId, 1, {
      status: 'failed',
      createdAt: new Date('2024-03-10T12:00:00Z'),
      bookIndex: 1,
    })

    const byBuyer = unwrap(await loadOrders(`?buyer=${tag.toUpperCase()}`))
    expect(byBuyer.status).toBe(200)
    expect(byBuyer.data.orders.map((order) => order.number).toSorted()).toEqual(
      [ada.orderNumber, bob.orderNumber, old!.number].toSorted(),
    )
    expect(byBuyer.data.orders.find((order) => order.id === bob.orderId)).toMatchObject({
      buyerEmail: bob.email,
      lineCount: 2,
      status: 'paid',
    })
    // '_' and '%' are letters here, not wildcards ('a_<tag>' would otherwise match 'ada.<tag>').
    for (const pattern of [`a_${tag}`, `a%${tag}`])
      expect(unwrap(await loadOrders(`?buyer=${encodeURIComponent(pattern)}`)).data.orders).toHaveLength(0)
    const underscore = unwrap(await loadOrders(`?buyer=${encodeURIComponent(`b_${tag}`)}`))
    expect(underscore.data.orders.map((order) => order.id).toSorted()).toEqual(
      [bob.orderId, old!.id].toSorted(),
    )

    const failed = unwrap(await loadOrders(`?buyer=${tag}&status=failed`))
    expect(failed.data.orders.map((order) => order.id)).toEqual([old!.id])
    const byBook = unwrap(await loadOrders(`?buyer=${tag}&book=${book(1).id}`))
    expect(byBook.data.orders.map((order) => order.id).toSorted()).toEqual([ada.orderId, old!.id].toSorted())
    const inMarch = unwrap(await loadOrders(`?buyer=${tag}&from=2024-03-10&to=2024-03-10`))
    expect(inMarch.data.orders.map((order) => order.id)).toEqual([old!.id])
    const since = unwrap(await loadOrders(`?buyer=${tag}&from=2024-03-11`))
    expect(since.data.orders).toHaveLength(2)
    expect(byBuyer.data.bookChoices.length).toBe(catalogue.length)
  })

  test('pages by keyset, newest first, keeping the filters', async () => {
    const reader = await createReader(database.db)
    const made = await insertOrders(reader.userId, 120)
    const numbers = made.map((row) => row.number).toSorted((a, b) => b - a)
    const query = `?buyer=${encodeURIComponent(reader.email)}`
    const first = unwrap(await loadOrders(query)).data
    expect(first.orders.map((order) => order.number)).toEqual(numbers.slice(0, 50))
    expect(first.isFirstPage).toBe(true)
    const second = unwrap(await loadOrders(`${query}&before=${first.nextBeforeNumber}`)).data
    expect(second.orders.map((order) => order.number)).toEqual(numbers.slice(50, 100))
    const third = unwrap(await loadOrders(`${query}&before=${second.nextBeforeNumber}`)).data
    expect(third.orders.map((order) => order.number)).toEqual(numbers.slice(100))
    expect(third.nextBeforeNumber).toBeNull()
    // A malformed cursor shows the first page; so does one beyond any order number (it was a 500: PostgreSQL
    // refuses 9999999999 as an integer).
    for (const cursor of ['1%20or%201=1', '9999999999', '2147483648']) {
      const bad = unwrap(await loadOrders(`${query}&before=${cursor}`)).data
      expect(bad.isFirstPage, cursor).toBe(true)
      expect(
        bad.orders.map((order) => order.number),
        cursor,
      ).toEqual(numbers.slice(0, 50))
    }
  })

  test('invalid filters → 400 with a message per field, never a 500; the export refuses them too', async () => {
    const cases: [string, Record<string, RegExp>][] = [
      ['?status=shipped', { status: /listed statuses/ }],
      ['?from=2026-02-30', { from: /not a real date/ }],
      ['?from=yesterday&to=2026-13-01', { from: /like 2026-11-25/, to: /not a real date/ }],
      ['?from=2026-05-02&to=2026-05-01', { to: /before the start/ }],
      ['?book=not-a-book', { book: /Choose a book/ }],
      [`?buyer=${'x'.repeat(255)}`, { buyer: /At most 254/ }],
    ]
    for (const [query, expected] of cases) {
      const result = unwrap(await loadOrders(query))
      expect(result.status, query).toBe(400)
      expect(result.data.orders).toEqual([])
      for (const [field, message] of Object.entries(expected))
        expect(result.data.errors[field as keyof typeof result.data.errors], query).toMatch(message)
      const response = (await exportLoader(
        routeArgs({ db: database.db, path: `/admin/orders/export.csv${query}`, cookie: admin.cookie }),
      )) as Response
      expect(response.status).toBe(400)
      expect(await response.text()).toMatch(/not valid/)
    }
  })
})

describe('the pages as rendered', () => {
  test('the list: labelled filters, errors beside their fields, the export link carrying the filters', async () => {
    const buyer = await createBuyer(database.db, [book(3).id])
    const query = `?buyer=${encodeURIComponent(buyer.email)}&status=paid`
    const html = render(`/admin/orders${query}`, AdminOrders, unwrap(await loadOrders(query)).data)
    expect(html).toContain(`#${buyer.orderNumber}`)
    expect(html).toContain(`href="/admin/orders/${buyer.orderId}"`)
    expect(html).toContain(
      `href="/admin/orders/export.csv?status=paid&amp;buyer=${encodeURIComponent(buyer.email)}"`,
    )
    for (const label of ['Status', 'From (UTC)', 'To (UTC)', 'Buyer email contains', 'Book'])
      expect(html).toContain(`>${label}</label>`)
    const bad = unwrap(await loadOrders('?from=2026-02-30&status=nope'))
    const badHtml = render('/admin/orders?from=2026-02-30&status=nope', AdminOrders, bad.data)
    expect(badHtml).toContain('This is not a real date.')
    expect(badHtml).toContain('aria-invalid="true"')
    expect(badHtml).not.toContain('Export CSV')
  })

  test('the order page: the refund form for a paid order, its errors, and none once refunded', async () => {
    const buyer = await createBuyer(database.db, [book(5).id])
    const path = `/admin/orders/${buyer.orderId}`
    const html = render(path, AdminOrder, await loadOrder(buyer.orderId), {
      fieldErrors: { confirm: 'Tick the box to confirm the refund.' },
      reason: 'Asked <by> buyer',
    })
    expect(html).toContain(`Order #${buyer.orderNumber}`)
    expect(html).toContain('Reason (optional, kept in the audit log)')
    expect(html).toContain('Tick the box to confirm the refund.')
    expect(html).toContain('Asked &lt;by&gt; buyer')
    await postRefund(buyer.orderId, { confirm: 'yes' })
    const after = render(path, AdminOrder, await loadOrder(buyer.orderId))
    expect(after).not.toContain('Refund this order')
    expect(after).toContain('Revoked (refunded)')
    expect(after).toContain('order.refund')
  })
})

describe('the CSV export', () => {
  test('cells are escaped: quotes, commas, line breaks, and formulas defused', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a, b')).toBe('"a, b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx'])
      expect(csvCell(formula)).toBe(`'${formula}`)
    expect(csvCell('=HYPERLINK("http://evil"), x')).toBe(`"'=HYPERLINK(""http://evil""), x"`)
    expect(csvCell(null)).toBe('')
  })

  test('thousands of orders stream in batches (the first bytes before the last batch is read) and parse back', async () => {
    const reader = await createReader(database.db)
    const nasty = '=HYPERLINK("http://evil.example"), "Vol. 2"\nsecond line'
    const made = await insertOrders(reader.userId, 3000)
    const [special] = await insertOrders(reader.userId, 1, { title: nasty })
    const filters = { buyer: reader.email }

    // The feature's stream, watched: one batch is read per pull, not all of them up front.
    const batches: number[] = []
    const stream = streamOrdersCsv(database.db, filters, { onBatch: (rows) => batches.push(rows) })
    const streamReader = stream.getReader()
    const header = await streamReader.read()
    expect(new TextDecoder('utf-8', { ignoreBOM: true }).decode(header.value)).toMatch(
      /^\uFEFFOrder number,Order id/,
    )
    const firstBatch = await streamReader.read()
    expect(firstBatch.done).toBe(false)
    expect(batches).toEqual([500])
    await streamReader.cancel()

    // The route: a streamed attachment with a dated name, every matching order once, in order.
    const response = (await exportLoader(
      routeArgs({
        db: database.db,
        path: `/admin/orders/export.csv?buyer=${encodeURIComponent(reader.email)}`,
        cookie: admin.cookie,
      }),
    )) as Response
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="codebook-orders-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    expect(response.body).toBeInstanceOf(ReadableStream)
    let chunks = 0
    let text = ''
    const decoder = new TextDecoder()
    for await (const chunk of response.body!) {
      chunks++
      text += decoder.decode(chunk, { stream: true })
    }
    expect(chunks).toBeGreaterThanOrEqual(8) // the header, then 7 batches of at most 500
    const rows = parseCsv(text.replace(/^\uFEFF/, ''))
    expect(rows[0]).toEqual([
      'Order number',
      'Order id',
      'Created at (UTC)',
      'Paid at (UTC)',
      'Status',
      'Buyer email',
      'Books',
      'Book count',
      'Total',
      'Currency',
      'Payment provider',
      'Payment reference',
      'Refunded at (UTC)',
      'Refunded',
      'Tax (less refunded)',
      'Net revenue',
    ])
    const body = rows.slice(1)
    expect(body).toHaveLength(3001)
    expect(body.map((row) => Number(row[0]))).toEqual(
      [...made, special!].map((row) => row.number).toSorted((a, b) => b - a),
    )
    expect(body[0]).toMatchObject({ 1: special!.id, 4: 'paid', 5: reader.email, 6: `'${nasty}`, 7: '1' })
    expect(body[1]![8]).toBe((book(0).priceCents / 100).toFixed(2))
  }, 60_000)
})

describe('an order’s page', () => {
  test('names the buyer once: their name beside the email only when it is not the email itself', async () => {
    const buyer = await createBuyer(database.db, [book(3).id])
    const path = `/admin/orders/${buyer.orderId}`
    const buyerSection = async () => {
      const html = render(path, AdminOrder, await loadOrder(buyer.orderId))
      return /<section[^>]*aria-labelledby="buyer-heading"[^>]*>(.*?)<\/section>/s.exec(html)?.[1] ?? ''
    }
    // Registered by email alone, the account's name is its email: shown once, not 'a@… <a@…>'.
    const byEmail = await buyerSection()
    expect(byEmail).toContain(buyer.email)
    expect(byEmail.split(buyer.email)).toHaveLength(2)
    await database.db.update(user).set({ name: 'Ada Lovelace' }).where(eq(user.id, buyer.userId))
    expect(await buyerSection()).toContain(`Ada Lovelace &lt;${buyer.email}&gt;`)
  })

  test('shows the buyer, lines, payment, mail sent and downloads made', async () => {
    const buyer = await createBuyer(database.db, [book(4).id, book(5).id])
    await recordDownload(database.db, buyer.userId, book(4).id)
    await recordDownload(database.db, buyer.userId, book(4).id)
    const { order } = await loadOrder(buyer.orderId)
    expect(order).toMatchObject({
      number: buyer.orderNumber,
      status: 'paid',
      buyer: { email: buyer.email },
      payment: { provider: 'test', card: 'Visa ending 4242' },
      canRefund: true,
      refund: { requestedAt: null, refundedAt: null },
    })
    expect(order.payment.reference).toMatch(/^test_/)
    const downloads = Object.fromEntries(order.lines.map((line) => [line.bookId, line.library]))
    expect(downloads[book(4).id]).toMatchObject({ kind: 'this-order', downloadCount: 2 })
    expect(downloads[book(5).id]).toMatchObject({ kind: 'this-order', downloadCount: 0 })
    expect(order.mail).toEqual([
      expect.objectContaining({ kind: 'receipt', to: buyer.email, state: 'pending', attempts: 0 }),
    ])
  })
})

describe('refunding with the test provider', () => {
  test('bad input → 400 next to the field, nothing changes', async () => {
    const buyer = await createBuyer(database.db, [book(6).id])
    const missing = unwrap(await postRefund(buyer.orderId, { reason: 'asked' }))
    expect(missing.status).toBe(400)
    expect(missing.data).toMatchObject({ fieldErrors: { confirm: /Tick the box/ }, reason: 'asked' })
    const long = unwrap(await postRefund(buyer.orderId, { confirm: 'yes', reason: 'x'.repeat(501) }))
    expect(long).toMatchObject({ status: 400, data: { fieldErrors: { reason: /At most 500/ } } })
    const wrong = unwrap(await postRefund(buyer.orderId, { confirm: 'on' }))
    expect(wrong.status).toBe(400)
    expect((await orderRow(buyer.orderId)).status).toBe('paid')
  })

  test('the order is refunded at once: books taken back, audited, the buyer mailed through SMTP; a second click is 409', async () => {
    const buyer = await createBuyer(database.db, [book(7).id, book(8).id])
    const response = await postRefund(buyer.orderId, { confirm: 'yes', reason: 'Bought by mistake' })
    expect(response).toBeInstanceOf(Response)
    expect((response as Response).headers.get('Location')).toBe(`/admin/orders/${buyer.orderId}?refund=done`)

    const row = await orderRow(buyer.orderId)
    expect(row).toMatchObject({ status: 'refunded', paidAt: expect.any(Date), refundedAt: expect.any(Date) })
    expect(row.refundReference).toMatch(/^test_refund_[0-9a-f-]{36}$/)
    const owned = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, buyer.userId))
    expect(owned).toEqual([])

    const { rows: audit } = await listAuditLog(database.db, { entity: { type: 'order', id: buyer.orderId } })
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({
      action: 'order.refund',
      actorId: admin.userId,
      actorEmail: admin.email,
      before: { status: 'paid', refundedAt: null, refundReference: null, refundRequestedAt: null },
      after: { status: 'refunded', refundReference: row.refundReference, reason: 'Bought by mistake' },
    })

    // A double click, or the page submitted again: nothing more happens.
    const again = unwrap(await postRefund(buyer.orderId, { confirm: 'yes' }))
    expect(again).toMatchObject({ status: 409, data: { formError: /refunded already/ } })
    expect(
      (await listAuditLog(database.db, { entity: { type: 'order', id: buyer.orderId } })).rows,
    ).toHaveLength(1)

    // The refund mail, through the real SMTP receiver.
    // Other tests' mail goes out in the same run: this buyer's only.
    const refundMail = (await deliverOutboxOverSmtp(database.db)).filter(
      (mail) => mail.envelope.to.includes(buyer.email) && mail.parsed.subject?.includes('refund'),
    )
    expect(refundMail).toHaveLength(1)
    expect(refundMail[0]!.envelope.to).toEqual([buyer.email])
    expect(refundMail[0]!.parsed.subject).toBe(`Your CodeBook refund — order #${buyer.orderNumber}`)
    expect(refundMail[0]!.parsed.text).toContain(book(7).title)

    const { order } = await loadOrder(buyer.orderId)
    expect(order).toMatchObject({ status: 'refunded', canRefund: false })
    expect(order.lines.map((line) => line.library.kind)).toEqual(['revoked', 'revoked'])
    expect(order.mail.find((mail) => mail.kind === 'refund')).toMatchObject({ state: 'sent' })
  })

  test('pending and failed orders cannot be refunded (409); nothing changes', async () => {
    const reader = await createReader(database.db)
    const [pending] = await insertOrders(reader.userId, 1, { status: 'pending' })
    const [failed] = await insertOrders(reader.userId, 1, { status: 'failed' })
    expect(unwrap(await postRefund(pending!.id, { confirm: 'yes' }))).toMatchObject({
      status: 409,
      data: { formError: /not paid yet/ },
    })
    expect(unwrap(await postRefund(failed!.id, { confirm: 'yes' }))).toMatchObject({
      status: 409,
      data: { formError: /payment failed/ },
    })
    expect((await orderRow(pending!.id)).status).toBe('pending')
    expect((await listAuditLog(database.db, { entity: { type: 'order', id: failed!.id } })).rows).toEqual([])
  })

  test('two refunds of the same order at once refund it once', async () => {
    const buyer = await createBuyer(database.db, [book(9).id])
    const results = await Promise.all([
      postRefund(buyer.orderId, { confirm: 'yes' }),
      postRefund(buyer.orderId, { confirm: 'yes' }),
    ])
    expect(results.filter((result) => result instanceof Response)).toHaveLength(1)
    expect(
      (await listAuditLog(database.db, { entity: { type: 'order', id: buyer.orderId } })).rows,
    ).toHaveLength(1)
    const mail = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'refund'), eq(emailOutbox.subjectKey, buyer.orderId)))
    expect(mail).toHaveLength(1)
  })
})

describe('refunding with Stripe', () => {
  const WEBHOOK_SECRET = 'whsec_codebook_refund_secret'
  const STRIPE_ENV = { STRIPE_SECRET_KEY: 'sk_test_codebook_refunds', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }
  let services: StoreServices
  const kickOutbox = vi.fn()
  const stripeApi = fakeStripeApi()

  beforeAll(() => {
    services = createStoreServices({
      db: database.db,
      env: parseEnv(STRIPE_ENV),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger,
      kickOutbox,
      // The store's own Stripe provider, talking to the local fake below, never Stripe.
      payments: createStripePaymentProvider({
        secretKey: STRIPE_ENV.STRIPE_SECRET_KEY,
        webhookSecret: WEBHOOK_SECRET,
        httpClient: stripeApi.httpClient,
      }),
    })
  })

  /**
   * Stripe's API as far as refunds go, behind the SDK's own fetch client: Checkout Sessions and
   * PaymentIntents to read, refunds to create (a repeated idempotency key gets the first refund back).
   */
  function fakeStripeApi() {
    const requests: { method: string; path: string; headers: Headers; body: URLSearchParams }[] = []
    const refunds = new Map<string, Record<string, unknown>>()
    const paymentIntents = new Map<string, { orderId: string }>()
    let refuse = false
    const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init)
      const body = new URLSearchParams(await request.text())
      const path = new URL(request.url).pathname
      requests.push({ method: request.method, path, headers: request.headers, body })
      if (refuse)
        return Response.json(
          { error: { type: 'invalid_request_error', message: 'Charge ch_1 has already been refunded.' } },
          { status: 400 },
        )
      const session = /^\/v1\/checkout\/sessions\/(cs_[^/]+)$/.exec(path)
      if (session)
        return Response.json({
          id: session[1],
          object: 'checkout.session',
          payment_intent: `pi_for_${session[1]}`,
          payment_status: 'paid',
        })
      const intent = /^\/v1\/payment_intents\/(pi_[^/]+)$/.exec(path)
      if (intent)
        return Response.json({
          id: intent[1],
          object: 'payment_intent',
          metadata: paymentIntents.get(intent[1]!) ?? {},
        })
      if (path === '/v1/refunds' && request.method === 'POST') {
        const key = request.headers.get('Idempotency-Key') ?? crypto.randomUUID()
        if (!refunds.has(key))
          refunds.set(key, {
            id: `re_${crypto.randomBytes(12).toString('hex')}`,
            object: 'refund',
            status: 'succeeded',
            payment_intent: body.get('payment_intent'),
            metadata: { orderId: body.get('metadata[orderId]') },
          })
        return Response.json(refunds.get(key))
      }
      return Response.json({ error: { message: `No fake for ${path}` } }, { status: 404 })
    }
    return {
      requests,
      httpClient: Stripe.createFetchHttpClient(fetchFn as typeof fetch),
      refuse: (value: boolean) => (refuse = value),
      /** A payment made through Checkout: its PaymentIntent names the order (startCheckout's metadata). */
      paymentIntent: (id: string, orderId: string) => paymentIntents.set(id, { orderId }),
    }
  }

  /** A paid Stripe order (as the checkout webhook leaves it): the books granted, the session recorded. */
  async function paidStripeOrder(bookIndexes: number[]) {
    const reader = await createReader(database.db)
    const lines = bookIndexes.map(book)
    const sessionId = `cs_test_${crypto.randomBytes(12).toString('hex')}`
    const [order] = await database.db
      .insert(orders)
      .values({
        userId: reader.userId,
        status: 'paid',
        totalCents: lines.reduce((sum, line) => sum + line.priceCents, 0),
        netCents: lines.reduce((sum, line) => sum + line.priceCents, 0),
        currency: lines[0]!.currency,
        idempotencyKey: crypto.randomUUID(),
        attemptId: crypto.randomUUID(),
        paymentProvider: 'stripe',
        paymentReference: sessionId,
        paidAt: new Date(),
      })
      .returning({ id: orders.id, number: orders.number, totalCents: orders.totalCents })
    await database.db.insert(orderItems).values(
      lines.map((line) => ({
        orderId: order!.id,
        bookId: line.id,
        title: line.title,
        priceCents: line.priceCents,
        listPriceCents: line.priceCents,
        netCents: line.priceCents,
        grossCents: line.priceCents,
        currency: line.currency,
      })),
    )
    await database.db
      .insert(libraryItems)
      .values(lines.map((line) => ({ userId: reader.userId, bookId: line.id, orderId: order!.id })))
    stripeApi.paymentIntent(`pi_for_${sessionId}`, order!.id)
    return { ...reader, orderId: order!.id, number: order!.number, total: order!.totalCents, sessionId }
  }

  /** Posts `payload` to the webhook, signed as Stripe signs it unless another `signature` is given. */
  function postWebhook(
    payload: string,
    signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
  ) {
    return webhookAction(
      routeArgs({
        db: database.db,
        path: '/webhooks/stripe',
        services,
        init: {
          method: 'POST',
          body: payload,
          headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature },
        },
      }),
    )
  }

  /** A Stripe event of this `type` about `object`, delivered signed. */
  function deliver(type: string, object: Record<string, unknown>) {
    return postWebhook(
      JSON.stringify({
        id: `evt_${crypto.randomBytes(12).toString('hex')}`,
        object: 'event',
        api_version: '2026-10-28.endive',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        type,
        data: { object },
      }),
    )
  }

  function chargeRefunded(
    order: { sessionId: string; total: number },
    options: { amountRefunded?: number; metadata?: Record<string, string> } = {},
  ) {
    const amountRefunded = options.amountRefunded ?? order.total
    return {
      id: `ch_${crypto.randomBytes(8).toString('hex')}`,
      object: 'charge',
      amount: order.total,
      amount_refunded: amountRefunded,
      refunded: amountRefunded >= order.total,
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: options.metadata ?? {},
    }
  }

  async function refundMails(orderId: string) {
    return database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'refund'), eq(emailOutbox.subjectKey, orderId)))
  }

  test('the refund is asked of Stripe once; the signed webhook marks the order refunded once, mailed once', async () => {
    const order = await paidStripeOrder([10, 11])
    const before = stripeApi.requests.length
    const response = await postRefund(
      order.orderId,
      { confirm: 'yes', reason: 'Duplicate purchase' },
      { services },
    )
    expect((response as Response).headers.get('Location')).toBe(
      `/admin/orders/${order.orderId}?refund=requested`,
    )
    const sent = stripeApi.requests.slice(before)
    expect(sent.map((request) => `${request.method} ${request.path}`)).toEqual([
      `GET /v1/checkout/sessions/${order.sessionId}`,
      'POST /v1/refunds',
    ])
    // Each refund the store asks for is keyed by its own id (issue 31: an order may have several).
    const [asked] = await database.db
      .select()
      .from(orderRefunds)
      .where(eq(orderRefunds.orderId, order.orderId))
    expect(sent[1]!.headers.get('Idempotency-Key')).toBe(`refund-${asked!.id}`)
    expect(Object.fromEntries(sent[1]!.body)).toMatchObject({
      payment_intent: `pi_for_${order.sessionId}`,
      amount: String(order.total),
      'metadata[orderId]': order.orderId,
      'metadata[orderNumber]': String(order.number),
      'metadata[refundId]': asked!.id,
    })

    // Asked for, not yet refunded: the books stay until Stripe confirms.
    let row = await orderRow(order.orderId)
    expect(row).toMatchObject({ status: 'paid', refundedAt: null, refundRequestedAt: expect.any(Date) })
    expect(row.refundReference).toMatch(/^re_/)
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.orderId, order.orderId)),
    ).toHaveLength(2)
    const { order: page } = await loadOrder(order.orderId, admin.cookie, services)
    expect(page.canRefund).toBe(false)
    // A second click is refused and asks Stripe nothing.
    const count = stripeApi.requests.length
    expect(unwrap(await postRefund(order.orderId, { confirm: 'yes' }, { services }))).toMatchObject({
      status: 409,
      data: { formError: /refund was asked for/ },
    })
    expect(stripeApi.requests.length).toBe(count)

    // Stripe confirms, by both of its events, each delivered twice.
    const charge = chargeRefunded(order, { metadata: { orderId: order.orderId } })
    const refundObject = {
      id: row.refundReference,
      object: 'refund',
      amount: order.total,
      status: 'succeeded',
      payment_intent: charge.payment_intent,
      metadata: { orderId: order.orderId },
    }
    for (const [type, object] of [
      ['charge.refunded', charge],
      ['refund.updated', refundObject],
      ['charge.refunded', charge],
    ] as const)
      expect((await deliver(type, object)).status).toBe(200)

    row = await orderRow(order.orderId)
    expect(row).toMatchObject({ status: 'refunded', refundedAt: expect.any(Date) })
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.orderId, order.orderId)),
    ).toEqual([])
    expect(await refundMails(order.orderId)).toHaveLength(1)
    const { rows: audit } = await listAuditLog(database.db, { entity: { type: 'order', id: order.orderId } })
    expect(audit.map((entry) => [entry.action, entry.actorEmail])).toEqual([
      ['order.refund', 'stripe'],
      ['order.refund-request', admin.email],
    ])
    expect(audit[1]!.after).toMatchObject({
      reason: 'Duplicate purchase',
      refundReference: row.refundReference,
    })
  })

  test('a refund made in Stripe’s dashboard is recorded too (the order found through its payment)', async () => {
    const order = await paidStripeOrder([12])
    expect((await deliver('charge.refunded', chargeRefunded(order))).status).toBe(200)
    expect((await orderRow(order.orderId)).status).toBe('refunded')
    expect(await refundMails(order.orderId)).toHaveLength(1)
  })

  test('a partial refund, an unsigned event or a refund still pending changes nothing', async () => {
    const order = await paidStripeOrder([13, 14])
    await deliver('charge.refunded', chargeRefunded(order, { amountRefunded: 1 }))
    await deliver('refund.updated', {
      id: 're_pending',
      object: 'refund',
      amount: order.total,
      status: 'pending',
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: { orderId: order.orderId },
    })
    const unsigned = await postWebhook(
      JSON.stringify({ type: 'charge.refunded', data: { object: chargeRefunded(order) } }),
      't=1,v1=bad',
    )
    expect(unsigned.status).toBe(400)
    expect((await orderRow(order.orderId)).status).toBe('paid')
    expect(await refundMails(order.orderId)).toEqual([])
  })

  test('a refund that fails at Stripe lets the admin ask again, as a new refund', async () => {
    const order = await paidStripeOrder([1])
    await postRefund(order.orderId, { confirm: 'yes' }, { services })
    const first = (await orderRow(order.orderId)).refundReference!
    const failed = {
      id: first,
      object: 'refund',
      amount: order.total,
      status: 'failed',
      payment_intent: `pi_for_${order.sessionId}`,
      metadata: { orderId: order.orderId },
    }
    expect((await deliver('refund.failed', failed)).status).toBe(200)
    expect((await deliver('refund.updated', failed)).status).toBe(200)
    expect(await orderRow(order.orderId)).toMatchObject({ status: 'paid', refundRequestedAt: null })
    const { rows: audit } = await listAuditLog(database.db, { entity: { type: 'order', id: order.orderId } })
    expect(audit.map((entry) => entry.action)).toEqual(['order.refund-failed', 'order.refund-request'])
    expect((await loadOrder(order.orderId, admin.cookie, services)).order.canRefund).toBe(true)

    const before = stripeApi.requests.length
    await postRefund(order.orderId, { confirm: 'yes' }, { services })
    const retry = stripeApi.requests.slice(before).find((request) => request.path === '/v1/refunds')!
    // A new refund of its own, so a new key: Stripe makes a new refund instead of answering with the failed one.
    const asked = await database.db.select().from(orderRefunds).where(eq(orderRefunds.orderId, order.orderId))
    expect(asked.map((refund) => refund.status).toSorted()).toEqual(['failed', 'requested'])
    const again = asked.find((refund) => refund.status === 'requested')!
    expect(retry.headers.get('Idempotency-Key')).toBe(`refund-${again.id}`)
    const second = await orderRow(order.orderId)
    expect(second.refundRequestedAt).toEqual(expect.any(Date))
    expect(second.refundReference).not.toBe(first)
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.orderId, order.orderId)),
    ).toHaveLength(1)
  })

  test('when Stripe refuses the refund, the admin is told (502) and nothing changes', async () => {
    const order = await paidStripeOrder([15])
    stripeApi.refuse(true)
    try {
      const result = unwrap(await postRefund(order.orderId, { confirm: 'yes' }, { services }))
      expect(result).toMatchObject({ status: 502, data: { formError: /nothing changed/ } })
    } finally {
      stripeApi.refuse(false)
    }
    expect(await orderRow(order.orderId)).toMatchObject({ status: 'paid', refundRequestedAt: null })
    expect((await listAuditLog(database.db, { entity: { type: 'order', id: order.orderId } })).rows).toEqual(
      [],
    )
  })
})
