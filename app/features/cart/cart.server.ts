import { and, asc, eq, inArray, isNull, lt, sql } from 'drizzle-orm'
import { isExclusiveDatabase, type Db, type Transaction } from '#app/server/db/database.server.ts'
import type { BookLine } from './book-line.ts'
import {
  books,
  bundleBooks,
  cartBundles,
  cartItems,
  carts,
  libraryItems,
} from '#app/server/db/schema/index.server.ts'

/** Anonymous carts with no activity for this long are deleted. */
export const ABANDONED_CART_DAYS = 30

export type CartProblem =
  | 'unknown-book'
  | 'unavailable'
  | 'already-in-cart'
  | 'not-in-cart'
  | 'in-a-bundle'
  | 'unknown-bundle'
  | 'bundle-unavailable'
  | 'bundle-in-cart'
  | 'bundle-not-in-cart'

export class CartError extends Error {
  override name = 'CartError'
  constructor(readonly problem: CartProblem) {
    super(cartProblemMessages[problem])
  }
}

export const cartProblemMessages: Record<CartProblem, string> = {
  'unknown-book': 'We could not find that eBook. Please reload the page and try again.',
  unavailable: 'This eBook is not available for purchase right now.',
  'already-in-cart': 'This eBook is already in your cart.',
  'not-in-cart': 'This eBook is not in your cart.',
  'in-a-bundle': 'This eBook is already in your cart, in a bundle.',
  'unknown-bundle': 'We could not find that bundle. Please reload the page and try again.',
  'bundle-unavailable': 'This bundle is not available for purchase right now.',
  'bundle-in-cart': 'This bundle is already in your cart.',
  'bundle-not-in-cart': 'This bundle is not in your cart.',
}

/**
 * The ids of the books in a cart, in the order they were added, and for each bundle on it, each of its books
 * as `bundleBookKey` (the header counts the books coming; a book's own button is not 'in the cart' because a
 * bundle brings it): read on every page a visitor with a cart opens. On a database only this process writes (embedded PGlite), the answer is kept in memory and
 * forgotten by every write below, so it is always exact; every cart write must go through this module.
 */
export async function listCartBookIds(db: Db, cartId: string): Promise<string[]> {
  if (!isExclusiveDatabase(db)) return readCartBookIds(db, cartId)
  const cache = cartCache(db)
  const hit = cache.bookIds.get(cartId)
  if (hit) return [...hit]
  const generation = cache.generation
  const bookIds = await readCartBookIds(db, cartId)
  // A write that happened while we were reading makes this answer stale: don't keep it.
  if (cache.generation === generation) {
    cache.bookIds.set(cartId, bookIds)
    if (cache.bookIds.size > CART_CACHE_ENTRIES) cache.bookIds.delete(cache.bookIds.keys().next().value!)
  }
  return [...bookIds]
}

const CART_CACHE_ENTRIES = 10_000
type CartCache = {
  bookIds: Map<string, string[]>
  /** An account's cart id, or null for none yet (decision 021): a signed-in visitor's every page reads it. */
  userCarts: Map<string, string | null>
  generation: number
}
const cartCaches = new WeakMap<Db, CartCache>()

function cartCache(db: Db): CartCache {
  let cache = cartCaches.get(db)
  if (!cache) cartCaches.set(db, (cache = { bookIds: new Map(), userCarts: new Map(), generation: 0 }))
  return cache
}

/**
 * Called by every write, once it has committed: the next read of these carts goes to the database, and a
 * read that was under way meanwhile is not kept (the generation moved). Exported for writes made inside
 * another module's transaction (an order emptying its cart): call it after that transaction commits.
 */
export function forgetCarts(db: Db, ...cartIds: string[]) {
  const cache = cartCaches.get(db)
  if (!cache) return
  cache.generation++
  for (const cartId of cartIds) cache.bookIds.delete(cartId)
  // Which account has which cart changes rarely (a first add, a merge at sign-in, a deletion): forget all.
  cache.userCarts.clear()
}

async function readCartBookIds(db: Db, cartId: string): Promise<string[]> {
  const result = (await db.execute(sql`
    select key from (
      select ${cartItems.bookId}::text as key, ${cartItems.addedAt} as added_at,
          ${cartItems.bookId}::text as line, 0 as position
        from ${cartItems} where ${cartItems.cartId} = ${cartId}
      union all
      select 'bundle:' || ${cartBundles.bundleId} || ':' || ${bundleBooks.bookId}, ${cartBundles.addedAt},
          ${cartBundles.bundleId}::text, ${bundleBooks.position}
        from ${cartBundles} join ${bundleBooks} on ${bundleBooks.bundleId} = ${cartBundles.bundleId}
        where ${cartBundles.cartId} = ${cartId}
    ) as lines order by added_at, line, position`)) as { rows: { key: string }[] }
  return result.rows.map((row) => row.key)
}

/** A cart line's columns, from the catalogue: today's title, cover and price (never a form's). */
export const cartLineColumns = {
  bookId: books.id,
  slug: books.slug,
  title: books.title,
  coverPath: books.coverPath,
  // A pay-what-you-want book costs what its reader chose (issue 30); every other book its price.
  priceCents: sql<number>`coalesce(${cartItems.chosenCents}, ${books.priceCents})`.mapWith(Number),
  currency: books.currency,
  amountChosen: sql<boolean>`${cartItems.chosenCents} is not null`,
}

/** The cart's lines with today's prices from the catalogue (never from a form). */
export function listCartLines(db: Db, cartId: string): Promise<BookLine[]> {
  return db
    .select(cartLineColumns)
    .from(cartItems)
    .innerJoin(books, eq(books.id, cartItems.bookId))
    .where(eq(cartItems.cartId, cartId))
    .orderBy(asc(cartItems.addedAt), asc(books.title))
}

export async function createCart(db: Db, userId: string | null = null): Promise<string> {
  const [cart] = await db.insert(carts).values({ userId }).returning({ id: carts.id })
  if (userId) forgetCarts(db)
  return cart!.id
}

/**
 * The cart of an account (a guest's included), if it has one. Kept in memory on an exclusive database like
 * the carts' contents (any cart write forgets it).
 */
export async function findUserCart(db: Db, userId: string): Promise<string | undefined> {
  if (!isExclusiveDatabase(db)) return readUserCart(db, userId)
  const cache = cartCache(db)
  const hit = cache.userCarts.get(userId)
  if (hit !== undefined) return hit ?? undefined
  const generation = cache.generation
  const cartId = await readUserCart(db, userId)
  if (cache.generation === generation) {
    cache.userCarts.set(userId, cartId ?? null)
    if (cache.userCarts.size > CART_CACHE_ENTRIES)
      cache.userCarts.delete(cache.userCarts.keys().next().value!)
  }
  return cartId
}

async function readUserCart(db: Db, userId: string): Promise<string | undefined> {
  const [cart] = await db.select({ id: carts.id }).from(carts).where(eq(carts.userId, userId)).limit(1)
  return cart?.id
}

/** The account's cart, created on first use (user_id is unique: concurrent first uses make one cart). */
export async function requireUserCart(db: Db, userId: string): Promise<string> {
  const [created] = await db
    .insert(carts)
    .values({ userId })
    .onConflictDoNothing({ target: carts.userId })
    .returning({ id: carts.id })
  if (created) forgetCarts(db)
  return created?.id ?? (await findUserCart(db, userId))!
}

/** An anonymous visitor signs in: their cookie's cart joins the account's (union, no duplicates). */
export async function giveCartToUser(db: Db, cartId: string, userId: string): Promise<void> {
  if (!(await findAnonymousCart(db, cartId))) return
  await mergeCarts(db, cartId, await requireUserCart(db, userId))
}

/** A guest registers or logs in: the guest account's cart joins the other account's. */
export async function moveUserCart(db: Db, fromUserId: string, intoUserId: string): Promise<void> {
  if (fromUserId === intoUserId) return
  const from = await findUserCart(db, fromUserId)
  if (from) await mergeCarts(db, from, await requireUserCart(db, intoUserId))
}

/** An anonymous cart id from a cookie is only trusted if that cart still exists and has no owner. */
export async function findAnonymousCart(db: Db, cartId: string): Promise<string | undefined> {
  const [cart] = await db
    .select({ id: carts.id })
    .from(carts)
    .where(and(eq(carts.id, cartId), isNull(carts.userId)))
    .limit(1)
  return cart?.id
}

/**
 * Throws the CartError an add of this book would meet (unknown, or out of the store), so that a refused add
 * writes nothing — not even the visitor's first cart. `addToCart` checks again.
 */
export async function assertAddable(db: Db, bookId: string): Promise<void> {
  const [book] = await db
    .select({ available: books.available, status: books.status })
    .from(books)
    .where(eq(books.id, bookId))
    .limit(1)
  if (!book) throw new CartError('unknown-book')
  // A draft or an archived book is out of the store: it cannot be bought, like an unavailable one.
  if (!book.available || book.status !== 'published') throw new CartError('unavailable')
}

export async function addToCart(db: Db, cartId: string, bookId: string): Promise<void> {
  await assertAddable(db, bookId)
  await assertNotInBundle(db, cartId, bookId)
  // The (cart, book) primary key settles races: of two concurrent adds, exactly one inserts a row.
  const inserted = await db
    .insert(cartItems)
    .values({ cartId, bookId })
    .onConflictDoNothing()
    .returning({ bookId: cartItems.bookId })
  forgetCarts(db, cartId)
  if (inserted.length === 0) throw new CartError('already-in-cart')
  await touchCart(db, cartId)
}

export async function removeFromCart(db: Db, cartId: string, bookId: string): Promise<void> {
  const removed = await db
    .delete(cartItems)
    .where(and(eq(cartItems.cartId, cartId), eq(cartItems.bookId, bookId)))
    .returning({ bookId: cartItems.bookId })
  forgetCarts(db, cartId)
  if (removed.length === 0) {
    const [book] = await db.select({ id: books.id }).from(books).where(eq(books.id, bookId)).limit(1)
    throw new CartError(book ? 'not-in-cart' : 'unknown-book')
  }
  await touchCart(db, cartId)
}

/**
 * Moves every book of one cart into another (union, no duplicates; a pay-what-you-want amount chosen in the
 * moving cart wins), and its coupon if the other has none, and
 * deletes the emptied cart, in one
 * transaction: how a visitor's anonymous cart joins their account's at sign-in. Books the account already
 * owns are left behind: a signed-out visitor could add them, and in the account's cart nothing but a
 * checkout would ever take them out again (the badge would count them, the checkout show nothing to pay).
 */
export async function mergeCarts(db: Db, fromCartId: string, intoCartId: string): Promise<void> {
  if (fromCartId === intoCartId) return
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into ${cartItems} (cart_id, book_id, added_at, chosen_cents)
      select ${intoCartId}, book_id, added_at, chosen_cents from ${cartItems} where cart_id = ${fromCartId}
      on conflict (cart_id, book_id) do update
        set chosen_cents = coalesce(excluded.chosen_cents, ${cartItems}.chosen_cents)`)
    await tx.execute(sql`
      insert into ${cartBundles} (cart_id, bundle_id, added_at)
      select ${intoCartId}, bundle_id, added_at from ${cartBundles} where cart_id = ${fromCartId}
      on conflict (cart_id, bundle_id) do nothing`)
    await deleteBundledCartItems(tx, intoCartId)
    await deleteOwnedCartItems(tx, intoCartId)
    // A coupon followed while signed out comes along, unless the account's cart has one already.
    await tx.execute(sql`
      update ${carts} set coupon_code = coalesce(coupon_code, (select coupon_code from ${carts} where id = ${fromCartId}))
      where id = ${intoCartId}`)
    await tx.delete(carts).where(eq(carts.id, fromCartId))
    await tx.update(carts).set({ updatedAt: new Date() }).where(eq(carts.id, intoCartId))
  })
  forgetCarts(db, fromCartId, intoCartId)
}

/**
 * Takes the books an account owns out of its cart (put there before this store dropped them at sign-in, or
 * on another device in the moment before a purchase): the checkout page's 'Remove from my cart'.
 */
export async function removeOwnedBooksFromCart(db: Db, userId: string): Promise<void> {
  const cartId = await findUserCart(db, userId)
  if (!cartId) return
  await deleteOwnedCartItems(db, cartId)
  forgetCarts(db, cartId)
}

/**
 * The books of a cart that its account owns, deleted; for use inside a transaction (a merge, a checkout),
 * after which the caller calls `forgetCarts`. An anonymous cart owns nothing and is left as it is.
 */
export async function deleteOwnedCartItems(db: Db | Transaction, cartId: string): Promise<void> {
  await db.execute(sql`
    delete from ${cartItems} where ${cartItems.cartId} = ${cartId} and ${cartItems.bookId} in (
      select ${libraryItems.bookId} from ${libraryItems}
      join ${carts} on ${carts.userId} = ${libraryItems.userId}
      where ${carts.id} = ${cartId})`)
  // A bundle goes when its account owns every book in it (bought since, one way or another).
  await db.execute(sql`
    delete from ${cartBundles} where ${cartBundles.cartId} = ${cartId} and not exists (
      select 1 from ${bundleBooks} where ${bundleBooks.bundleId} = ${cartBundles.bundleId}
        and ${bundleBooks.bookId} not in (
          select ${libraryItems.bookId} from ${libraryItems}
          join ${carts} on ${carts.userId} = ${libraryItems.userId}
          where ${carts.id} = ${cartId}))`)
}

/** A book's own line goes when a bundle on the same cart brings it (a merge of two carts). */
async function deleteBundledCartItems(tx: Transaction, cartId: string): Promise<void> {
  await tx.execute(sql`
    delete from ${cartItems} where ${cartItems.cartId} = ${cartId} and ${cartItems.bookId} in (
      select ${bundleBooks.bookId} from ${bundleBooks}
      join ${cartBundles} on ${cartBundles.bundleId} = ${bundleBooks.bundleId}
      where ${cartBundles.cartId} = ${cartId})`)
}

/**
 * Takes books just bought out of the buyer's cart, inside the purchase's transaction (a book in the cart is one
 * not yet owned). Returns the cart's id, if the buyer has one: the caller calls `forgetCarts` with it once the
 * transaction has committed.
 */
export async function removeBooks(
  tx: Transaction,
  userId: string,
  bookIds: string[],
): Promise<string | undefined> {
  const [cart] = await tx.select({ id: carts.id }).from(carts).where(eq(carts.userId, userId))
  if (!cart) return undefined
  await tx.delete(cartItems).where(and(eq(cartItems.cartId, cart.id), inArray(cartItems.bookId, bookIds)))
  // The books were granted first (payment-events): a bundle now wholly owned leaves the cart.
  await deleteOwnedCartItems(tx, cart.id)
  await tx.update(carts).set({ updatedAt: new Date() }).where(eq(carts.id, cart.id))
  return cart.id
}

/** Deletes an account's cart and its lines, inside the account deletion's transaction. */
export async function deleteCartOf(tx: Transaction, userId: string): Promise<void> {
  await tx.delete(carts).where(eq(carts.userId, userId))
}

/** Deletes anonymous carts (and their lines) idle for ABANDONED_CART_DAYS. Returns how many went. */
export async function deleteAbandonedCarts(db: Db, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - ABANDONED_CART_DAYS * 24 * 60 * 60 * 1000)
  const deleted = await db
    .delete(carts)
    .where(and(isNull(carts.userId), lt(carts.updatedAt, cutoff)))
    .returning({ id: carts.id })
  forgetCarts(db, ...deleted.map((cart) => cart.id))
  return deleted.length
}

/** Marks a cart changed now (its checkout key changes; an anonymous cart lives on). */
export function touchCart(db: Db | Transaction, cartId: string) {
  return db.update(carts).set({ updatedAt: new Date() }).where(eq(carts.id, cartId))
}

/** Puts a coupon code on the cart (or takes it off): checkout prices the cart with it and checks it again. */
export async function setCartCoupon(db: Db, cartId: string, code: string | null): Promise<void> {
  await db.update(carts).set({ couponCode: code }).where(eq(carts.id, cartId))
  forgetCarts(db, cartId)
}

/** The coupon code on the cart, if any. */
export async function getCartCoupon(db: Db | Transaction, cartId: string): Promise<string | null> {
  const [row] = await db.select({ code: carts.couponCode }).from(carts).where(eq(carts.id, cartId))
  return row?.code ?? null
}

/** Takes the coupon off the cart, inside the transaction of the order that used it. */
export async function clearCartCoupon(tx: Transaction, cartId: string): Promise<void> {
  await tx.update(carts).set({ couponCode: null }).where(eq(carts.id, cartId))
}

/**
 * Puts a pay-what-you-want book in the cart at the amount its reader chose, or changes the amount of one
 * already there (the amount must have passed `parseChosenAmount`).
 */
export async function chooseAmount(db: Db, cartId: string, bookId: string, cents: number): Promise<void> {
  await assertAddable(db, bookId)
  await assertNotInBundle(db, cartId, bookId)
  await db
    .insert(cartItems)
    .values({ cartId, bookId, chosenCents: cents })
    .onConflictDoUpdate({ target: [cartItems.cartId, cartItems.bookId], set: { chosenCents: cents } })
  forgetCarts(db, cartId)
  await touchCart(db, cartId)
}

/** Refuses a book a bundle on the cart brings already. */
async function assertNotInBundle(db: Db, cartId: string, bookId: string): Promise<void> {
  const [bundled] = await db
    .select({ bundleId: cartBundles.bundleId })
    .from(cartBundles)
    .innerJoin(bundleBooks, eq(bundleBooks.bundleId, cartBundles.bundleId))
    .where(and(eq(cartBundles.cartId, cartId), eq(bundleBooks.bookId, bookId)))
    .limit(1)
  if (bundled) throw new CartError('in-a-bundle')
}
