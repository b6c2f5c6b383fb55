import crypto from 'node:crypto'
import { and, asc, eq, isNull, like } from 'drizzle-orm'
import { grantBooks } from '#app/features/library/library.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  books,
  bundles,
  emailOutbox,
  gifts,
  orderItems,
  orders,
  user,
} from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { giftEmail } from './gift-email.ts'
import { findGiftOfOrder } from './gifts.server.ts'

/**
 * A paid gift's way to its recipient (issue 30; decision 033): the mail with its claim link, held for its day
 * (`activatePaidGift`), sent again with a new link (`resendGift`), the link's page and claim (`findGiftByToken`,
 * `claimGift`), and a refund before the claim taking it back (`revokeGift`). Only the token's SHA-256 is kept.
 */

const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest('base64url')

/**
 * The gift's order was paid, inside that transaction: a claim token is made and the recipient's mail queued
 * for the day chosen (the outbox holds it until then). Returns the gift, or null when the order is not one.
 * `storeUrl`: any URL of the store (the order's page): the claim link is made on its origin.
 */
export async function activatePaidGift(tx: Transaction, orderId: string, storeUrl: URL | string) {
  const gift = await findGiftOfOrder(tx, orderId)
  if (!gift) return null
  await queueGiftMail(tx, gift, storeUrl, 'on-its-day')
  return gift
}

async function queueGiftMail(
  tx: Transaction,
  gift: typeof gifts.$inferSelect,
  storeUrl: URL | string,
  /** The first mail waits for the gift's day; one sent again goes now. */
  when: 'on-its-day' | 'now',
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
    // Each sending its own key (a re-send is never taken for a duplicate of an earlier one and dropped).
    subjectKey: `${gift.id}:${crypto.randomUUID()}`,
    to: gift.recipientEmail,
    sendAt: when === 'on-its-day' && gift.deliverOn > now ? gift.deliverOn : now,
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

/** How often a buyer may send a gift's mail again. */
export const GIFT_RESEND_MINUTES = 10

/**
 * Sends an unclaimed gift's mail again, at once, with a new claim link (the old one stops working); a mail
 * still waiting for the gift's day is withdrawn and goes now instead (the buyer may send it early). Refused
 * when it is claimed or refunded, or was sent less than GIFT_RESEND_MINUTES ago.
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
    await queueGiftMail(tx, gift.gifts, storeUrl, 'now')
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
