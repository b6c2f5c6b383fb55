import crypto from 'node:crypto'
import { and, eq } from 'drizzle-orm'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub } from 'react-router'
import Stripe from 'stripe'
import { describe, expect, vi } from 'vitest'
import { addToCart, listCartBookIds, requireUserCart, setCartCoupon } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { completePaidOrder } from '#app/features/orders/payment-events.server.ts'
import { createPaymentProvider } from '#app/features/orders/payment-provider.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { createStripePaymentProvider } from '#app/features/orders/stripe.server.ts'
import Checkout, { action as checkoutAction, loader as checkoutLoader } from '#app/routes/checkout.tsx'
import { action as webhookAction, loader as webhookLoader } from '#app/routes/stripe-webhook.ts'
import { coupons, emailOutbox, libraryItems, orders } from '#app/server/db/schema/index.server.ts'
import { parseEnv } from '#app/server/env.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { routeArgs } from '#tests/route-args.ts'
import { cookieHeader } from '#harness/cookie-jar.ts'

/** The checkout page as the server renders it from this loader data (the route's component alone). */
function renderCheckout(loaderData: Awaited<ReturnType<typeof checkoutLoader>>) {
  const Stub = createRoutesStub([{ id: 'checkout', path: '/checkout', Component: Checkout }])
  return renderToString(
    createElement(Stub, {
      initialEntries: ['/checkout'],
      hydrationData: { loaderData: { checkout: loaderData } },
    }),
  )
}

const WEBHOOK_SECRET = 'whsec_codebook_test_secret'
const STRIPE_ENV = { STRIPE_SECRET_KEY: 'sk_test_codebook', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
let services: StoreServices
const kickOutbox = vi.fn()
const stripeApi = fakeStripeApi()
// The store's own Stripe provider, handed to its services: it talks to the fake API below instead of Stripe.
const stripe = createStripePaymentProvider({ ...secrets(), httpClient: stripeApi.httpClient })

test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
  services = createStoreServices({
    db: database.db,
    env: parseEnv(STRIPE_ENV),
    authSecret: 'test-secret-that-is-long-enough-0123456789',
    logger: createLogger('silent'),
    kickOutbox,
    payments: stripe,
  })
})

function secrets() {
  return { secretKey: STRIPE_ENV.STRIPE_SECRET_KEY, webhookSecret: WEBHOOK_SECRET }
}

/**
 * Stripe's API as far as Checkout Sessions go, behind the SDK's own fetch client: it records each request
 * and, like Stripe, answers a repeated idempotency key with the session it made the first time.
 */
function fakeStripeApi() {
  const requests: { method: string; url: URL; headers: Headers; body: URLSearchParams }[] = []
  const sessions = new Map<string, { id: string; status: string; [field: string]: unknown }>()
  const byId = new Map<string, { id: string; status: string; [field: string]: unknown }>()
  let refuse = false
  const fetchFn = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init)
    const body = new URLSearchParams(await request.text())
    requests.push({ method: request.method, url: new URL(request.url), headers: request.headers, body })
    if (refuse)
      return Response.json(
        { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_***book' } },
        { status: 401 },
      )
    const intent = /^\/v1\/payment_intents\/([^/]+)$/.exec(new URL(request.url).pathname)
    if (intent && request.method === 'GET') {
      const expanded = [...new URL(request.url).searchParams].some(
        ([name, value]) => name.startsWith('expand[') && value === 'latest_charge',
      )
      const charge = {
        id: `ch_${intent[1]}`,
        object: 'charge',
        payment_method_details: { type: 'card', card: { brand: 'visa', last4: '0016', country: 'DE' } },
      }
      return Response.json({
        id: intent[1],
        object: 'payment_intent',
        metadata: {},
        latest_charge: expanded ? charge : charge.id,
      })
    }
    const expiring = /^\/v1\/checkout\/sessions\/([^/]+)\/expire$/.exec(new URL(request.url).pathname)
    if (expiring) {
      const session = byId.get(expiring[1]!)
      if (!session)
        return Response.json(
          { error: { type: 'invalid_request_error', message: 'No such checkout.session' } },
          { status: 404 },
        )
      if (session.status !== 'open')
        return Response.json(
          {
            error: {
              type: 'invalid_request_error',
              message: `Only open sessions can be expired (${session.status}).`,
            },
          },
          { status: 400 },
        )
      session.status = 'expired'
      return Response.json(session)
    }
    const key = request.headers.get('Idempotency-Key') ?? crypto.randomUUID()
    if (!sessions.has(key)) {
      const id = `cs_test_${crypto.randomBytes(12).toString('hex')}`
      sessions.set(key, {
        id,
        object: 'checkout.session',
        mode: body.get('mode'),
        status: 'open',
        payment_status: 'unpaid',
        currency: body.get('line_items[0][price_data][currency]'),
        customer_email: body.get('customer_email'),
        client_reference_id: body.get('client_reference_id'),
        metadata: { orderId: body.get('metadata[orderId]') },
        success_url: body.get('success_url'),
        cancel_url: body.get('cancel_url'),
        url: `https://checkout.stripe.com/c/pay/${id}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
        livemode: false,
      })
      byId.set(id, sessions.get(key)!)
    }
    return Response.json(sessions.get(key))
  }
  return {
    requests,
    httpClient: Stripe.createFetchHttpClient(fetchFn as typeof fetch),
    refuse: (value: boolean) => (refuse = value),
    /** The buyer paid on Stripe's page: the session is complete and can no longer be expired. */
    complete: (sessionId: string) => (byId.get(sessionId)!.status = 'complete'),
    statusOf: (sessionId: string) => byId.get(sessionId)?.status,
  }
}

let readers = 0

/** A registered reader with `bookCount` books in the cart. */
async function readerWithCart(bookCount: number, offset = 0) {
  const email = `stripe-buyer${++readers}@example.com`
  const signedUp = await services.auth.api.signUpEmail({
    body: { email, password: 'correct horse battery staple', name: email },
    returnHeaders: true,
  })
  const cookie = cookieHeader(signedUp.headers)
  const userId = signedUp.response.user.id
  const cartId = await requireUserCart(database.db, userId)
  for (const book of catalogue.slice(offset, offset + bookCount))
    await addToCart(database.db, cartId, book.id)
  return { cookie, userId, email, cartId }
}

/** The checkout page of a signed-in reader: the payment step. */
async function checkoutPage(cookie: string) {
  const page = await checkoutLoader(routeArgs({ db: database.db, path: '/checkout', cookie, services }))
  if (page.step !== 'pay') throw new Error(`expected the payment step, got ${page.step}`)
  return page
}

/**
 * Checks out in Stripe mode: the order made (the buyer's newest, found by its attempt, not by anything the
 * checkout recorded) and the Checkout Session the buyer was sent to.
 */
async function startCheckout(reader: { cookie: string; userId: string }) {
  const { checkout } = await checkoutPage(reader.cookie)
  const keys = keysOf(checkout)
  const response = await postCheckout(reader.cookie, keys)
  if (!(response instanceof Response)) throw new Error('expected a redirect to Stripe')
  const [order] = await database.db
    .select()
    .from(orders)
    .where(and(eq(orders.userId, reader.userId), eq(orders.attemptId, keys.attemptId)))
  return { response, order: order!, sessionId: sessionIdOf(response), keys }
}

/** What a rendering of the checkout form carries: the cart's key and its attempt id. */
function keysOf(checkout: { idempotencyKey: string; attemptId: string }) {
  return { idempotencyKey: checkout.idempotencyKey, attemptId: checkout.attemptId }
}

function postCheckout(cookie: string, keys: { idempotencyKey: string; attemptId: string }) {
  return checkoutAction(
    routeArgs({
      db: database.db,
      path: '/checkout',
      cookie,
      services,
      // The billing fields as the page fills them for a visitor whose country is unknown (features/tax).
      init: {
        method: 'POST',
        body: new URLSearchParams({ ...keys, billingCountry: 'US', pricedCountry: 'US' }),
      },
    }),
  )
}

function sessionIdOf(response: Response) {
  return new URL(response.headers.get('Location')!).pathname.split('/').pop()!
}

/** A Stripe event about a Checkout Session, as Stripe would send it (only the fields that matter here). */
function checkoutEvent(
  type: string,
  session: { id: string; orderId?: string; paymentStatus?: string },
  eventId = `evt_${crypto.randomBytes(12).toString('hex')}`,
) {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    type,
    data: {
      object: {
        id: session.id,
        object: 'checkout.session',
        mode: 'payment',
        status: type === 'checkout.session.expired' ? 'expired' : 'complete',
        payment_status: session.paymentStatus ?? 'paid',
        client_reference_id: session.orderId ?? null,
        metadata: session.orderId ? { orderId: session.orderId } : {},
        payment_intent: type === 'checkout.session.expired' ? null : `pi_${session.id}`,
        // Not ASCII: the signature must hold over the body's exact characters.
        customer_details: { name: 'Zoë Ångström — reader' },
      },
    },
  })
}

/** Posts `payload` to the webhook signed as Stripe signs it, or with the given Stripe-Signature header. */
async function deliver(
  payload: string,
  options: { signature?: string | null; secret?: string; timestamp?: number; via?: StoreServices } = {},
) {
  const signature =
    options.signature === undefined
      ? Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: options.secret ?? WEBHOOK_SECRET,
          timestamp: options.timestamp,
        })
      : options.signature
  const response = await webhookAction(
    routeArgs({
      db: database.db,
      path: '/webhooks/stripe',
      services: options.via ?? services,
      init: {
        method: 'POST',
        body: payload,
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          ...(signature === null ? {} : { 'Stripe-Signature': signature }),
        },
      },
    }),
  )
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** What the buyer would notice: the order, their library, their cart, the receipts queued. */
async function stateOf(reader: { userId: string; cartId: string }, orderId: string) {
  const [order] = await database.db.select().from(orders).where(eq(orders.id, orderId))
  const owned = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId))
  const receipts = await database.db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.kind, 'receipt'), eq(emailOutbox.subjectKey, orderId)))
  return {
    status: order!.status,
    owned: owned.map((item) => item.bookId).toSorted(),
    cart: (await listCartBookIds(database.db, reader.cartId)).toSorted(),
    receipts: receipts.length,
  }
}

describe('choosing the provider', () => {
  test('Stripe when both keys are set, the test provider otherwise; the services use the one handed in', () => {
    expect(createPaymentProvider(parseEnv(STRIPE_ENV))).toMatchObject({ kind: 'redirect', name: 'stripe' })
    expect(createPaymentProvider(parseEnv({}))).toMatchObject({ kind: 'card-form', name: 'test' })
    expect(services.payments).toBe(stripe)
  })

  test('the checkout page offers no card form in Stripe mode', async () => {
    const reader = await readerWithCart(1)
    const page = await checkoutPage(reader.cookie)
    expect(page.provider).toBe('stripe')
    const html = renderCheckout(page)
    expect(html).toContain('You will pay on Stripe&#x27;s secure page')
    expect(html).toMatch(/<button[^>]*type="submit"[^>]*>Pay \$/)
    for (const field of ['name', 'number', 'expiry', 'cvc']) expect(html).not.toContain(`name="${field}"`)
    expect(html).not.toContain('Test mode')
    // The same page in test mode has them: what this test looks for is there to be found.
    const testMode = renderCheckout({ ...page, provider: 'test' })
    for (const field of ['name', 'number', 'expiry', 'cvc']) expect(testMode).toContain(`name="${field}"`)
  })
})

describe('starting a Stripe Checkout', () => {
  test('the session is asked for with the order’s lines, the buyer and our URLs', async () => {
    const provider = createStripePaymentProvider({ ...secrets(), httpClient: stripeApi.httpClient })
    if (provider.kind !== 'redirect') throw new Error('expected the Stripe provider')
    const before = stripeApi.requests.length
    const orderId = crypto.randomUUID()
    const session = await provider.startCheckout({
      orderId,
      orderNumber: 1042,
      customerEmail: 'ada@example.com',
      lines: [
        { title: 'Clean Code', grossCents: 2999, currency: 'USD' },
        { title: 'Zoë’s Rust — 2nd edition', grossCents: 1500, currency: 'USD' },
      ],
      successUrl: `https://books.example/orders/${orderId}`,
      cancelUrl: 'https://books.example/checkout',
    })
    expect(stripeApi.requests).toHaveLength(before + 1)
    const request = stripeApi.requests.at(-1)!
    expect(request.method).toBe('POST')
    expect(request.url.href).toBe('https://api.stripe.com/v1/checkout/sessions')
    expect(request.headers.get('Authorization')).toBe('Bearer sk_test_codebook')
    expect(request.headers.get('Idempotency-Key')).toBe(`checkout-${orderId}`)
    expect(Object.fromEntries(request.body)).toEqual({
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': '2999',
      'line_items[0][price_data][product_data][name]': 'Clean Code',
      'line_items[1][quantity]': '1',
      'line_items[1][price_data][currency]': 'usd',
      'line_items[1][price_data][unit_amount]': '1500',
      'line_items[1][price_data][product_data][name]': 'Zoë’s Rust — 2nd edition',
      customer_email: 'ada@example.com',
      client_reference_id: orderId,
      'metadata[orderId]': orderId,
      'metadata[orderNumber]': '1042',
      'payment_intent_data[description]': 'CodeBook order #1042',
      'payment_intent_data[metadata][orderId]': orderId,
      'payment_intent_data[metadata][orderNumber]': '1042',
      success_url: `https://books.example/orders/${orderId}`,
      cancel_url: 'https://books.example/checkout',
    })
    expect(session.reference).toMatch(/^cs_test_/)
    expect(session.url).toBe(
      `https://checkout.stripe.com/c/pay/${session.reference}#fidkdWxOYHwnPyd1blpxYHZxWjA0`,
    )
  })

  test('checkout makes a pending order, sends the buyer to Stripe and leaves the cart alone', async () => {
    const reader = await readerWithCart(2)
    const { response, order, sessionId } = await startCheckout(reader)
    expect(response.status).toBe(303)
    expect(response.headers.get('Location')).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_/)
    expect(order).toMatchObject({
      userId: reader.userId,
      paymentProvider: 'stripe',
      paymentReference: sessionId,
    })
    expect(await stateOf(reader, order.id)).toEqual({
      status: 'pending',
      owned: [],
      cart: [catalogue[0]!.id, catalogue[1]!.id].toSorted(),
      receipts: 0,
    })
    // The amounts sent are the catalogue's, not anything the form said.
    const sent = stripeApi.requests.at(-1)!.body
    expect(sent.get('line_items[0][price_data][unit_amount]')).toBe(String(catalogue[0]!.priceCents))
    expect(sent.get('success_url')).toBe(`http://localhost:3000/orders/${order.id}`)
  })

  test('a doubled or retried POST, or a second tab, gives one order and one session', async () => {
    const reader = await readerWithCart(1)
    const first = await startCheckout(reader)
    expect(first.order).toMatchObject({ status: 'pending', paymentReference: first.sessionId })
    const again = await postCheckout(reader.cookie, first.keys)
    expect((again as Response).headers.get('Location')).toBe(first.response.headers.get('Location'))
    const otherTab = await postCheckout(reader.cookie, keysOf((await checkoutPage(reader.cookie)).checkout))
    expect((otherTab as Response).headers.get('Location')).toBe(first.response.headers.get('Location'))
    expect(await database.db.select().from(orders).where(eq(orders.userId, reader.userId))).toHaveLength(1)
  })

  test('the form of a checkout whose Stripe page closed unpaid is refused; the page loaded again pays', async () => {
    const reader = await readerWithCart(1)
    const first = await startCheckout(reader)
    await deliver(checkoutEvent('checkout.session.expired', { id: first.sessionId, orderId: first.order.id }))
    const before = stripeApi.requests.length
    const replayed = await postCheckout(reader.cookie, first.keys)
    expect(replayed).toMatchObject({
      init: { status: 409 },
      data: { formError: expect.stringContaining('nothing was charged') },
    })
    expect(stripeApi.requests).toHaveLength(before)
    const second = await startCheckout(reader)
    expect(second.order.id).not.toBe(first.order.id)
    expect(second.order.status).toBe('pending')
  })

  test('when Stripe refuses, the buyer is told, nothing is charged and the next attempt works', async () => {
    const reader = await readerWithCart(1)
    const { checkout } = await checkoutPage(reader.cookie)
    stripeApi.refuse(true)
    try {
      const refused = await postCheckout(reader.cookie, keysOf(checkout))
      expect(refused).toMatchObject({
        init: { status: 502 },
        data: { formError: expect.stringContaining('nothing was charged') },
      })
    } finally {
      stripeApi.refuse(false)
    }
    const [order] = await database.db.select().from(orders).where(eq(orders.userId, reader.userId))
    expect(order).toMatchObject({ status: 'pending', paymentReference: null })
    expect(await listCartBookIds(database.db, reader.cartId)).toHaveLength(1)
    const retried = await postCheckout(reader.cookie, keysOf(checkout))
    expect((retried as Response).status).toBe(303)
  })
})

describe('the webhook', () => {
  test('a good signature marks the order paid once, even when delivered twice', async () => {
    const reader = await readerWithCart(2)
    const { order, sessionId } = await startCheckout(reader)
    const payload = checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id })
    kickOutbox.mockClear()

    expect(await deliver(payload)).toEqual({ status: 200, body: { received: true } })
    const paid = {
      status: 'paid',
      owned: [catalogue[0]!.id, catalogue[1]!.id].toSorted(),
      cart: [],
      receipts: 1,
    }
    expect(await stateOf(reader, order.id)).toEqual(paid)
    expect(kickOutbox).toHaveBeenCalledTimes(1)
    const [receipt] = await database.db.select().from(emailOutbox).where(eq(emailOutbox.subjectKey, order.id))
    expect(receipt).toMatchObject({
      to: reader.email,
      subject: `Your CodeBook receipt — order #${order.number}`,
    })
    // The card, read from the payment's charge: its country is the order's third piece of tax evidence.
    expect(stripeApi.requests.at(-1)?.url.pathname).toBe(`/v1/payment_intents/pi_${sessionId}`)
    expect(await database.db.select().from(orders).where(eq(orders.id, order.id))).toMatchObject([
      {
        cardBrand: 'Visa',
        cardLast4: '0016',
        cardCountry: 'DE',
        billingCountry: 'US',
        evidenceStatus: 'untaxed',
      },
    ])

    // Stripe delivers at least once: the same event again, freshly signed, changes nothing.
    expect(await deliver(payload)).toEqual({ status: 200, body: { received: true } })
    expect(await stateOf(reader, order.id)).toEqual(paid)
    expect(
      await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId)),
    ).toHaveLength(2)
    expect(kickOutbox).toHaveBeenCalledTimes(1)
  })

  test('Stripe cannot say which card paid: the order is paid all the same, without the card', async () => {
    const reader = await readerWithCart(1, 5)
    const { order, sessionId } = await startCheckout(reader)
    stripeApi.refuse(true)
    try {
      const payload = checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id })
      expect(await deliver(payload)).toEqual({ status: 200, body: { received: true } })
    } finally {
      stripeApi.refuse(false)
    }
    expect((await stateOf(reader, order.id)).status).toBe('paid')
    expect(await database.db.select().from(orders).where(eq(orders.id, order.id))).toMatchObject([
      { cardBrand: null, cardCountry: null },
    ])
  })

  test('checking out again expires the buyer’s older open Checkout, so a book cannot be paid twice', async () => {
    const reader = await readerWithCart(1)
    const first = await startCheckout(reader)
    // The buyer changes the cart and checks out again in another tab.
    await addToCart(database.db, reader.cartId, catalogue[1]!.id)
    const second = await startCheckout(reader)
    expect(second.order.id).not.toBe(first.order.id)
    expect(stripeApi.statusOf(first.sessionId)).toBe('expired')
    expect(stripeApi.statusOf(second.sessionId)).toBe('open')
    const [older] = await database.db.select().from(orders).where(eq(orders.id, first.order.id))
    expect(older).toMatchObject({ status: 'failed', failureReason: 'replaced by a newer checkout' })
  })

  test('an older Checkout paid just before the new one: both payments stand, the second is reported for a refund', async () => {
    const reader = await readerWithCart(1)
    const first = await startCheckout(reader)
    stripeApi.complete(first.sessionId) // paid on Stripe's page; its webhook is on the way
    await addToCart(database.db, reader.cartId, catalogue[1]!.id)
    const second = await startCheckout(reader)
    const [older] = await database.db.select().from(orders).where(eq(orders.id, first.order.id))
    expect(older!.status).toBe('pending')
    const orderUrl = 'http://localhost:3000/orders/x'
    expect(
      await completePaidOrder(database.db, { orderId: first.order.id, reference: first.sessionId, orderUrl }),
    ).toBe('paid')
    expect(
      await completePaidOrder(database.db, {
        orderId: second.order.id,
        reference: second.sessionId,
        orderUrl,
      }),
    ).toBe('paid-twice')
    const owned = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId))
    expect(owned.map((item) => item.bookId).toSorted()).toEqual(
      [catalogue[0]!.id, catalogue[1]!.id].toSorted(),
    )
    // Refunding the older payment leaves the book owned, through the newer order that paid for it too.
    expect(await refundOrder(database.db, first.order.id)).toBe('refunded')
    const kept = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId))
    expect(kept.map(({ bookId, orderId }) => ({ bookId, orderId }))).toEqual(
      expect.arrayContaining([
        { bookId: catalogue[0]!.id, orderId: second.order.id },
        { bookId: catalogue[1]!.id, orderId: second.order.id },
      ]),
    )
    expect(kept).toHaveLength(2)
  })

  test('two deliveries of one event at the same moment pay once', async () => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const payload = checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id })
    kickOutbox.mockClear()
    const replies = await Promise.all([deliver(payload), deliver(payload), deliver(payload)])
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200])
    expect(await stateOf(reader, order.id)).toEqual({
      status: 'paid',
      owned: [catalogue[0]!.id],
      cart: [],
      receipts: 1,
    })
    expect(kickOutbox).toHaveBeenCalledTimes(1)
  })

  test.each([
    ['no Stripe-Signature header', { signature: null }],
    ['a signature made with another secret', { secret: 'whsec_someone_else' }],
    ['a garbled signature header', { signature: 't=123,v1=deadbeef' }],
    ['a signature older than five minutes (a replay)', { timestamp: Math.floor(Date.now() / 1000) - 301 }],
  ])('%s: 400, and nothing changes', async (_, options) => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const payload = checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id })
    const refused = await deliver(payload, options)
    expect(refused.status).toBe(400)
    expect(refused.body).toEqual({ error: expect.any(String) })
    expect(await stateOf(reader, order.id)).toEqual({
      status: 'pending',
      owned: [],
      cart: [catalogue[0]!.id],
      receipts: 0,
    })
  })

  test('a body changed after signing: 400, and nothing changes', async () => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const signedFor = checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id })
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: signedFor, secret: WEBHOOK_SECRET })
    const refused = await deliver(signedFor.replace('"paid"', '"paid" '), { signature })
    expect(refused.status).toBe(400)
    expect((await stateOf(reader, order.id)).status).toBe('pending')
  })

  test('an unknown or mismatched session is acknowledged and changes nothing', async () => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const untouched = { status: 'pending', owned: [], cart: [catalogue[0]!.id], receipts: 0 }
    for (const session of [
      // Another session naming this order: not the payment it was sent to make.
      { id: 'cs_test_someone_elses_session', orderId: order.id },
      // This session, but naming an order that does not exist.
      { id: sessionId, orderId: crypto.randomUUID() },
      // A session from another integration on the same Stripe account.
      { id: 'cs_test_not_ours' },
    ]) {
      expect(await deliver(checkoutEvent('checkout.session.completed', session))).toEqual({
        status: 200,
        body: { received: true },
      })
      expect(await stateOf(reader, order.id)).toEqual(untouched)
    }
  })

  test('events about other things are acknowledged and ignored', async () => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const payload = JSON.stringify({
      id: 'evt_other',
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { id: 'pi_123', object: 'payment_intent', metadata: { orderId: order.id } } },
    })
    expect((await deliver(payload)).status).toBe(200)
    expect(await stateOf(reader, order.id)).toEqual({
      status: 'pending',
      owned: [],
      cart: [catalogue[0]!.id],
      receipts: 0,
    })
    // The order still waits on the session it was sent to, which can still pay it.
    const [after] = await database.db.select().from(orders).where(eq(orders.id, order.id))
    expect(after).toEqual(order)
    expect(after!.paymentReference).toBe(sessionId)
    await deliver(checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id }))
    expect((await stateOf(reader, order.id)).status).toBe('paid')
  })

  test('a delayed payment: completed unpaid changes nothing, the later success pays', async () => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const session = { id: sessionId, orderId: order.id }
    await deliver(checkoutEvent('checkout.session.completed', { ...session, paymentStatus: 'unpaid' }))
    expect((await stateOf(reader, order.id)).status).toBe('pending')
    await deliver(checkoutEvent('checkout.session.async_payment_succeeded', session))
    expect(await stateOf(reader, order.id)).toMatchObject({
      status: 'paid',
      owned: [catalogue[0]!.id],
      cart: [],
    })
  })

  test('an expired session fails its order; the same cart can then be checked out again', async () => {
    const reader = await readerWithCart(1)
    const first = await startCheckout(reader)
    await deliver(checkoutEvent('checkout.session.expired', { id: first.sessionId, orderId: first.order.id }))
    const [failed] = await database.db.select().from(orders).where(eq(orders.id, first.order.id))
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'expired' })
    expect(await listCartBookIds(database.db, reader.cartId)).toEqual([catalogue[0]!.id])

    const second = await startCheckout(reader)
    expect(second.order.id).not.toBe(first.order.id)
    expect(second.sessionId).not.toBe(first.sessionId)
    // A late success for the expired session (Stripe sends none, but if it came) grants nothing.
    await deliver(
      checkoutEvent('checkout.session.completed', { id: first.sessionId, orderId: first.order.id }),
    )
    expect((await stateOf(reader, first.order.id)).status).toBe('failed')
    await deliver(
      checkoutEvent('checkout.session.completed', { id: second.sessionId, orderId: second.order.id }),
    )
    expect(await stateOf(reader, second.order.id)).toEqual({
      status: 'paid',
      owned: [catalogue[0]!.id],
      cart: [],
      receipts: 1,
    })
  })

  test('a store not configured for Stripe has no webhook: 404', async () => {
    const reader = await readerWithCart(1)
    const { order, sessionId } = await startCheckout(reader)
    const testMode = createStoreServices({
      db: database.db,
      env: parseEnv({}),
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger: createLogger('silent'),
    })
    const payload = checkoutEvent('checkout.session.completed', { id: sessionId, orderId: order.id })
    expect((await deliver(payload, { via: testMode })).status).toBe(404)
    expect((await stateOf(reader, order.id)).status).toBe('pending')
  })

  test('only POST: anything else is 405', async () => {
    const args = routeArgs({ db: database.db, path: '/webhooks/stripe', services })
    const get = webhookLoader()
    expect(get.status).toBe(405)
    expect(get.headers.get('Allow')).toBe('POST')
    const put = await webhookAction({
      ...args,
      request: new Request(args.request, { method: 'PUT', body: '{}' }),
    })
    expect(put.status).toBe(405)
  })
})

describe('coupons with Stripe (issue 30)', () => {
  let codes = 0
  async function couponOnCart(
    reader: { cartId: string },
    terms: { kind: 'percent' | 'amount'; value: number },
  ) {
    const code = `STRIPE${++codes}X${Date.now() % 100000}`
    await database.db.insert(coupons).values({ code, ...terms })
    await setCartCoupon(database.db, reader.cartId, code)
    return code
  }

  test('Stripe is asked for the paid prices, and an expired page gives the coupon’s use back', async () => {
    const reader = await readerWithCart(2)
    const code = await couponOnCart(reader, { kind: 'amount', value: 500 })
    const before = stripeApi.requests.length
    const started = await startCheckout(reader)
    expect(stripeApi.requests).toHaveLength(before + 1)
    const body = stripeApi.requests.at(-1)!.body
    const paid = [0, 1].map((line) => Number(body.get(`line_items[${line}][price_data][unit_amount]`)))
    const list = catalogue.slice(0, 2).map((book) => book.priceCents)
    expect(paid.reduce((a, b) => a + b, 0)).toBe(list.reduce((a, b) => a + b, 0) - 500)
    expect(started.order).toMatchObject({ discountCents: 500, couponCode: code })
    const redeemed = async () =>
      (await database.db.select().from(coupons).where(eq(coupons.code, code)))[0]!.redeemed
    expect(await redeemed()).toBe(1)
    await deliver(
      checkoutEvent('checkout.session.expired', { id: started.sessionId, orderId: started.order.id }),
    )
    expect(await redeemed()).toBe(0)
  })

  test('100 % off: no Stripe page, the order is paid and the books are in the library', async () => {
    const reader = await readerWithCart(1, 2)
    await couponOnCart(reader, { kind: 'percent', value: 100 })
    const { checkout } = await checkoutPage(reader.cookie)
    expect(checkout.totalCents).toBe(0)
    expect(renderCheckout(await checkoutPage(reader.cookie))).toContain('Complete order')
    const before = stripeApi.requests.length
    const response = await checkoutAction(
      routeArgs({
        db: database.db,
        path: '/checkout',
        cookie: reader.cookie,
        services,
        init: {
          method: 'POST',
          body: new URLSearchParams({
            ...keysOf(checkout),
            free: '1',
            billingCountry: 'US',
            pricedCountry: 'US',
          }),
        },
      }),
    )
    expect(response).toBeInstanceOf(Response)
    const location = (response as Response).headers.get('Location')!
    expect(location).toMatch(/^\/orders\/[0-9a-f-]{36}$/)
    expect(stripeApi.requests).toHaveLength(before)
    const orderId = location.split('/').pop()!
    expect(await stateOf(reader, orderId)).toEqual({
      status: 'paid',
      owned: [catalogue[2]!.id],
      cart: [],
      receipts: 1,
    })
  })

  test('a total above 0 and below Stripe’s $0.50 is refused with a message; nothing is made', async () => {
    const reader = await readerWithCart(1, 3)
    const book = catalogue[3]!
    await couponOnCart(reader, { kind: 'amount', value: book.priceCents - 30 })
    const { checkout } = await checkoutPage(reader.cookie)
    expect(checkout.totalCents).toBe(30)
    const before = stripeApi.requests.length
    const answer = (await postCheckout(reader.cookie, keysOf(checkout))) as unknown as {
      data: { formError: string }
      init: { status: number }
    }
    expect(answer.init.status).toBe(409)
    expect(answer.data.formError).toMatch(/cannot take a payment under \$0\.50/)
    expect(stripeApi.requests).toHaveLength(before)
    expect(await database.db.select().from(orders).where(eq(orders.userId, reader.userId))).toEqual([])
  })
})
