import crypto from 'node:crypto'
import { and, asc, desc, eq, isNull, like, sql } from 'drizzle-orm'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { grantBooks } from '#app/features/library/library.server.ts'
import { priceBundle } from '#app/features/pricing/bundle-price.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  books,
  bundleBooks,
  bundles,
  emailOutbox,
  gifts,
  orderItems,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { giftEmail } from './gift-email.ts'

/**
 * Gifts (issue 30; decision 033): a book or a bundle bought for someone's email. The buyer fills the gift form
 * (a draft: `createGift`), pays it on the checkout page (`giftLines` are its lines; the order is linked by
 * `linkGiftOrder`), and when it is paid nobody gets the books yet: `activatePaidGift` queues the recipient's
 * mail for the day chosen, with a claim link. `claimGift` puts the books in the library of whoever follows
 * the link signed in; a refund before that takes the gift back (`revokeGift`).
 */

export type GiftItem = { kind: 'book'; slug: string } | { kind: 'bundle'; slug: string }

export type GiftInput = { recipientEmail: string; recipientName: string; message: string; deliverOn: Date }

/** What is being given, if it is in the store: its id, title and the books in it. */
export async function findGiftItem(db: Db, item: GiftItem) {
  if (item.kind === 'book') {
    const [book] = await db
      .select({ id: books.id, title: books.title, slug: books.slug })
      .from(books)
      .where(and(eq(books.slug, item.slug), eq(books.status, 'published'), eq(books.available, true)))
      .limit(1)
    return book ? { kind: 'book' as const, ...book } : null
  }
  const [bundle] = await db
    .select({ id: bundles.id, title: bundles.title, slug: bundles.slug })
    .from(bundles)
    .where(and(eq(bundles.slug, item.slug), eq(bundles.active, true)))
    .limit(1)
  return bundle ? { kind: 'bundle' as const, ...bundle } : null
}

/** A gift form's draft: the gift the buyer is about to pay for on the checkout page. */
export async function createGift(
  db: Db,
  buyerId: string,
  item: { kind: 'book' | 'bundle'; id: string },
  input: GiftInput,
): Promise<string> {
  const [made] = await db
    .insert(gifts)
    .values({
      buyerId,
      bookId: item.kind === 'book' ? item.id : null,
      bundleId: item.kind === 'bundle' ? item.id : null,
      ...input,
    })
    .returning({ id: gifts.id })
  return made!.id
}

export type GiftDraft = {
  id: string
  recipientEmail: string
  recipientName: string
  deliverOn: Date
  updatedAt: Date
  /** Paid already (or waiting on a payment page): its checkout shows that order. */
  orderId: string | null
}

/** The buyer's gift not yet paid (null: unknown, another buyer's, or paid already). */
export async function findGiftDraft(db: Db | Transaction, giftId: string, buyerId: string, lock = false) {
  const query = db
    .select({
      id: gifts.id,
      recipientEmail: gifts.recipientEmail,
      recipientName: gifts.recipientName,
      deliverOn: gifts.deliverOn,
      updatedAt: gifts.updatedAt,
      orderId: gifts.orderId,
      orderStatus: orders.status,
      bookId: gifts.bookId,
      bundleId: gifts.bundleId,
    })
    .from(gifts)
    .leftJoin(orders, eq(orders.id, gifts.orderId))
    .where(and(eq(gifts.id, giftId), eq(gifts.buyerId, buyerId)))
    .limit(1)
  const [gift] = lock ? await query.for('update', { of: gifts }) : await query
  return gift ?? null
}

/**
 * A gift's lines at today's prices: the book at its price, or the bundle's books at their shares of the
 * bundle's price (as for a reader who owns none of them: what the recipient owns is not the buyer's to know).
 * Empty when what was chosen has left the store.
 */
export async function giftLines(
  db: Db | Transaction,
  gift: { bookId: string | null; bundleId: string | null },
): Promise<BookLine[]> {
  const forSale = sql<boolean>`${books.available} and ${books.status} = 'published'`
  const lineColumns = {
    bookId: books.id,
    slug: books.slug,
    title: books.title,
    coverPath: books.coverPath,
    priceCents: books.priceCents,
    currency: books.currency,
    forSale,
  }
  if (gift.bookId) {
    const rows = await db.select(lineColumns).from(books).where(eq(books.id, gift.bookId))
    return rows.filter((row) => row.forSale).map(({ forSale: _forSale, ...line }) => line)
  }
  const [bundle] = await db.select().from(bundles).where(eq(bundles.id, gift.bundleId!)).limit(1)
  if (!bundle?.active) return []
  const rows = await db
    .select(lineColumns)
    .from(bundleBooks)
    .innerJoin(books, eq(books.id, bundleBooks.bookId))
    .where(eq(bundleBooks.bundleId, bundle.id))
    .orderBy(asc(bundleBooks.position))
  if (rows.length === 0 || rows.some((row) => !row.forSale)) return []
  const priced = priceBundle(
    bundle.priceCents,
    rows.map((row) => ({ bookId: row.bookId, listCents: row.priceCents, owned: false })),
  )!
  const info = { id: bundle.id, slug: bundle.slug, title: bundle.title }
  return rows.map(({ forSale: _forSale, ...row }, index) => ({
    ...row,
    priceCents: priced.lines[index]!.listCents,
    currency: bundle.currency,
    bundle: info,
  }))
}

/** The order made for a gift, inside that order's transaction. */
export async function linkGiftOrder(tx: Transaction, giftId: string, orderId: string): Promise<void> {
  await tx.update(gifts).set({ orderId, updatedAt: new Date() }).where(eq(gifts.id, giftId))
}

/** The gift an order pays for, if it is one. */
export async function findGiftOfOrder(db: Db | Transaction, orderId: string) {
  const [gift] = await db.select().from(gifts).where(eq(gifts.orderId, orderId)).limit(1)
  return gift ?? null
}

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('base64url')

/**
 * The gift's order was paid, inside that transaction: a claim token is made and the recipient's mail queued
 * for the day chosen (the outbox holds it until then). Returns the gift, or null when the order is not one.
 * `storeUrl`: any URL of the store (the order's page): the claim link is made on its origin.
 */
export async function activatePaidGift(tx: Transaction, orderId: string, storeUrl: URL | string) {
  const gift = await findGiftOfOrder(tx, orderId)
  if (!gift) return null
  await queueGiftMail(tx, gift, storeUrl, 0)
  return gift
}

async function queueGiftMail(
  tx: Transaction,
  gift: typeof gifts.$inferSelect,
  storeUrl: URL | string,
  sending: number,
): Promise<void> {
  const token = crypto.randomBytes(24).toString('base64url')
  const now = new Date()
  await tx
    .update(gifts)
    .set({ claimTokenHash: hashToken(token), sentAt: now, updatedAt: now })
    .where(eq(gifts.id, gift.id))
  const [from] = await tx
    .select({ name: user.name, email: user.email })
    .from(user)
    .where(eq(user.id, gift.buyerId))
  const titles = await tx
    .select({ title: orderItems.title })
    .from(orderItems)
    .where(eq(orderItems.orderId, gift.orderId!))
    .orderBy(asc(orderItems.title))
  const [bundle] = gift.bundleId
    ? await tx.select({ title: bundles.title }).from(bundles).where(eq(bundles.id, gift.bundleId))
    : []
  await enqueueEmail(tx, {
    kind: 'gift',
    subjectKey: `${gift.id}:${sending}`,
    to: gift.recipientEmail,
    sendAt: sending === 0 && gift.deliverOn > now ? gift.deliverOn : now,
    ...giftEmail({
      from: from?.name && from.name !== from.email ? from.name : 'A reader',
      recipientName: gift.recipientName,
      message: gift.message,
      what: bundle?.title ?? titles[0]?.title ?? 'an eBook',
      titles: titles.map((row) => row.title),
      claimUrl: new URL(`/gifts/claim/${token}`, storeUrl).toString(),
    }),
  })
}

export type GiftState = 'unpaid' | 'scheduled' | 'sent' | 'claimed' | 'revoked'

/** The buyer's gifts, newest first, with their state: 'My gifts'. */
export async function listGiftsOfBuyer(db: Db, buyerId: string) {
  const rows = await db
    .select({
      id: gifts.id,
      recipientEmail: gifts.recipientEmail,
      deliverOn: gifts.deliverOn,
      sentAt: gifts.sentAt,
      claimedAt: gifts.claimedAt,
      revokedAt: gifts.revokedAt,
      createdAt: gifts.createdAt,
      orderId: gifts.orderId,
      orderStatus: orders.status,
      title: sql<string>`coalesce(${bundles.title}, ${books.title})`,
    })
    .from(gifts)
    .leftJoin(orders, eq(orders.id, gifts.orderId))
    .leftJoin(books, eq(books.id, gifts.bookId))
    .leftJoin(bundles, eq(bundles.id, gifts.bundleId))
    .where(and(eq(gifts.buyerId, buyerId), sql`${orders.status} in ('paid', 'refunded')`))
    .orderBy(desc(gifts.createdAt))
    .limit(200)
  const now = Date.now()
  return rows.map((row) => ({
    ...row,
    state: (row.revokedAt
      ? 'revoked'
      : row.claimedAt
        ? 'claimed'
        : row.deliverOn.getTime() > now
          ? 'scheduled'
          : 'sent') satisfies GiftState as GiftState,
  }))
}

/** How often a buyer may send a gift's mail again. */
export const GIFT_RESEND_MINUTES = 10

/**
 * Sends an unclaimed gift's mail again, at once, with a new claim link (the old one stops working). Refused
 * when it is claimed or refunded, not yet due, or was sent less than GIFT_RESEND_MINUTES ago.
 */
export async function resendGift(
  db: Db,
  giftId: string,
  buyerId: string,
  storeUrl: URL | string,
): Promise<'sent' | 'not-found' | 'claimed' | 'revoked' | 'too-soon'> {
  return db.transaction(async (tx) => {
    const [gift] = await tx
      .select()
      .from(gifts)
      .innerJoin(orders, and(eq(orders.id, gifts.orderId), eq(orders.status, 'paid')))
      .where(and(eq(gifts.id, giftId), eq(gifts.buyerId, buyerId)))
      .for('update', { of: gifts })
    if (!gift) return 'not-found'
    if (gift.gifts.claimedAt) return 'claimed'
    if (gift.gifts.revokedAt) return 'revoked'
    const since = Date.now() - (gift.gifts.sentAt?.getTime() ?? 0)
    if (since < GIFT_RESEND_MINUTES * 60_000) return 'too-soon'
    const [{ sendings }] = (await tx
      .select({ sendings: sql<number>`count(*)`.mapWith(Number) })
      .from(emailOutbox)
      .where(and(eq(emailOutbox.kind, 'gift'), like(emailOutbox.subjectKey, `${giftId}:%`)))) as [
      { sendings: number },
    ]
    // The mail waiting for its day, if any, goes now instead.
    await tx
      .delete(emailOutbox)
      .where(
        and(
          eq(emailOutbox.kind, 'gift'),
          like(emailOutbox.subjectKey, `${giftId}:%`),
          isNull(emailOutbox.sentAt),
        ),
      )
    await queueGiftMail(tx, gift.gifts, storeUrl, sendings)
    return 'sent'
  })
}

/** The gift a claim link names, for its page (null: unknown or an old link). */
export async function findGiftByToken(db: Db, token: string) {
  if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return null
  const [gift] = await db
    .select({
      id: gifts.id,
      message: gifts.message,
      recipientName: gifts.recipientName,
      claimedAt: gifts.claimedAt,
      revokedAt: gifts.revokedAt,
      orderId: gifts.orderId,
      orderStatus: orders.status,
      from: user.name,
      fromEmail: user.email,
      bundleTitle: bundles.title,
    })
    .from(gifts)
    .innerJoin(orders, eq(orders.id, gifts.orderId))
    .innerJoin(user, eq(user.id, gifts.buyerId))
    .leftJoin(bundles, eq(bundles.id, gifts.bundleId))
    .where(eq(gifts.claimTokenHash, hashToken(token)))
    .limit(1)
  if (!gift) return null
  const lines = await db
    .select({
      bookId: orderItems.bookId,
      title: orderItems.title,
      slug: books.slug,
      coverPath: books.coverPath,
    })
    .from(orderItems)
    .innerJoin(books, eq(books.id, orderItems.bookId))
    .where(eq(orderItems.orderId, gift.orderId!))
    .orderBy(asc(orderItems.title))
  const { fromEmail, ...rest } = gift
  return { ...rest, from: gift.from && gift.from !== fromEmail ? gift.from : 'A reader', books: lines }
}

/**
 * Puts a gift's books in the claimer's library (through the gift's order), once: the first claim wins, a
 * refunded gift cannot be claimed. Books the claimer owns already stay as they were.
 */
export async function claimGift(
  db: Db,
  token: string,
  userId: string,
): Promise<'claimed' | 'not-found' | 'already-claimed' | 'revoked'> {
  if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) return 'not-found'
  return db.transaction(async (tx) => {
    const [gift] = await tx
      .select({
        id: gifts.id,
        orderId: gifts.orderId,
        claimedBy: gifts.claimedBy,
        revokedAt: gifts.revokedAt,
        status: orders.status,
      })
      .from(gifts)
      .innerJoin(orders, eq(orders.id, gifts.orderId))
      .where(eq(gifts.claimTokenHash, hashToken(token)))
      .for('update', { of: gifts })
    if (!gift) return 'not-found'
    if (gift.revokedAt || gift.status !== 'paid') return 'revoked'
    if (gift.claimedBy) return gift.claimedBy === userId ? 'claimed' : 'already-claimed'
    const items = await tx
      .select({ bookId: orderItems.bookId })
      .from(orderItems)
      .where(eq(orderItems.orderId, gift.orderId!))
    await grantBooks(tx, { userId, orderId: gift.orderId!, bookIds: items.map((item) => item.bookId) })
    await tx
      .update(gifts)
      .set({ claimedAt: new Date(), claimedBy: userId, updatedAt: new Date() })
      .where(eq(gifts.id, gift.id))
    return 'claimed'
  })
}

/**
 * The gift's order was refunded, inside that transaction: an unclaimed gift is taken back (its mail withdrawn
 * if not yet sent, its link no longer works). A claimed one leaves the recipient's library with the order's
 * other books (the refund's trigger), as any refunded purchase does.
 */
export async function revokeGift(tx: Transaction, orderId: string): Promise<void> {
  const [gift] = await tx
    .update(gifts)
    .set({ revokedAt: new Date(), claimTokenHash: null, updatedAt: new Date() })
    .where(and(eq(gifts.orderId, orderId), isNull(gifts.claimedAt), isNull(gifts.revokedAt)))
    .returning({ id: gifts.id })
  if (!gift) return
  await tx
    .delete(emailOutbox)
    .where(
      and(
        eq(emailOutbox.kind, 'gift'),
        like(emailOutbox.subjectKey, `${gift.id}:%`),
        isNull(emailOutbox.sentAt),
      ),
    )
}

/** Gift forms filled in for a book and never paid, deleted with the book (inside its deletion's transaction). */
export async function deleteUnpaidGiftsOfBook(tx: Transaction, bookId: string): Promise<void> {
  await tx.delete(gifts).where(and(eq(gifts.bookId, bookId), isNull(gifts.orderId)))
}
