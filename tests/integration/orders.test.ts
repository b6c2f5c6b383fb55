import crypto from 'node:crypto'
import { Writable } from 'node:stream'
import { and, eq, inArray, sql } from 'drizzle-orm'
import pino from 'pino'
import { createElement } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub } from 'react-router'
import { describe, expect, vi } from 'vitest'
import { addToCart, listCartBookIds, requireUserCart } from '#app/features/cart/cart.server.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import {
  createTestPaymentProvider,
  paymentMessages,
  type PaymentProvider,
} from '#app/features/orders/payments.server.ts'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { checkoutMessages } from '#app/features/orders/checkout-messages.ts'
import { identityMessages } from '#app/features/identity/credentials.ts'
import type { AccountActionData } from '#app/features/identity/components/account-form.tsx'
import { whyAnAccount } from '#app/features/orders/components/account-step.tsx'
import { loader as rootLoader } from '#app/root.tsx'
import { action as cartAction } from '#app/routes/cart.tsx'
import Checkout, { action as checkoutAction, loader as checkoutLoader } from '#app/routes/checkout.tsx'
import { loader as orderLoader, meta as orderMeta } from '#app/routes/order.tsx'
import { loader as exportLoader } from '#app/routes/account-export.ts'
import { loader as ordersLoader } from '#app/routes/account-orders.tsx'
import {
  books,
  emailOutbox,
  libraryItems,
  orderItems,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createMailer } from '#app/server/mail.server.ts'
import { deliverDueEmails, startOutboxWorker } from '#app/server/outbox.server.ts'
import { createStoreServices, type StoreServices } from '#app/services.server.ts'
import type { TestDatabase } from '#tests/db.ts'
import { test } from '#tests/fixtures.ts'
import { deliverOutboxOverSmtp, startSmtpServer } from '#tests/smtp.ts'
import { routeArgs, servicesFor, thrownBy } from '#tests/route-args.ts'
import { CookieJar, cookieHeader } from '#harness/cookie-jar.ts'

let database: TestDatabase
let catalogue: Awaited<ReturnType<typeof listBooks>>
test.beforeAll(async ({ database: fileDatabase }) => {
  database = fileDatabase
  catalogue = await listBooks(database.db)
})

const GOOD_CARD = { name: 'Ada Reader', number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }
const DECLINED_CARD = '4000 0000 0000 0002'
const MAIL_FROM = 'CodeBook <orders@codebook.localhost>'
let readers = 0

/** A registered reader with `bookCount` books in the cart; returns their session cookie and user id. */
async function readerWithCart(bookCount: number) {
  const email = `buyer${++readers}@example.com`
  const signedUp = await servicesFor(database.db).auth.api.signUpEmail({
    body: { email, password: 'correct horse battery staple', name: email },
    returnHeaders: true,
  })
  const cookie = cookieHeader(signedUp.headers)
  const cartId = await requireUserCart(database.db, signedUp.response.user.id)
  for (const book of catalogue.slice(0, bookCount)) await addToCart(database.db, cartId, book.id)
  return { cookie, userId: signedUp.response.user.id, email, cartId }
}

/** The checkout page of a signed-in reader: the payment step. */
async function checkoutPage(cookie: string) {
  const page = await checkoutLoader(
    routeArgs({ db: database.db, path: '/checkout', cookie, services: storeServices() }),
  )
  if (page.step !== 'pay') throw new Error(`expected the payment step, got ${page.step}`)
  return page
}

/** The billing fields as the page fills them for a visitor whose country is unknown (features/tax). */
const billedInUs = { billingCountry: 'US', pricedCountry: 'US' }

/** What a rendering of the checkout form carries besides the card: the cart's key and its attempt id. */
function keysOf(checkout: { idempotencyKey: string; attemptId: string }) {
  return { idempotencyKey: checkout.idempotencyKey, attemptId: checkout.attemptId }
}

async function pay(
  cookie: string,
  fields: Record<string, string>,
  options: { services?: StoreServices } = {},
) {
  const result = await checkoutAction(
    routeArgs({
      db: database.db,
      path: '/checkout',
      cookie,
      services: options.services ?? storeServices(),
      init: { method: 'POST', body: new URLSearchParams({ ...billedInUs, ...fields }) },
    }),
  )
  if (result instanceof Response)
    return { status: result.status, location: result.headers.get('Location'), body: null }
  const { data, init } = result as unknown as { data: unknown; init: ResponseInit }
  return { status: init.status, location: null, body: data as { fieldErrors?: object; formError?: string } }
}

const ordersOf = (userId: string) => database.db.select().from(orders).where(eq(orders.userId, userId))

type CardFormProvider = Extract<PaymentProvider, { kind: 'card-form' }>

/**
 * The store's services here, with a test provider of this file's own (createStoreServices takes one): its
 * charges counted and, when a test asks, slowed down.
 */
const testProvider = createTestPaymentProvider()
let chargeDelayMs = 0
const charges = vi.fn<CardFormProvider['charge']>(async (input) => {
  if (chargeDelayMs) await new Promise((resolve) => setTimeout(resolve, chargeDelayMs))
  return testProvider.charge(input)
})
const payments: CardFormProvider = { ...testProvider, charge: charges }

/** Runs `posts` with every charge slowed down, so the first transaction is still open when the others arrive. */
async function withSlowCharges<T>(posts: () => Promise<T>): Promise<T> {
  chargeDelayMs = 200
  try {
    return await posts()
  } finally {
    chargeDelayMs = 0
  }
}
const storeServices = (): StoreServices => ({ ...servicesFor(database.db), payments })

describe('who may buy: an account, made on the checkout page in one step', () => {
  let visitors = 0
  /** A visitor's own address, so that each test meets the sign-up limit (10 an hour per address) afresh. */
  const nextIp = () => `198.51.100.${++visitors}`

  /** Adds a book as a browser without JavaScript would, keeping the cookies it is given. */
  async function addBook(jar: CookieJar, bookId: string, clientIp: string) {
    const added = await cartAction(
      routeArgs({
        db: database.db,
        path: '/cart',
        cookie: jar.header(),
        clientIp,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'add', bookId }) },
      }),
    )
    jar.take(added as Response)
  }

  async function openCheckout(jar: CookieJar, clientIp: string) {
    return checkoutLoader(
      routeArgs({
        db: database.db,
        path: '/checkout',
        cookie: jar.header(),
        clientIp,
        services: storeServices(),
      }),
    )
  }

  async function createAccount(jar: CookieJar, fields: Record<string, string>, clientIp: string) {
    const result = await checkoutAction(
      routeArgs({
        db: database.db,
        path: '/checkout',
        cookie: jar.header(),
        clientIp,
        services: storeServices(),
        init: { method: 'POST', body: new URLSearchParams({ intent: 'create-account', ...fields }) },
      }),
    )
    if (result instanceof Response) {
      jar.take(result)
      return { status: result.status, location: result.headers.get('Location'), body: null }
    }
    const { data, init } = result as unknown as { data: AccountActionData; init: ResponseInit }
    return { status: init.status, location: null, body: data }
  }

  test.each([
    ['a signed-out visitor', false],
    ['a guest (Login as guest)', true],
  ])(
    '%s is told why an account is needed, creates it with an email and a password, keeps the cart and pays',
    async (_who, asGuest) => {
      const clientIp = nextIp()
      const jar = new CookieJar()
      let guestId: string | undefined
      if (asGuest) {
        const guest = await servicesFor(database.db).auth.api.signInAnonymous({
          returnHeaders: true,
          headers: new Headers(),
        })
        jar.take(guest.headers)
        guestId = guest.response?.user.id
      }
      await addBook(jar, catalogue[1]!.id, clientIp)
      await addBook(jar, catalogue[2]!.id, clientIp)

      // The checkout page, not a redirect: the cart and the account step (a client navigation too).
      const page = await openCheckout(jar, clientIp)
      expect(page).toMatchObject({ step: 'account', isGuest: asGuest })
      if (page.step !== 'account') throw new Error('expected the account step')
      expect(page.lines.map((line) => line.bookId).toSorted()).toEqual(
        [catalogue[1]!.id, catalogue[2]!.id].toSorted(),
      )
      const navigated = await checkoutLoader(
        routeArgs({ db: database.db, path: '/checkout', cookie: jar.header(), clientIp, dataRequest: true }),
      )
      expect(navigated.step).toBe('account')

      const email = `one-step-${crypto.randomUUID()}@example.com`
      const created = await createAccount(jar, { email, password: 'correct horse battery staple' }, clientIp)
      expect(created).toMatchObject({ status: 303, location: '/checkout' })

      const payStep = await openCheckout(jar, clientIp)
      if (payStep.step !== 'pay') throw new Error('expected the payment step once the account exists')
      expect(payStep.email).toBe(email)
      expect(payStep.checkout.lines.map((line) => line.bookId).toSorted()).toEqual(
        [catalogue[1]!.id, catalogue[2]!.id].toSorted(),
      )
      const paid = await pay(jar.header(), { ...GOOD_CARD, ...keysOf(payStep.checkout) })
      expect(paid.status).toBe(303)
      const [account] = await database.db.select().from(user).where(eq(user.email, email))
      const owned = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, account!.id))
      expect(owned.map((item) => item.bookId).toSorted()).toEqual(
        [catalogue[1]!.id, catalogue[2]!.id].toSorted(),
      )
      // The guest is gone once its cart moved to the account.
      if (guestId) expect(await database.db.select().from(user).where(eq(user.id, guestId))).toEqual([])
    },
  )

  test("the register page's rules and messages: each refusal next to its field, the email kept, nothing made, the cart kept", async () => {
    const clientIp = nextIp()
    const jar = new CookieJar()
    await addBook(jar, catalogue[0]!.id, clientIp)
    const taken = await readerWithCart(0)
    for (const [fields, status, errors] of [
      [
        { email: 'not-an-email', password: 'correct horse battery staple' },
        400,
        { email: identityMessages.emailInvalid },
      ],
      [
        { email: `x-${crypto.randomUUID()}@example.com`, password: 'password1' },
        400,
        { password: identityMessages.passwordCommon },
      ],
      [
        { email: taken.email, password: 'correct horse battery staple' },
        409,
        { email: identityMessages.emailInUse },
      ],
    ] as const) {
      const refused = await createAccount(jar, fields, clientIp)
      expect(refused).toMatchObject({ status, body: { fieldErrors: errors, email: fields.email } })
      expect(JSON.stringify(refused.body)).not.toContain(fields.password)
    }
    const page = await openCheckout(jar, clientIp)
    expect(page).toMatchObject({ step: 'account', lines: [{ bookId: catalogue[0]!.id }] })
  })

  test('the account step as rendered: why an account, the one-step form, a way to log in instead', async () => {
    const clientIp = nextIp()
    const jar = new CookieJar()
    await addBook(jar, catalogue[0]!.id, clientIp)
    const html = renderToString(
      createElement(createRoutesStub([{ id: 'checkout', path: '/checkout', Component: Checkout }]), {
        initialEntries: ['/checkout'],
        hydrationData: { loaderData: { checkout: await openCheckout(jar, clientIp) } },
      }),
    )
    expect(html).toContain(whyAnAccount)
    expect(html).toMatch(/<form[^>]*action="\/checkout" method="post"/)
    expect(html).toContain('name="intent" value="create-account"')
    expect(html).toContain('name="email"')
    expect(html).toContain('name="password"')
    expect(html).toContain('Create account and continue')
    expect(html).toContain('href="/login?redirectTo=%2Fcheckout"')
  })
})

describe('paying with the test provider', () => {
  test('prices come from the catalogue: price-like fields in the form are ignored', async () => {
    const reader = await readerWithCart(2)
    const page = await checkoutPage(reader.cookie)
    const expected = catalogue[0]!.priceCents + catalogue[1]!.priceCents
    expect(page.checkout.totalCents).toBe(expected)
    const paid = await pay(reader.cookie, {
      ...GOOD_CARD,
      ...keysOf(page.checkout),
      total: '1',
      totalCents: '1',
      priceCents: '1',
      [`price-${catalogue[0]!.id}`]: '0',
    })
    expect(paid.status).toBe(303)
    const [order] = await ordersOf(reader.userId)
    expect(paid.location).toBe(`/orders/${order!.id}`)
    expect(order).toMatchObject({
      status: 'paid',
      totalCents: expected,
      cardBrand: 'Visa',
      cardLast4: '4242',
    })
    const lines = await database.db.select().from(orderItems).where(eq(orderItems.orderId, order!.id))
    expect(lines.map((line) => line.priceCents).toSorted()).toEqual(
      [catalogue[0]!.priceCents, catalogue[1]!.priceCents].toSorted(),
    )
    // Granted, cart emptied, badge 0, the books shown as owned, the receipt queued.
    const owned = await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId))
    expect(owned.map((item) => item.bookId).toSorted()).toEqual(
      [catalogue[0]!.id, catalogue[1]!.id].toSorted(),
    )
    expect(await listCartBookIds(database.db, reader.cartId)).toEqual([])
    const root = await rootLoader(routeArgs({ db: database.db, path: '/', cookie: reader.cookie }))
    expect(root.cartBookIds).toEqual([])
    expect(root.ownedBookIds.toSorted()).toEqual([catalogue[0]!.id, catalogue[1]!.id].toSorted())
    const [receipt] = await database.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'receipt'), eq(emailOutbox.subjectKey, order!.id)))
    expect(receipt).toMatchObject({
      to: reader.email,
      subject: `Your CodeBook receipt — order #${order!.number}`,
    })
    expect(receipt!.text).toContain(`http://localhost:3000/orders/${order!.id}`)
  })

  test('the same form posted twice (a double click, a retried post) gives one order and one charge', async () => {
    const reader = await readerWithCart(1)
    const { checkout } = await checkoutPage(reader.cookie)
    const before = charges.mock.calls.length
    const first = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    const again = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    expect(first.status).toBe(303)
    expect(again.location).toBe(first.location)
    expect(await ordersOf(reader.userId)).toHaveLength(1)
    expect(charges.mock.calls.length - before).toBe(1)
  })

  test('the same cart paid from a second tab goes to the order the first one made, charged once', async () => {
    const reader = await readerWithCart(1)
    const [tab1, tab2] = [await checkoutPage(reader.cookie), await checkoutPage(reader.cookie)]
    expect(tab2.checkout.attemptId).not.toBe(tab1.checkout.attemptId)
    const before = charges.mock.calls.length
    const first = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(tab1.checkout) })
    const second = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(tab2.checkout) })
    expect(second).toMatchObject({ status: 303, location: first.location })
    expect(await ordersOf(reader.userId)).toHaveLength(1)
    expect(charges.mock.calls.length - before).toBe(1)
  })

  // PGlite runs one transaction at a time, so only PostgreSQL can show that the cart's lock holds.
  test.skipIf(process.env.TEST_DB !== 'postgres')(
    'concurrent posts of one cart, from one tab and from two, give one order and exactly one charge',
    async () => {
      const reader = await readerWithCart(2)
      const [tab1, tab2] = [await checkoutPage(reader.cookie), await checkoutPage(reader.cookie)]
      const before = charges.mock.calls.length
      const results = await withSlowCharges(() =>
        Promise.all(
          [tab1, tab1, tab2, tab2].map((tab) =>
            pay(reader.cookie, { ...GOOD_CARD, ...keysOf(tab.checkout) }),
          ),
        ),
      )
      expect(results.map((result) => result.status)).toEqual([303, 303, 303, 303])
      expect(new Set(results.map((result) => result.location)).size).toBe(1)
      expect(await ordersOf(reader.userId)).toHaveLength(1)
      expect(charges.mock.calls.length - before).toBe(1)
    },
  )

  // Same on PostgreSQL: a double click on a declined card must not try the card twice.
  test.skipIf(process.env.TEST_DB !== 'postgres')(
    'concurrent posts of one declined form make one failed order and one charge attempt',
    async () => {
      const reader = await readerWithCart(1)
      const { checkout } = await checkoutPage(reader.cookie)
      const before = charges.mock.calls.length
      const results = await withSlowCharges(() =>
        Promise.all(
          Array.from({ length: 3 }, () =>
            pay(reader.cookie, { ...GOOD_CARD, number: DECLINED_CARD, ...keysOf(checkout) }),
          ),
        ),
      )
      expect(results.map((result) => result.status)).toEqual([402, 402, 402])
      expect((await ordersOf(reader.userId)).map((order) => order.status)).toEqual(['failed'])
      expect(charges.mock.calls.length - before).toBe(1)
    },
  )

  test.each([
    ['4000 0000 0000 0002', paymentMessages.declined],
    ['4000 0000 0000 9995', paymentMessages['insufficient-funds']],
  ])(
    'card %s is refused: the cart stays, nothing is granted, a new card may try again',
    async (number, message) => {
      const reader = await readerWithCart(2)
      const { checkout } = await checkoutPage(reader.cookie)
      const refused = await pay(reader.cookie, {
        ...GOOD_CARD,
        number,
        ...keysOf(checkout),
      })
      expect(refused).toMatchObject({ status: 402, body: { formError: message } })
      expect(await listCartBookIds(database.db, reader.cartId)).toHaveLength(2)
      expect(
        await database.db.select().from(libraryItems).where(eq(libraryItems.userId, reader.userId)),
      ).toEqual([])
      expect((await ordersOf(reader.userId)).map((order) => order.status)).toEqual(['failed'])

      // The page, loaded again after the decline, is a new attempt: another card may pay.
      const again = await checkoutPage(reader.cookie)
      expect(again.checkout.attemptId).not.toBe(checkout.attemptId)
      const retried = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(again.checkout) })
      expect(retried.status).toBe(303)
      expect((await ordersOf(reader.userId)).map((order) => order.status).toSorted()).toEqual([
        'failed',
        'paid',
      ])
    },
  )

  test('a declined form posted again is declined again without trying the card; a new attempt pays', async () => {
    const reader = await readerWithCart(1)
    const { checkout } = await checkoutPage(reader.cookie)
    const before = charges.mock.calls.length
    const declined = { ...GOOD_CARD, number: DECLINED_CARD, ...keysOf(checkout) }
    const first = await pay(reader.cookie, declined)
    const again = await pay(reader.cookie, declined)
    expect(first).toMatchObject({ status: 402, body: { formError: paymentMessages.declined } })
    expect(again).toEqual(first)
    // Even with another card in it, the same form is the same attempt: answered, never charged.
    const sameFormOtherCard = await pay(reader.cookie, { ...declined, number: GOOD_CARD.number })
    expect(sameFormOtherCard).toEqual(first)
    expect((await ordersOf(reader.userId)).map((order) => order.status)).toEqual(['failed'])
    expect(charges.mock.calls.length - before).toBe(1)

    const next = await checkoutPage(reader.cookie)
    const paid = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(next.checkout) })
    expect(paid.status).toBe(303)
    expect((await ordersOf(reader.userId)).map((order) => order.status).toSorted()).toEqual([
      'failed',
      'paid',
    ])
    expect(charges.mock.calls.length - before).toBe(2)
  })

  test("another buyer posting someone's keys gets nothing of their order and changes nothing", async () => {
    const owner = await readerWithCart(1)
    const { checkout } = await checkoutPage(owner.cookie)
    const paid = await pay(owner.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    const [order] = await ordersOf(owner.userId)

    const other = await readerWithCart(1)
    const replayed = await pay(other.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    // Their own cart does not match the page those keys came from: refused, nothing charged or revealed.
    expect(replayed).toMatchObject({ status: 409, location: null })
    expect(JSON.stringify(replayed)).not.toContain(order!.id)
    expect(await ordersOf(other.userId)).toEqual([])
    expect(await listCartBookIds(database.db, other.cartId)).toHaveLength(1)
    expect(await ordersOf(owner.userId)).toEqual([order])
    expect(paid.location).toBe(`/orders/${order!.id}`)
  })

  test.each([
    [
      'a card number failing Luhn',
      { number: '4242 4242 4242 4241' },
      { number: checkoutMessages.numberInvalid },
    ],
    ['an empty card number', { number: '' }, { number: checkoutMessages.numberMissing }],
    ['an expired card', { expiry: '01/20' }, { expiry: checkoutMessages.expiryPast }],
    ['an unreadable expiry', { expiry: '2030-01' }, { expiry: checkoutMessages.expiryInvalid }],
    ['a 2-digit CVC', { cvc: '12' }, { cvc: checkoutMessages.cvcInvalid }],
    ['no name', { name: ' ' }, { name: checkoutMessages.nameMissing }],
  ])('%s: 400 with the message next to the field, nothing charged', async (_, override, fieldErrors) => {
    const reader = await readerWithCart(1)
    const { checkout } = await checkoutPage(reader.cookie)
    const refused = await pay(reader.cookie, {
      ...GOOD_CARD,
      ...override,
      ...keysOf(checkout),
    })
    expect(refused).toMatchObject({ status: 400, body: { fieldErrors } })
    expect(await ordersOf(reader.userId)).toEqual([])
  })

  test('a book already owned leaves the cart at checkout and is never charged twice', async () => {
    const reader = await readerWithCart(1)
    const first = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(first.checkout) })
    // The owned book cannot be added again…
    const refused = await cartAction(
      routeArgs({
        db: database.db,
        path: '/cart',
        cookie: reader.cookie,
        dataRequest: true,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'add', bookId: catalogue[0]!.id }) },
      }),
    )
    expect(refused).toMatchObject({ init: { status: 400 } })
    // …and if it is in the cart anyway (put there from another device before the purchase), checkout drops it.
    await addToCart(database.db, reader.cartId, catalogue[0]!.id)
    await addToCart(database.db, reader.cartId, catalogue[1]!.id)
    const second = await checkoutPage(reader.cookie)
    expect(second.checkout.alreadyOwned.map((line) => line.bookId)).toEqual([catalogue[0]!.id])
    expect(second.checkout.lines.map((line) => line.bookId)).toEqual([catalogue[1]!.id])
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(second.checkout) })
    const paid = (await ordersOf(reader.userId)).find(
      (order) => order.totalCents === catalogue[1]!.priceCents,
    )
    expect(paid?.status).toBe('paid')
    expect(await listCartBookIds(database.db, reader.cartId)).toEqual([])
  })

  test('a cart of books the buyer owns only: the page changes nothing, and offers to take them out', async () => {
    const reader = await readerWithCart(1)
    const first = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(first.checkout) })
    // Put back from before owned books were kept out of carts, or in the moment of the purchase.
    await addToCart(database.db, reader.cartId, catalogue[0]!.id)
    const badge = async () =>
      (await rootLoader(routeArgs({ db: database.db, path: '/', cookie: reader.cookie }))).cartBookIds
    const page = await checkoutPage(reader.cookie)
    expect(page.checkout.lines).toEqual([])
    expect(page.checkout.alreadyOwned.map((line) => line.bookId)).toEqual([catalogue[0]!.id])
    expect(await badge()).toEqual([catalogue[0]!.id])

    const removed = await pay(reader.cookie, { intent: 'remove-owned' })
    expect(removed).toMatchObject({ status: 303, location: '/checkout' })
    expect(await badge()).toEqual([])
    expect((await checkoutPage(reader.cookie)).checkout.alreadyOwned).toEqual([])
    expect(await ordersOf(reader.userId)).toHaveLength(1)
  })

  test('a page whose cart or prices changed since it was opened charges nothing: 409, then the new page pays', async () => {
    const reader = await readerWithCart(1)
    const stale = await checkoutPage(reader.cookie)
    // Another tab adds a book.
    await addToCart(database.db, reader.cartId, catalogue[1]!.id)
    const refused = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(stale.checkout) })
    expect(refused).toMatchObject({ status: 409, body: { formError: expect.stringContaining('changed') } })
    expect(await ordersOf(reader.userId)).toEqual([])
    expect(await listCartBookIds(database.db, reader.cartId)).toHaveLength(2)

    // A price changes under the page.
    const opened = await checkoutPage(reader.cookie)
    await database.db
      .update(books)
      .set({ priceCents: catalogue[1]!.priceCents + 100 })
      .where(eq(books.id, catalogue[1]!.id))
    try {
      const repriced = await pay(reader.cookie, {
        ...GOOD_CARD,
        ...keysOf(opened.checkout),
      })
      expect(repriced.status).toBe(409)
      expect(await ordersOf(reader.userId)).toEqual([])

      const fresh = await checkoutPage(reader.cookie)
      expect((await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(fresh.checkout) })).status).toBe(303)
      const [order] = await ordersOf(reader.userId)
      expect(order!.totalCents).toBe(catalogue[0]!.priceCents + catalogue[1]!.priceCents + 100)
    } finally {
      await database.db
        .update(books)
        .set({ priceCents: catalogue[1]!.priceCents })
        .where(eq(books.id, catalogue[1]!.id))
    }
  })

  test('a book withdrawn from sale after it was put in the cart is not sold', async () => {
    const reader = await readerWithCart(2)
    await database.db.update(books).set({ available: false }).where(eq(books.id, catalogue[1]!.id))
    try {
      const { checkout } = await checkoutPage(reader.cookie)
      expect(checkout.lines.map((line) => line.bookId)).toEqual([catalogue[0]!.id])
      expect(checkout.unavailable.map((line) => line.bookId)).toEqual([catalogue[1]!.id])
      await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
      const [order] = await ordersOf(reader.userId)
      expect(order).toMatchObject({ status: 'paid', totalCents: catalogue[0]!.priceCents })
    } finally {
      await database.db.update(books).set({ available: true }).where(eq(books.id, catalogue[1]!.id))
    }
  })

  test('an empty cart has nothing to pay for', async () => {
    const reader = await readerWithCart(0)
    const { checkout } = await checkoutPage(reader.cookie)
    expect(checkout.lines).toEqual([])
    const refused = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    expect(refused.status).toBe(409)
  })
})

describe('after the purchase', () => {
  test('the receipt reaches a real SMTP server: order number, books, total and a link to the order', async () => {
    const reader = await readerWithCart(2)
    const { checkout } = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    const [order] = await ordersOf(reader.userId)
    // The reader's registration mailed a confirmation link too (decision 017): the receipt is the one here.
    const mail = (await deliverOutboxOverSmtp(database.db)).find(
      (received) =>
        received.envelope.to.includes(reader.email) && received.parsed.subject?.includes('receipt'),
    )
    expect(mail, 'a receipt for the buyer').toBeDefined()
    expect(mail!.parsed.subject).toBe(`Your CodeBook receipt — order #${order!.number}`)
    const total = formatPrice(checkout.totalCents, checkout.currency)
    const orderUrl = `http://localhost:3000/orders/${order!.id}`
    for (const body of [mail!.parsed.text!, mail!.parsed.html as string]) {
      expect(body).toContain(`#${order!.number}`)
      for (const line of checkout.lines) expect(body).toContain(line.title)
      expect(body).toContain(total)
      expect(body).toContain(orderUrl)
    }
    // Card data never travels in the receipt.
    for (const body of [mail!.parsed.text!, mail!.parsed.html as string]) {
      expect(body).not.toContain('4242424242424242')
      expect(body).not.toContain('4242 4242 4242 4242')
    }
  })

  test('a purchase while the mail server is down goes through; the receipt waits and leaves once it is back', async () => {
    // A port where nothing listens: the mail server is down.
    const gone = await startSmtpServer()
    await gone.close()
    const logger = createLogger('silent')
    const down = createMailer({ smtpUrl: gone.url, from: MAIL_FROM, outboxDir: '/nonexistent', logger })
    const worker = startOutboxWorker({ db: database.db, mailer: down, logger, intervalMs: 3_600_000 })
    const services = createStoreServices({
      db: database.db,
      env: servicesFor(database.db).env,
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger,
      kickOutbox: worker.kick,
      payments,
    })
    const reader = await readerWithCart(1)
    const { checkout } = await checkoutPage(reader.cookie)
    const receiptRow = async () =>
      (
        await database.db
          .select()
          .from(emailOutbox)
          .where(and(eq(emailOutbox.to, reader.email), eq(emailOutbox.kind, 'receipt')))
      )[0]
    try {
      const paid = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) }, { services })
      const [order] = await ordersOf(reader.userId)
      expect(paid).toMatchObject({ status: 303, location: `/orders/${order!.id}` })
      expect(order!.status).toBe('paid')
      // The worker, kicked by the purchase, tried and failed; the receipt waits for its retry.
      await expect
        .poll(async () => (await receiptRow())?.lastError, { timeout: 10_000 })
        .toMatch(/ECONNREFUSED/)
    } finally {
      await worker.stop()
    }
    const [order] = await ordersOf(reader.userId)
    expect(await receiptRow()).toMatchObject({ subjectKey: order!.id, sentAt: null, attempts: 1 })

    // The server is back: the next run after the retry delay sends the receipt.
    const smtp = await startSmtpServer()
    try {
      const up = createMailer({ smtpUrl: smtp.url, from: MAIL_FROM, outboxDir: '/nonexistent', logger })
      await deliverDueEmails(database.db, up, { logger, now: new Date(Date.now() + 2 * 60_000) })
      // The reader's registration mailed a confirmation link too (decision 017): the receipt is the one here.
      const mail = smtp.received.find(
        (received) =>
          received.envelope.to.includes(reader.email) && received.parsed.subject?.includes('receipt'),
      )
      expect(mail?.parsed.subject).toBe(`Your CodeBook receipt — order #${order!.number}`)
      expect((await receiptRow())!.sentAt).toBeInstanceOf(Date)
    } finally {
      await smtp.close()
    }
  })

  test("an order's page is its buyer's alone: 404 for anyone else, and for ids that are not ids", async () => {
    const buyer = await readerWithCart(1)
    const { checkout } = await checkoutPage(buyer.cookie)
    const paid = await pay(buyer.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    const orderId = paid.location!.split('/').pop()!
    const own = await orderLoader(
      routeArgs({ db: database.db, path: paid.location!, cookie: buyer.cookie, params: { orderId } }),
    )
    expect(own.order.lines).toHaveLength(1)

    const stranger = await readerWithCart(0)
    for (const id of [orderId, '00000000-0000-0000-0000-000000000000', 'not-a-uuid', "1' or '1'='1"]) {
      const thrown = await thrownBy(() =>
        orderLoader(
          routeArgs({
            db: database.db,
            path: `/orders/${id}`,
            cookie: stranger.cookie,
            params: { orderId: id },
          }),
        ),
      )
      expect(thrown).toMatchObject({ init: { status: 404 } })
    }
  })

  test('the orders list shows the buyer’s orders, newest first', async () => {
    const reader = await readerWithCart(1)
    const first = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(first.checkout) })
    await addToCart(database.db, reader.cartId, catalogue[3]!.id)
    const second = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(second.checkout) })
    const { orders: list } = await ordersLoader(
      routeArgs({ db: database.db, path: '/account/orders', cookie: reader.cookie }),
    )
    expect(list.map((order) => order.lines[0]!.bookId)).toEqual([catalogue[3]!.id, catalogue[0]!.id])
    expect(list[0]!.number).toBeGreaterThan(list[1]!.number)
  })
})

describe('a payment that failed', () => {
  test('is not an order to its buyer: My orders lists the paid one only; its page says nothing was charged; the export keeps it, labelled', async () => {
    const reader = await readerWithCart(1)
    const declined = await checkoutPage(reader.cookie)
    expect(
      await pay(reader.cookie, { ...GOOD_CARD, number: DECLINED_CARD, ...keysOf(declined.checkout) }),
    ).toMatchObject({ status: 402 })
    const next = await checkoutPage(reader.cookie)
    const paid = await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(next.checkout) })
    expect(paid.status).toBe(303)

    const { orders: list } = await ordersLoader(
      routeArgs({ db: database.db, path: '/account/orders', cookie: reader.cookie }),
    )
    expect(list.map((order) => order.status)).toEqual(['paid'])

    // The owner keeps it, and its buyer can still open its page (a Stripe payment failing after the return).
    const [failed] = (await ordersOf(reader.userId)).filter((order) => order.status === 'failed')
    const page = await orderLoader(
      routeArgs({
        db: database.db,
        path: `/orders/${failed!.id}`,
        cookie: reader.cookie,
        params: { orderId: failed!.id },
      }),
    )
    expect(page.order.status).toBe('failed')
    const [title] = orderMeta({ loaderData: page } as unknown as Parameters<typeof orderMeta>[0])
    expect(title).toMatchObject({ title: expect.stringMatching(/^Payment failed/) })

    const exported = await exportLoader(
      routeArgs({ db: database.db, path: '/account/export.json', cookie: reader.cookie }),
    )
    const body = (await exported.json()) as { orders: { status: string; note?: string }[] }
    expect(body.orders.map((order) => [order.status, order.note])).toEqual([
      ['failed', expect.stringContaining('nothing was charged')],
      ['paid', undefined],
    ])
  })
})

describe('refunds', () => {
  const ownedBy = async (cookie: string) =>
    (await rootLoader(routeArgs({ db: database.db, path: '/', cookie }))).ownedBookIds.toSorted()

  test('a refunded order takes its books back: not owned any more, and they can be bought again', async () => {
    const reader = await readerWithCart(2)
    const { checkout } = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    const [order] = await ordersOf(reader.userId)
    expect(await ownedBy(reader.cookie)).toEqual([catalogue[0]!.id, catalogue[1]!.id].toSorted())

    expect(await refundOrder(database.db, order!.id)).toBe('refunded')
    expect(await ownedBy(reader.cookie)).toEqual([])
    const page = await orderLoader(
      routeArgs({
        db: database.db,
        path: `/orders/${order!.id}`,
        cookie: reader.cookie,
        params: { orderId: order!.id },
      }),
    )
    expect(page.order.status).toBe('refunded')
    expect(await refundOrder(database.db, order!.id)).toBe('already-refunded')

    // 'Add To Cart' works again, and so does paying for the book.
    const added = await cartAction(
      routeArgs({
        db: database.db,
        path: '/cart',
        cookie: reader.cookie,
        dataRequest: true,
        init: { method: 'POST', body: new URLSearchParams({ intent: 'add', bookId: catalogue[0]!.id }) },
      }),
    )
    expect(added).toMatchObject({ data: { ok: true } })
    const again = await checkoutPage(reader.cookie)
    expect(again.checkout.lines.map((line) => line.bookId)).toEqual([catalogue[0]!.id])
    expect((await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(again.checkout) })).status).toBe(303)
    expect(await ownedBy(reader.cookie)).toEqual([catalogue[0]!.id])
  })

  test('an order marked refunded by hand in SQL takes its books back too, except one paid for in another order', async () => {
    const reader = await readerWithCart(2)
    const { checkout } = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, ...keysOf(checkout) })
    const [first] = await ordersOf(reader.userId)
    // A second payment for the first book (two Stripe pages paid at once, decision 009).
    const [second] = await database.db
      .insert(orders)
      .values({
        userId: reader.userId,
        status: 'paid',
        paidAt: new Date(),
        totalCents: catalogue[0]!.priceCents,
        netCents: catalogue[0]!.priceCents,
        currency: catalogue[0]!.currency,
        idempotencyKey: 'another-cart',
        attemptId: crypto.randomUUID(),
        paymentProvider: 'stripe',
        paymentReference: `cs_test_${crypto.randomUUID()}`,
      })
      .returning()
    await database.db.insert(orderItems).values({
      orderId: second!.id,
      bookId: catalogue[0]!.id,
      title: catalogue[0]!.title,
      priceCents: catalogue[0]!.priceCents,
      listPriceCents: catalogue[0]!.priceCents,
      netCents: catalogue[0]!.priceCents,
      grossCents: catalogue[0]!.priceCents,
      currency: catalogue[0]!.currency,
    })

    await database.db.execute(sql`update orders set status = 'refunded' where number = ${first!.number}`)
    const library = await database.db
      .select()
      .from(libraryItems)
      .where(eq(libraryItems.userId, reader.userId))
    expect(library.map(({ bookId, orderId }) => ({ bookId, orderId }))).toEqual([
      { bookId: catalogue[0]!.id, orderId: second!.id },
    ])
    expect(await ownedBy(reader.cookie)).toEqual([catalogue[0]!.id])

    await database.db.execute(sql`update orders set status = 'refunded' where number = ${second!.number}`)
    expect(await ownedBy(reader.cookie)).toEqual([])
  })

  test('only a paid order can be refunded', async () => {
    const reader = await readerWithCart(1)
    const { checkout } = await checkoutPage(reader.cookie)
    await pay(reader.cookie, { ...GOOD_CARD, number: DECLINED_CARD, ...keysOf(checkout) })
    const [failed] = await ordersOf(reader.userId)
    expect(await refundOrder(database.db, failed!.id)).toBe('not-paid')
    expect(await refundOrder(database.db, crypto.randomUUID())).toBe('not-found')
    expect((await ordersOf(reader.userId)).map((order) => order.status)).toEqual(['failed'])
  })
})

describe('the database keeps one order per checkout', () => {
  /** The SQLSTATE a statement failed with (drizzle wraps the driver's error). */
  async function sqlStateOf(statement: PromiseLike<unknown>) {
    try {
      await statement
    } catch (error) {
      const { code, cause } = error as { code?: string; cause?: { code?: string } }
      return cause?.code ?? code
    }
    return 'no error'
  }

  test('a second live order for one cart key, or a second order for one attempt, is refused with 23505', async () => {
    const buyer = await readerWithCart(0)
    const other = await readerWithCart(0)
    const order = (overrides: Partial<typeof orders.$inferInsert> = {}) => ({
      userId: buyer.userId,
      totalCents: 1900,
      netCents: 1900,
      currency: 'USD',
      idempotencyKey: 'one-cart',
      attemptId: crypto.randomUUID(),
      paymentProvider: 'test',
      ...overrides,
    })
    // Declined attempts do not hold the cart's key: another card may try.
    await database.db.insert(orders).values(order({ status: 'failed' }))
    await database.db.insert(orders).values(order({ status: 'failed' }))
    await database.db.insert(orders).values(order())
    expect(await sqlStateOf(database.db.insert(orders).values(order()))).toBe('23505')
    expect(
      await sqlStateOf(database.db.insert(orders).values(order({ status: 'paid', paidAt: new Date() }))),
    ).toBe('23505')

    // An attempt makes one order, whatever its status.
    const attemptId = crypto.randomUUID()
    await database.db.insert(orders).values(order({ idempotencyKey: 'cart-2', attemptId, status: 'failed' }))
    expect(
      await sqlStateOf(
        database.db.insert(orders).values(order({ idempotencyKey: 'cart-3', attemptId, status: 'failed' })),
      ),
    ).toBe('23505')
    // Both keys are the buyer's own: another buyer's order may carry the same values.
    await database.db.insert(orders).values(order({ userId: other.userId, attemptId }))
    expect(await ordersOf(buyer.userId)).toHaveLength(4)
  })
})

describe('card data', () => {
  test('the card number and CVC reach no log, no stored row and no answer, whatever the outcome', async () => {
    const lines: string[] = []
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk))
          done()
        },
      }),
    )
    const services = createStoreServices({
      db: database.db,
      env: servicesFor(database.db).env,
      authSecret: 'test-secret-that-is-long-enough-0123456789',
      logger,
      payments,
    })
    const reader = await readerWithCart(1)
    const cvc = '7391'
    const card = { ...GOOD_CARD, cvc }
    const answers = []
    // A field error, a declined card, then the good card.
    const page = await checkoutPage(reader.cookie)
    answers.push(
      await pay(reader.cookie, { ...card, expiry: '01/20', ...keysOf(page.checkout) }, { services }),
    )
    answers.push(
      await pay(reader.cookie, { ...card, number: DECLINED_CARD, ...keysOf(page.checkout) }, { services }),
    )
    const next = await checkoutPage(reader.cookie)
    answers.push(await pay(reader.cookie, { ...card, ...keysOf(next.checkout) }, { services }))
    expect(answers.map((answer) => answer.status)).toEqual([400, 402, 303])
    const { orders: list } = await ordersLoader(
      routeArgs({ db: database.db, path: '/account/orders', cookie: reader.cookie }),
    )

    const rows = JSON.stringify({
      orders: await ordersOf(reader.userId),
      lines: await database.db
        .select()
        .from(orderItems)
        .where(
          inArray(
            orderItems.orderId,
            list.map((order) => order.id),
          ),
        ),
      receipts: await database.db.select().from(emailOutbox).where(eq(emailOutbox.to, reader.email)),
      list,
    })
    // What is kept: the brand and last 4 digits.
    expect(rows).toContain('"cardLast4":"4242"')
    expect(rows).toContain('"cardLast4":"0002"')
    const seen = { logs: lines.join(''), rows, answers: JSON.stringify(answers) }
    for (const [where, text] of Object.entries(seen)) {
      for (const number of [
        '4242424242424242',
        '4242 4242 4242 4242',
        '4000000000000002',
        '4000 0000 0000 0002',
      ])
        expect(text, `${where} hold the card number`).not.toContain(number)
      // Ids and keys are random letters and digits: the CVC is looked for as a value of its own.
      expect(text, `${where} hold the CVC`).not.toMatch(
        new RegExp(`(?<![0-9A-Za-z_-])${cvc}(?![0-9A-Za-z_-])`),
      )
    }
  })
})
