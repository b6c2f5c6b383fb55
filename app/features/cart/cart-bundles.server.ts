import { and, asc, eq, inArray, sql } from 'drizzle-orm'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  books,
  bundleBooks,
  bundles,
  cartBundles,
  cartItems,
  carts,
  libraryItems,
} from '#app/server/db/schema/index.server.ts'
import type { BookLine } from './book-line.ts'
import { CartError, forgetCarts, touchCart } from './cart.server.ts'

/**
 * Bundles on a cart (issue 30): a bundle is one line whose books come together. Like every cart write, these
 * go through the cart's module so its cache forgets the cart (`forgetCarts`).
 */

/**
 * Throws the CartError adding this bundle would meet: unknown, switched off, or with a book out of the store
 * (a bundle is sold whole). Checked before a visitor's first cart is made; `addBundleToCart` checks again.
 */
export async function assertBundleAddable(db: Db, bundleId: string): Promise<void> {
  const [bundle] = await db
    .select({
      active: bundles.active,
      books:
        sql<number>`(select count(*) from ${bundleBooks} where ${bundleBooks.bundleId} = ${bundles.id})`.mapWith(
          Number,
        ),
      unavailable:
        sql<number>`(select count(*) from ${bundleBooks} join ${books} on ${books.id} = ${bundleBooks.bookId}
        where ${bundleBooks.bundleId} = ${bundles.id} and not (${books.available} and ${books.status} = 'published'))`.mapWith(
          Number,
        ),
    })
    .from(bundles)
    .where(eq(bundles.id, bundleId))
    .limit(1)
  if (!bundle) throw new CartError('unknown-bundle')
  if (!bundle.active || bundle.books === 0 || bundle.unavailable > 0)
    throw new CartError('bundle-unavailable')
}

/**
 * Puts a bundle on the cart. The bundle brings its books, so their own lines leave the cart in the same
 * transaction; returns the ids of those taken out (the page says so). The (cart, bundle) key settles a double
 * add: exactly one inserts.
 */
export async function addBundleToCart(db: Db, cartId: string, bundleId: string): Promise<string[]> {
  await assertBundleAddable(db, bundleId)
  const taken = await db
    .transaction(async (tx) => {
      const inserted = await tx
        .insert(cartBundles)
        .values({ cartId, bundleId })
        .onConflictDoNothing()
        .returning({ bundleId: cartBundles.bundleId })
      if (inserted.length === 0) throw new CartError('bundle-in-cart')
      const removed = await tx
        .delete(cartItems)
        .where(
          and(
            eq(cartItems.cartId, cartId),
            inArray(
              cartItems.bookId,
              tx
                .select({ bookId: bundleBooks.bookId })
                .from(bundleBooks)
                .where(eq(bundleBooks.bundleId, bundleId)),
            ),
          ),
        )
        .returning({ bookId: cartItems.bookId })
      await tx.update(carts).set({ updatedAt: new Date() }).where(eq(carts.id, cartId))
      return removed.map((row) => row.bookId)
    })
    .finally(() => forgetCarts(db, cartId))
  return taken
}

export async function removeBundleFromCart(db: Db, cartId: string, bundleId: string): Promise<void> {
  const removed = await db
    .delete(cartBundles)
    .where(and(eq(cartBundles.cartId, cartId), eq(cartBundles.bundleId, bundleId)))
    .returning({ bundleId: cartBundles.bundleId })
  forgetCarts(db, cartId)
  if (removed.length === 0) {
    const [bundle] = await db
      .select({ id: bundles.id })
      .from(bundles)
      .where(eq(bundles.id, bundleId))
      .limit(1)
    throw new CartError(bundle ? 'bundle-not-in-cart' : 'unknown-bundle')
  }
  await touchCart(db, cartId)
}

/** A bundle on a cart: its title and page, and each of its books with today's price (never a form's). */
export type CartBundleRow = {
  bundleId: string
  bundleSlug: string
  bundleTitle: string
  bundlePriceCents: number
  bundleCurrency: string
  bundleActive: boolean
  book: BookLine & { position: number; available: boolean; owned: boolean }
}

/** The bundles on a cart, a row per book, in the order they were added and the bundle's order of books. */
export function listCartBundleBooks(
  db: Db | Transaction,
  cartId: string,
  /** The cart's account, whose books are marked owned. */
  userId: string | null,
): Promise<CartBundleRow[]> {
  return db
    .select({
      bundleId: bundles.id,
      bundleSlug: bundles.slug,
      bundleTitle: bundles.title,
      bundlePriceCents: bundles.priceCents,
      bundleCurrency: bundles.currency,
      bundleActive: bundles.active,
      book: {
        bookId: books.id,
        slug: books.slug,
        title: books.title,
        coverPath: books.coverPath,
        priceCents: books.priceCents,
        currency: books.currency,
        position: bundleBooks.position,
        available: sql<boolean>`${books.available} and ${books.status} = 'published'`,
        owned: userId
          ? sql<boolean>`exists (select 1 from ${libraryItems} where ${libraryItems.userId} = ${userId} and ${libraryItems.bookId} = ${books.id})`
          : sql<boolean>`false`,
      },
    })
    .from(cartBundles)
    .innerJoin(bundles, eq(bundles.id, cartBundles.bundleId))
    .innerJoin(bundleBooks, eq(bundleBooks.bundleId, bundles.id))
    .innerJoin(books, eq(books.id, bundleBooks.bookId))
    .where(eq(cartBundles.cartId, cartId))
    .orderBy(asc(cartBundles.addedAt), asc(bundles.id), asc(bundleBooks.position))
}
