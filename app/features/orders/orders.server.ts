import crypto from 'node:crypto'
import { and, asc, desc, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm'
import { deleteOwnedCartItems, forgetCarts, removeBooks } from '#app/features/cart/cart.server.ts'
import { grantBooks } from '#app/features/library/library.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import {
  books,
  cartItems,
  carts,
  libraryItems,
  orderItems,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { paymentMessages, type CardDetails, type PaymentProvider } from './payments.server.ts'
import { receiptEmail } from './receipt.ts'

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

export type CheckoutLine = {
  bookId: string
  slug: string
  title: string
  coverPath: string
  priceCents: number
  currency: string
}

export type Checkout = {
  /** The lines to pay for, at today's prices from the catalogue. */
  lines: CheckoutLine[]
  /** Books in the cart the buyer already owns: taken out at checkout, never charged twice. */
  alreadyOwned: CheckoutLine[]
  /** Books withdrawn from sale since they were put in the cart: not sold, left in the cart. */
  unavailable: CheckoutLine[]
  totalCents: number
  currency: string
  /**
   * Names this cart as it is now (its id, books and last change): the form carries it, so a double click,
   * a retried post or a second tab on the same cart all name the same order.
   */
  idempotencyKey: string
}

/**
 * What a buyer is about to pay for, and a fresh attempt id for this rendering of the checkout form: posting
 * that form twice (a double click, a retried post) names the same attempt, which is charged at most once.
 */
export async function getCheckout(db: Db, userId: string): Promise<Checkout & { attemptId: string }> {
  const attemptId = crypto.randomUUID()
  const [cart] = await db
    .select({ id: carts.id, updatedAt: carts.updatedAt })
    .from(carts)
    .where(eq(carts.userId, userId))
    .limit(1)
  if (!cart) return { ...summarize([], 'empty'), attemptId }
  return {
    ...summarize(await readLines(db, userId, cart.id), (lines) => idempotencyKeyOf(cart, lines)),
    attemptId,
  }
}

async function readLines(db: Db | Tx, userId: string, cartId: string) {
  return db
    .select({
      bookId: books.id,
      slug: books.slug,
      title: books.title,
      coverPath: books.coverPath,
      priceCents: books.priceCents,
      currency: books.currency,
      // A book archived (or put back to draft) since it was added is not sold either.
      available: sql<boolean>`${books.available} and ${books.status} = 'published'`,
      owned: sql<boolean>`exists (select 1 from ${libraryItems} where ${libraryItems.userId} = ${userId} and ${libraryItems.bookId} = ${books.id})`,
    })
    .from(cartItems)
    .innerJoin(books, eq(books.id, cartItems.bookId))
    .where(eq(cartItems.cartId, cartId))
    .orderBy(asc(cartItems.addedAt), asc(books.title))
}

type CartRow = CheckoutLine & { owned: boolean; available: boolean }

function summarize(rows: CartRow[], idempotencyKey: string | ((lines: CheckoutLine[]) => string)): Checkout {
  const strip = ({ owned: _owned, available: _available, ...line }: CartRow): CheckoutLine => line
  const lines = rows.filter((row) => !row.owned && row.available).map(strip)
  return {
    lines,
    alreadyOwned: rows.filter((row) => row.owned).map(strip),
    unavailable: rows.filter((row) => !row.owned && !row.available).map(strip),
    totalCents: lines.reduce((sum, line) => sum + line.priceCents, 0),
    currency: lines[0]?.currency ?? 'USD',
    idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : idempotencyKey(lines),
  }
}

/**
 * The checkout's identity: the cart, the books to be paid for with their prices, and the cart's last change.
 * The form carries it; an order is made only if the cart still gives the same key, so a buyer is never
 * charged for another cart or price than the page showed (a book added in another tab, a price changed).
 */
function idempotencyKeyOf(cart: { id: string; updatedAt: Date }, lines: CheckoutLine[]) {
  const books = lines.map((line) => `${line.bookId}:${line.priceCents}:${line.currency}`).toSorted()
  return crypto
    .createHash('sha256')
    .update(`${cart.id}|${books.join(',')}|${cart.updatedAt.toISOString()}`)
    .digest('base64url')
}

export type PlaceOrderResult =
  | { outcome: 'paid' | 'existing'; orderId: string }
  | { outcome: 'declined'; reason: 'declined' | 'insufficient-funds'; message: string }
  | { outcome: 'empty-cart' }
  | { outcome: 'cart-changed' }
  | { outcome: 'mixed-currencies' }

/**
 * Checkout with the card-form provider, in one transaction: the buyer's cart is locked (a second checkout of
 * the same cart waits, then finds the order made), the order is made from the catalogue's prices at this
 * moment, the card is charged, and on success the payment is recorded, the books granted, the cart emptied
 * and the receipt queued. A declined card leaves the cart as it was, grants nothing, and keeps the failed
 * attempt on record. The same attempt posted again (a double click, a retried post) is answered with its
 * order's outcome, paid or declined, and charges nothing; a new attempt on the same cart (the page rendered
 * again after a decline) may try another card.
 *
 * The charge happens inside the transaction, holding the cart's lock: that is what makes a second post wait
 * and never charge twice, and it is only right for a provider that answers in-process (payments.server.ts).
 */
export async function placeOrderWithCard(
  db: Db,
  input: {
    userId: string
    idempotencyKey: string
    /** The form's attempt id (getCheckout); a caller without a form (a script) may leave it to be made up. */
    attemptId?: string
    card: CardDetails
    provider: Extract<PaymentProvider, { kind: 'card-form' }>
    orderUrl: (orderId: string) => string
  },
): Promise<PlaceOrderResult> {
  const attemptId = input.attemptId ?? crypto.randomUUID()
  let cartId: string | undefined
  const result = await db.transaction(async (tx) => {
    const [cart] = await tx
      .select({ id: carts.id, updatedAt: carts.updatedAt })
      .from(carts)
      .where(eq(carts.userId, input.userId))
      .for('update')
    const attempt = await findOrderByAttempt(tx, input.userId, attemptId)
    if (attempt?.status === 'failed') {
      const reason = attempt.failureReason === 'insufficient-funds' ? attempt.failureReason : 'declined'
      return { outcome: 'declined', reason, message: paymentMessages[reason] } as const
    }
    if (attempt) return { outcome: 'existing', orderId: attempt.id } as const
    const existing = await findOrderByKey(tx, input.userId, input.idempotencyKey)
    if (existing) return { outcome: 'existing', orderId: existing } as const
    if (!cart) return { outcome: 'empty-cart' } as const
    cartId = cart.id
    const checkout = summarize(await readLines(tx, input.userId, cart.id), input.idempotencyKey)
    await deleteOwnedCartItems(tx, cart.id)
    if (checkout.lines.length === 0) return { outcome: 'empty-cart' } as const
    if (idempotencyKeyOf(cart, checkout.lines) !== input.idempotencyKey)
      return { outcome: 'cart-changed' } as const
    if (checkout.lines.some((line) => line.currency !== checkout.currency))
      return { outcome: 'mixed-currencies' } as const

    const orderId = await insertOrder(tx, input.userId, checkout, attemptId, input.provider.name)
    const charge = await input.provider.charge({
      card: input.card,
      amountCents: checkout.totalCents,
      currency: checkout.currency,
    })
    if (!charge.ok) {
      await tx
        .update(orders)
        .set({
          status: 'failed',
          failureReason: charge.reason,
          cardBrand: charge.brand,
          cardLast4: charge.last4,
        })
        .where(eq(orders.id, orderId))
      return { outcome: 'declined', reason: charge.reason, message: charge.message } as const
    }
    await markPaid(tx, orderId, {
      reference: charge.reference,
      cardBrand: charge.brand,
      cardLast4: charge.last4,
      orderUrl: input.orderUrl(orderId),
    })
    return { outcome: 'paid', orderId } as const
  })
  if (cartId) forgetCarts(db, cartId)
  return result
}

/**
 * Checkout with a redirect provider, step one: a pending order made from the cart, or the one this attempt
 * or this cart's key already made (whatever its status now: the caller sends a pending one on to its
 * payment page again, and answers the others). The cart stays as it is until the provider says the order
 * is paid.
 */
export async function createPendingOrder(
  db: Db,
  input: { userId: string; idempotencyKey: string; attemptId: string; providerName: string },
): Promise<
  | { outcome: 'created' | 'existing'; orderId: string; status: string }
  | { outcome: 'empty-cart' }
  | { outcome: 'cart-changed' }
  | { outcome: 'mixed-currencies' }
> {
  let cartId: string | undefined
  const result = await db.transaction(async (tx) => {
    const [cart] = await tx
      .select({ id: carts.id, updatedAt: carts.updatedAt })
      .from(carts)
      .where(eq(carts.userId, input.userId))
      .for('update')
    const attempt = await findOrderByAttempt(tx, input.userId, input.attemptId)
    if (attempt) return { outcome: 'existing', orderId: attempt.id, status: attempt.status } as const
    const existing = await findOrderByKey(tx, input.userId, input.idempotencyKey)
    if (existing) {
      const [order] = await tx.select({ status: orders.status }).from(orders).where(eq(orders.id, existing))
      return { outcome: 'existing', orderId: existing, status: order!.status } as const
    }
    if (!cart) return { outcome: 'empty-cart' } as const
    cartId = cart.id
    const checkout = summarize(await readLines(tx, input.userId, cart.id), input.idempotencyKey)
    await deleteOwnedCartItems(tx, cart.id)
    if (checkout.lines.length === 0) return { outcome: 'empty-cart' } as const
    if (idempotencyKeyOf(cart, checkout.lines) !== input.idempotencyKey)
      return { outcome: 'cart-changed' } as const
    if (checkout.lines.some((line) => line.currency !== checkout.currency))
      return { outcome: 'mixed-currencies' } as const
    const orderId = await insertOrder(tx, input.userId, checkout, input.attemptId, input.providerName)
    return { outcome: 'created', orderId, status: 'pending' } as const
  })
  if (cartId) forgetCarts(db, cartId)
  return result
}

/** Records the provider's reference for a pending order (e.g. the Stripe Checkout Session id). */
export async function setPaymentReference(db: Db, orderId: string, reference: string): Promise<void> {
  await db
    .update(orders)
    .set({ paymentReference: reference })
    .where(and(eq(orders.id, orderId), eq(orders.status, 'pending')))
}

/** The buyer's other orders still waiting on a provider's page (a checkout left open in another tab). */
export async function listOpenPayments(
  db: Db,
  userId: string,
  exceptOrderId: string,
): Promise<{ orderId: string; reference: string }[]> {
  const rows = await db
    .select({ orderId: orders.id, reference: orders.paymentReference })
    .from(orders)
    .where(
      and(
        eq(orders.userId, userId),
        eq(orders.status, 'pending'),
        ne(orders.id, exceptOrderId),
        isNotNull(orders.paymentReference),
      ),
    )
  return rows.flatMap((row) => (row.reference ? [{ orderId: row.orderId, reference: row.reference }] : []))
}

/**
 * A redirect provider confirmed the payment (Stripe's signed webhook): the order is marked paid, its books
 * granted, the cart emptied of them and the receipt queued, in one transaction. Only the payment this order
 * was sent to pay counts: a reference other than the one recorded by `setPaymentReference` (an unknown or
 * older Checkout Session) changes nothing. Idempotent: a replayed confirmation finds the order paid and
 * changes nothing.
 */
export async function completePaidOrder(
  db: Db,
  input: { orderId: string; reference: string; orderUrl: string },
): Promise<'paid' | 'paid-twice' | 'already-paid' | 'not-pending' | 'not-found' | 'unknown-reference'> {
  let cartId: string | undefined
  const outcome = await db.transaction(async (tx) => {
    const [order] = await tx
      .select({ status: orders.status, paymentReference: orders.paymentReference })
      .from(orders)
      .where(eq(orders.id, input.orderId))
      .for('update')
    if (!order) return 'not-found' as const
    if (order.paymentReference !== input.reference) return 'unknown-reference' as const
    if (order.status === 'paid') return 'already-paid' as const
    if (order.status !== 'pending') return 'not-pending' as const
    const paid = await markPaid(tx, input.orderId, { reference: input.reference, orderUrl: input.orderUrl })
    cartId = paid.cartId
    // Two Checkout Sessions for the same book, both paid (two tabs): the order stands, someone must refund.
    return paid.alreadyOwned > 0 ? ('paid-twice' as const) : ('paid' as const)
  })
  if (cartId) forgetCarts(db, cartId)
  return outcome
}

/**
 * A redirect provider says a pending order will not be paid (its Checkout Session expired, or a delayed
 * payment failed): the order is marked failed, so that the same cart may be checked out again as a new
 * order. Nothing else changes: the cart was never touched. As with `completePaidOrder`, only the payment
 * this order was sent to pay counts.
 */
export async function failPendingOrder(
  db: Db,
  input: { orderId: string; reference: string; reason: string },
): Promise<'failed' | 'not-pending' | 'not-found' | 'unknown-reference'> {
  return db.transaction(async (tx) => {
    const [order] = await tx
      .select({ status: orders.status, paymentReference: orders.paymentReference })
      .from(orders)
      .where(eq(orders.id, input.orderId))
      .for('update')
    if (!order) return 'not-found' as const
    if (order.paymentReference !== input.reference) return 'unknown-reference' as const
    if (order.status !== 'pending') return 'not-pending' as const
    await tx
      .update(orders)
      .set({ status: 'failed', failureReason: input.reason })
      .where(eq(orders.id, input.orderId))
    return 'failed' as const
  })
}

/** The order this rendering of the checkout form already made, whatever became of it. */
async function findOrderByAttempt(tx: Tx, userId: string, attemptId: string) {
  const [order] = await tx
    .select({ id: orders.id, status: orders.status, failureReason: orders.failureReason })
    .from(orders)
    .where(and(eq(orders.userId, userId), eq(orders.attemptId, attemptId)))
  return order
}

/** The live order (not failed) made from this cart as it is now, from whichever tab. */
async function findOrderByKey(tx: Tx, userId: string, idempotencyKey: string) {
  const [order] = await tx
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.userId, userId),
        eq(orders.idempotencyKey, idempotencyKey),
        sql`${orders.status} <> 'failed'`,
      ),
    )
    .limit(1)
  return order?.id
}

async function insertOrder(
  tx: Tx,
  userId: string,
  checkout: Checkout,
  attemptId: string,
  providerName: string,
) {
  const [order] = await tx
    .insert(orders)
    .values({
      userId,
      totalCents: checkout.totalCents,
      currency: checkout.currency,
      idempotencyKey: checkout.idempotencyKey,
      attemptId,
      paymentProvider: providerName,
    })
    .returning({ id: orders.id })
  await tx.insert(orderItems).values(
    checkout.lines.map((line) => ({
      orderId: order!.id,
      bookId: line.bookId,
      title: line.title,
      priceCents: line.priceCents,
      currency: line.currency,
    })),
  )
  return order!.id
}

async function markPaid(
  tx: Tx,
  orderId: string,
  payment: { reference: string; cardBrand?: string; cardLast4?: string; orderUrl: string },
) {
  const [order] = await tx
    .update(orders)
    .set({
      status: 'paid',
      paidAt: new Date(),
      paymentReference: payment.reference,
      cardBrand: payment.cardBrand,
      cardLast4: payment.cardLast4,
    })
    .where(eq(orders.id, orderId))
    .returning({
      userId: orders.userId,
      number: orders.number,
      totalCents: orders.totalCents,
      currency: orders.currency,
    })
  const lines = await tx
    .select({ bookId: orderItems.bookId, title: orderItems.title, priceCents: orderItems.priceCents })
    .from(orderItems)
    .where(eq(orderItems.orderId, orderId))
  const bookIds = lines.map((line) => line.bookId)
  const granted = await grantBooks(tx, { userId: order!.userId, orderId, bookIds })
  const cartId = await removeBooks(tx, order!.userId, bookIds)
  const [buyer] = await tx.select({ email: user.email }).from(user).where(eq(user.id, order!.userId))
  await enqueueEmail(tx, {
    kind: 'receipt',
    subjectKey: orderId,
    to: buyer!.email,
    ...receiptEmail({
      number: order!.number,
      lines,
      totalCents: order!.totalCents,
      currency: order!.currency,
      orderUrl: payment.orderUrl,
    }),
  })
  return {
    /** Books of this order the buyer owned already (paid for twice: only a redirect provider can get here). */
    alreadyOwned: lines.length - granted.length,
    /** The buyer's cart, which the caller forgets (`forgetCarts`) once the transaction has committed. */
    cartId,
  }
}

export type OrderSummary = {
  id: string
  number: number
  status: string
  totalCents: number
  currency: string
  createdAt: Date
  paidAt: Date | null
  cardBrand: string | null
  cardLast4: string | null
  lines: {
    bookId: string
    slug: string
    title: string
    coverPath: string
    priceCents: number
    currency: string
  }[]
}

/** One order, if it is this buyer's; anyone else gets nothing (the route answers 404 either way). */
export async function getOrderForUser(
  db: Db,
  userId: string,
  orderId: string,
): Promise<OrderSummary | undefined> {
  const [order] = await listOrders(db, userId, orderId)
  return order
}

/** The buyer's orders, newest first. */
export function listOrdersForUser(db: Db, userId: string): Promise<OrderSummary[]> {
  return listOrders(db, userId)
}

async function listOrders(db: Db, userId: string, orderId?: string): Promise<OrderSummary[]> {
  const rows = await db
    .select({
      id: orders.id,
      number: orders.number,
      status: orders.status,
      totalCents: orders.totalCents,
      currency: orders.currency,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      cardBrand: orders.cardBrand,
      cardLast4: orders.cardLast4,
    })
    .from(orders)
    .where(and(eq(orders.userId, userId), orderId ? eq(orders.id, orderId) : undefined))
    .orderBy(desc(orders.createdAt), desc(orders.number))
  if (rows.length === 0) return []
  const lines = await db
    .select({
      orderId: orderItems.orderId,
      bookId: orderItems.bookId,
      slug: books.slug,
      title: orderItems.title,
      coverPath: books.coverPath,
      priceCents: orderItems.priceCents,
      currency: orderItems.currency,
    })
    .from(orderItems)
    .innerJoin(books, eq(books.id, orderItems.bookId))
    .where(
      inArray(
        orderItems.orderId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(orderItems.title))
  return rows.map((row) => ({
    ...row,
    lines: lines.filter((line) => line.orderId === row.id).map(({ orderId: _orderId, ...line }) => line),
  }))
}

/** A buyer's orders with their payment and lines, oldest first: their part of the account's data export. */
export async function exportOrdersOf(db: Db, userId: string) {
  const orderRows = await db
    .select({
      id: orders.id,
      number: orders.number,
      status: orders.status,
      totalCents: orders.totalCents,
      currency: orders.currency,
      paymentProvider: orders.paymentProvider,
      cardBrand: orders.cardBrand,
      cardLast4: orders.cardLast4,
      createdAt: orders.createdAt,
      paidAt: orders.paidAt,
      refundedAt: orders.refundedAt,
    })
    .from(orders)
    .where(eq(orders.userId, userId))
    .orderBy(asc(orders.createdAt))
  const lines = orderRows.length
    ? await db
        .select({
          orderId: orderItems.orderId,
          title: orderItems.title,
          priceCents: orderItems.priceCents,
          currency: orderItems.currency,
        })
        .from(orderItems)
        .where(
          inArray(
            orderItems.orderId,
            orderRows.map((order) => order.id),
          ),
        )
    : []
  return orderRows.map(({ id, paymentProvider, cardBrand, cardLast4, ...order }) => ({
    ...order,
    payment: { provider: paymentProvider, cardBrand, cardLast4 },
    lines: lines.filter((line) => line.orderId === id).map(({ orderId: _orderId, ...line }) => line),
  }))
}
