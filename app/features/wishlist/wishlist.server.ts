import crypto from 'node:crypto'
import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { books, wishlistItems, wishlists } from '#app/server/db/schema/index.server.ts'
import type { WishlistLine } from './wishlist-line.ts'

export type { WishlistLine }

/**
 * Wishlists (issue 30): one per visitor like the cart — an account's by user id, a signed-out visitor's by a
 * signed cookie (visitor-wishlist.server.ts) — joined to the account's at sign-in. Every write to the two
 * tables goes through this module (and the mails', wishlist-mail.server.ts).
 */

/** Anonymous wishlists with no activity for this long are deleted (longer than a cart: a wish keeps). */
export const ABANDONED_WISHLIST_DAYS = 90

/** At most this many books on one wishlist: a bound on what one visitor can make the store keep. */
export const MAX_WISHLIST_BOOKS = 500

export type WishlistProblem =
  'unknown-book' | 'unavailable' | 'already-wished' | 'not-wished' | 'full' | 'sign-in-required'

export const wishlistProblemMessages: Record<WishlistProblem, string> = {
  'unknown-book': 'We could not find that eBook. Please reload the page and try again.',
  unavailable: 'This eBook is not in the store right now.',
  'already-wished': 'This eBook is already on your wishlist.',
  'not-wished': 'This eBook is not on your wishlist.',
  full: `Your wishlist holds at most ${MAX_WISHLIST_BOOKS} eBooks: remove one to add another.`,
  'sign-in-required': 'Log in or register to share your wishlist or hear of lower prices.',
}

/** The status each problem is answered with: a request that cannot be (400) or a state it clashes with (409). */
export const wishlistProblemStatus: Record<WishlistProblem, 400 | 403 | 409> = {
  'unknown-book': 400,
  unavailable: 400,
  'already-wished': 409,
  'not-wished': 409,
  full: 409,
  'sign-in-required': 403,
}

export class WishlistError extends Error {
  override name = 'WishlistError'
  constructor(readonly problem: WishlistProblem) {
    super(wishlistProblemMessages[problem])
  }
  get status() {
    return wishlistProblemStatus[this.problem]
  }
}

/** A token for a URL (the share link, the unsubscribe link): 128 random bits, base64url. */
function newToken(): string {
  return crypto.randomBytes(16).toString('base64url')
}

/** Tokens the store makes look like this; anything else is not looked up at all. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/

export async function createWishlist(db: Db, userId: string | null = null): Promise<string> {
  const [made] = await db
    .insert(wishlists)
    .values({ userId, unsubscribeToken: newToken() })
    .returning({ id: wishlists.id })
  return made!.id
}

export async function findUserWishlist(db: Db | Transaction, userId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: wishlists.id })
    .from(wishlists)
    .where(eq(wishlists.userId, userId))
    .limit(1)
  return row?.id
}

/** The account's wishlist, made on first use (user_id is unique: concurrent first uses make one). */
export async function requireUserWishlist(db: Db, userId: string): Promise<string> {
  const [made] = await db
    .insert(wishlists)
    .values({ userId, unsubscribeToken: newToken() })
    .onConflictDoNothing({ target: wishlists.userId })
    .returning({ id: wishlists.id })
  return made?.id ?? (await findUserWishlist(db, userId))!
}

/** An anonymous wishlist id from a cookie is only trusted if that wishlist still exists and has no owner. */
export async function findAnonymousWishlist(db: Db, wishlistId: string): Promise<string | undefined> {
  const [row] = await db
    .select({ id: wishlists.id })
    .from(wishlists)
    .where(and(eq(wishlists.id, wishlistId), isNull(wishlists.userId)))
    .limit(1)
  return row?.id
}

/** The ids of the books on a wishlist, most recently added first (every page with hearts reads it). */
export async function listWishlistBookIds(db: Db, wishlistId: string): Promise<string[]> {
  const rows = await db
    .select({ bookId: wishlistItems.bookId })
    .from(wishlistItems)
    .where(eq(wishlistItems.wishlistId, wishlistId))
  return rows.map((row) => row.bookId)
}

/** The books of an account's wishlist, in one query (no wishlist: none). */
export async function listUserWishlistBookIds(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .select({ bookId: wishlistItems.bookId })
    .from(wishlistItems)
    .innerJoin(wishlists, eq(wishlists.id, wishlistItems.wishlistId))
    .where(eq(wishlists.userId, userId))
  return rows.map((row) => row.bookId)
}

/**
 * Throws the WishlistError an add of this book would meet, so that a refused add writes nothing — not even a
 * visitor's first wishlist. A book out of the store (a draft, archived) cannot be wished for; one published
 * but not for sale right now can (the reader hears when it is back at a lower price).
 */
export async function assertWishable(db: Db, bookId: string): Promise<{ priceCents: number }> {
  const [book] = await db
    .select({ status: books.status, priceCents: books.priceCents })
    .from(books)
    .where(eq(books.id, bookId))
    .limit(1)
  if (!book) throw new WishlistError('unknown-book')
  if (book.status !== 'published') throw new WishlistError('unavailable')
  return { priceCents: book.priceCents }
}

/** Puts a book on a wishlist, remembering its price as the one its reader knows (`seen_price_cents`). */
export async function addToWishlist(db: Db, wishlistId: string, bookId: string): Promise<void> {
  const { priceCents } = await assertWishable(db, bookId)
  const added = await db.transaction(async (tx) => {
    // The wishlist's row locked: two concurrent adds cannot both slip under the bound.
    await tx.execute(sql`select 1 from ${wishlists} where ${wishlists.id} = ${wishlistId} for update`)
    const [{ count } = { count: 0 }] = await tx
      .select({ count: sql<number>`count(*)`.mapWith(Number) })
      .from(wishlistItems)
      .where(eq(wishlistItems.wishlistId, wishlistId))
    if (count >= MAX_WISHLIST_BOOKS) throw new WishlistError('full')
    const inserted = await tx
      .insert(wishlistItems)
      .values({ wishlistId, bookId, seenPriceCents: priceCents })
      .onConflictDoNothing()
      .returning({ bookId: wishlistItems.bookId })
    if (inserted.length === 0) return false
    await tx.update(wishlists).set({ updatedAt: new Date() }).where(eq(wishlists.id, wishlistId))
    return true
  })
  if (!added) throw new WishlistError('already-wished')
}

export async function removeFromWishlist(db: Db, wishlistId: string, bookId: string): Promise<void> {
  const removed = await db
    .delete(wishlistItems)
    .where(and(eq(wishlistItems.wishlistId, wishlistId), eq(wishlistItems.bookId, bookId)))
    .returning({ bookId: wishlistItems.bookId })
  if (removed.length === 0) {
    const [book] = await db.select({ id: books.id }).from(books).where(eq(books.id, bookId)).limit(1)
    throw new WishlistError(book ? 'not-wished' : 'unknown-book')
  }
  await db.update(wishlists).set({ updatedAt: new Date() }).where(eq(wishlists.id, wishlistId))
}

/**
 * Moves every book of one wishlist into another (union; where both have a book, the price its reader knew
 * is the lower one) and deletes the emptied wishlist, in one transaction: a visitor's anonymous wishlist
 * joining their account's at sign-in, or a guest's joining the account they register or log in to.
 */
export async function mergeWishlists(db: Db, fromId: string, intoId: string): Promise<void> {
  if (fromId === intoId) return
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into ${wishlistItems} (wishlist_id, book_id, added_at, seen_price_cents)
      select ${intoId}, book_id, added_at, seen_price_cents from ${wishlistItems} where wishlist_id = ${fromId}
      on conflict (wishlist_id, book_id) do update
        set seen_price_cents = least(excluded.seen_price_cents, ${wishlistItems.seenPriceCents}),
            added_at = least(excluded.added_at, ${wishlistItems.addedAt})`)
    await tx.delete(wishlists).where(eq(wishlists.id, fromId))
    await tx.update(wishlists).set({ updatedAt: new Date() }).where(eq(wishlists.id, intoId))
  })
}

/** An anonymous visitor signs in: their cookie's wishlist joins the account's (union, no duplicates). */
export async function giveWishlistToUser(db: Db, wishlistId: string, userId: string): Promise<void> {
  if (!(await findAnonymousWishlist(db, wishlistId))) return
  await mergeWishlists(db, wishlistId, await requireUserWishlist(db, userId))
}

/** A guest registers or logs in: the guest account's wishlist joins the other account's. */
export async function moveUserWishlist(db: Db, fromUserId: string, intoUserId: string): Promise<void> {
  if (fromUserId === intoUserId) return
  const from = await findUserWishlist(db, fromUserId)
  if (from) await mergeWishlists(db, from, await requireUserWishlist(db, intoUserId))
}

/** The books on a wishlist, most recently added first; only books still in the store. */
export function listWishlistLines(db: Db, wishlistId: string): Promise<WishlistLine[]> {
  return db
    .select({
      bookId: books.id,
      slug: books.slug,
      title: books.title,
      coverPath: books.coverPath,
      cover: books.cover,
      priceCents: books.priceCents,
      currency: books.currency,
      available: books.available,
    })
    .from(wishlistItems)
    .innerJoin(books, eq(books.id, wishlistItems.bookId))
    .where(and(eq(wishlistItems.wishlistId, wishlistId), eq(books.status, 'published')))
    .orderBy(sql`${wishlistItems.addedAt} desc`, asc(books.title))
}

/** What an account chose for its wishlist: shared (and its token), mails on lower prices. */
export type WishlistSettings = { shareToken: string | null; notify: boolean }

export async function getWishlistSettings(db: Db, userId: string): Promise<WishlistSettings> {
  const [row] = await db
    .select({ shareToken: wishlists.shareToken, notify: wishlists.notify })
    .from(wishlists)
    .where(eq(wishlists.userId, userId))
    .limit(1)
  return row ?? { shareToken: null, notify: false }
}

/**
 * Shares the account's wishlist: a token for its public page, kept while shared (sharing again after a stop
 * makes a new one, so an old link stays dead). Returns the token.
 */
export async function shareWishlist(db: Db, userId: string): Promise<string> {
  const wishlistId = await requireUserWishlist(db, userId)
  const [row] = await db
    .update(wishlists)
    .set({ shareToken: sql`coalesce(${wishlists.shareToken}, ${newToken()})` })
    .where(eq(wishlists.id, wishlistId))
    .returning({ shareToken: wishlists.shareToken })
  return row!.shareToken!
}

/** Stops sharing: the public page answers 404 from now on. */
export async function stopSharingWishlist(db: Db, userId: string): Promise<void> {
  await db.update(wishlists).set({ shareToken: null }).where(eq(wishlists.userId, userId))
}

/** Turns the price-drop and coupon mails on or off for the account's wishlist. */
export async function setWishlistNotify(db: Db, userId: string, notify: boolean): Promise<void> {
  const wishlistId = await requireUserWishlist(db, userId)
  await db.update(wishlists).set({ notify }).where(eq(wishlists.id, wishlistId))
}

/** The books of a shared wishlist, by its token: undefined for a token no wishlist is shared under. */
export async function findSharedWishlist(
  db: Db,
  token: string,
): Promise<{ lines: WishlistLine[] } | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined
  const [row] = await db
    .select({ id: wishlists.id })
    .from(wishlists)
    .where(and(eq(wishlists.shareToken, token), sql`${wishlists.userId} is not null`))
    .limit(1)
  if (!row) return undefined
  return { lines: await listWishlistLines(db, row.id) }
}

/** Whether a token is some wishlist's unsubscribe token, and whether its mails are still on. */
export async function findUnsubscribeToken(db: Db, token: string): Promise<{ notify: boolean } | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined
  const [row] = await db
    .select({ notify: wishlists.notify })
    .from(wishlists)
    .where(eq(wishlists.unsubscribeToken, token))
    .limit(1)
  return row
}

/** The unsubscribe link's POST: the wishlist's mails off. False for an unknown token. */
export async function unsubscribeWishlist(db: Db, token: string): Promise<boolean> {
  if (!TOKEN_PATTERN.test(token)) return false
  const changed = await db
    .update(wishlists)
    .set({ notify: false })
    .where(eq(wishlists.unsubscribeToken, token))
    .returning({ id: wishlists.id })
  return changed.length > 0
}

/**
 * Deletes an account's wishlist and its books, inside the account deletion's transaction (the user row stays
 * as a tombstone, so its foreign key's cascade does not run).
 */
export async function deleteWishlistOf(tx: Transaction, userId: string): Promise<void> {
  await tx.delete(wishlists).where(eq(wishlists.userId, userId))
}

/** Deletes anonymous wishlists (and their books) idle for ABANDONED_WISHLIST_DAYS. Returns how many went. */
export async function deleteAbandonedWishlists(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ABANDONED_WISHLIST_DAYS * 24 * 60 * 60 * 1000)
  const deleted = await db
    .delete(wishlists)
    .where(and(isNull(wishlists.userId), lt(wishlists.updatedAt, cutoff)))
    .returning({ id: wishlists.id })
  return deleted.length
}

/** The account's wishlist for its data export: the books (title, slug, when added), shared or not, mails on. */
export async function exportWishlistOf(db: Db, userId: string) {
  const wishlistId = await findUserWishlist(db, userId)
  if (!wishlistId) return { shared: false, priceMails: false, books: [] }
  const [settings, lines] = await Promise.all([
    getWishlistSettings(db, userId),
    db
      .select({ title: books.title, slug: books.slug, addedAt: wishlistItems.addedAt })
      .from(wishlistItems)
      .innerJoin(books, eq(books.id, wishlistItems.bookId))
      .where(eq(wishlistItems.wishlistId, wishlistId))
      .orderBy(asc(wishlistItems.addedAt)),
  ])
  return { shared: settings.shareToken !== null, priceMails: settings.notify, books: lines }
}
