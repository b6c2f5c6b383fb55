import { and, asc, desc, eq, isNull, sql } from 'drizzle-orm'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { priceBundle } from '#app/features/pricing/bundle-price.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { books, bundleBooks, bundles, gifts, orders } from '#app/server/db/schema/index.server.ts'

/**
 * Gifts (issue 30; decision 033): a book or a bundle bought for someone's email. The buyer fills the gift form
 * (a draft: `createGift`), pays it on the checkout page (`giftLines` are its lines; the order is linked by
 * `linkGiftOrder`), and when it is paid nobody gets the books yet: gift-delivery.server.ts queues the recipient's
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

/** Gift forms filled in for a book and never paid, deleted with the book (inside its deletion's transaction). */
export async function deleteUnpaidGiftsOfBook(tx: Transaction, bookId: string): Promise<void> {
  await tx.delete(gifts).where(and(eq(gifts.bookId, bookId), isNull(gifts.orderId)))
}
