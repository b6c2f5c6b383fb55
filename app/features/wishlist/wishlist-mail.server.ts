import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import {
  books,
  bookTopics,
  couponBooks,
  coupons,
  couponTopics,
  emailOutbox,
  libraryItems,
  user,
  wishlistItems,
  wishlists,
} from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { readStoreSettings } from '#app/features/settings/store-settings.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { wishlistEmail, type WishedBook } from './wishlist-email.ts'

/**
 * The wishlist's mails (issue 30): when a wished book's price drops below what its reader was told, or a
 * coupon starts to apply to wished books. Only to wishlists whose reader asked (`notify`), only to an account
 * with a confirmed email (a guest has none; an unconfirmed address may be someone else's), at most one a
 * day per wishlist, each with its unsubscribe link. Queued through the outbox, in one transaction per run:
 * the wishlists are claimed by one UPDATE of `notified_at` (its WHERE is checked again on each locked row,
 * so of two instances running at once only one claims a wishlist), their mails queued, the prices told
 * remembered.
 */

/** At most one wishlist mail per wishlist in this long. */
export const WISHLIST_MAIL_INTERVAL_MS = 24 * 60 * 60 * 1000

/** At most this many wishlists per run: a run stays short; the hourly sweep takes the rest. */
const BATCH = 200

type MailOptions = {
  /** The store's public URL: the links in the mail. */
  publicUrl: URL
  now?: Date
}

/** The wishlists that may be mailed now: notify on, a confirmed account, none mailed within the interval. */
function mayBeMailed(now: Date): SQL {
  const since = new Date(now.getTime() - WISHLIST_MAIL_INTERVAL_MS).toISOString()
  return sql`${wishlists.notify}
    and (${wishlists.notifiedAt} is null or ${wishlists.notifiedAt} <= ${since}::timestamptz)
    and exists (select 1 from ${user} where ${user.id} = ${wishlists.userId}
      and ${user.emailVerified} and not ${user.isAnonymous})`
}

/** The wished book is in the store and not already the reader's. */
const wishedAndNotOwned = sql`${books.status} = 'published' and not exists (
  select 1 from ${libraryItems} where ${libraryItems.bookId} = ${books.id}
    and ${libraryItems.userId} = ${wishlists.userId})`

/** Claims (sets notified_at on) up to BATCH mailable wishlists having an item matching `item`. */
async function claimWishlists(tx: Transaction, now: Date, item: SQL, also: SQL = sql`true`) {
  return tx
    .update(wishlists)
    .set({ notifiedAt: now })
    .where(
      sql`${wishlists.id} in (select ${wishlists.id} from ${wishlists} where ${mayBeMailed(now)} and ${also}
        and exists (select 1 from ${wishlistItems} join ${books} on ${books.id} = ${wishlistItems.bookId}
          where ${wishlistItems.wishlistId} = ${wishlists.id} and ${wishedAndNotOwned} and ${item})
        limit ${BATCH})
      and ${mayBeMailed(now)}`,
    )
    .returning({ id: wishlists.id, userId: wishlists.userId, unsubscribeToken: wishlists.unsubscribeToken })
}

/** The matching books of the claimed wishlists, with their readers' addresses. */
async function readWishedBooks(tx: Transaction, wishlistIds: string[], item: SQL) {
  return tx
    .select({
      wishlistId: wishlistItems.wishlistId,
      email: user.email,
      bookId: books.id,
      title: books.title,
      slug: books.slug,
      priceCents: books.priceCents,
      currency: books.currency,
      seenPriceCents: wishlistItems.seenPriceCents,
    })
    .from(wishlistItems)
    .innerJoin(wishlists, eq(wishlists.id, wishlistItems.wishlistId))
    .innerJoin(books, eq(books.id, wishlistItems.bookId))
    .innerJoin(user, sql`${user.id} = ${wishlists.userId}`)
    .where(and(inArray(wishlistItems.wishlistId, wishlistIds), wishedAndNotOwned, item))
    .orderBy(wishlistItems.wishlistId, books.title)
}

function groupBy<T extends { wishlistId: string }>(rows: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const row of rows) groups.set(row.wishlistId, [...(groups.get(row.wishlistId) ?? []), row])
  return groups
}

const links = (publicUrl: URL, unsubscribeToken: string) => ({
  wishlistUrl: new URL('/account/wishlist', publicUrl).toString(),
  unsubscribeUrl: new URL(`/wishlist/unsubscribe/${unsubscribeToken}`, publicUrl).toString(),
})

const bookUrl = (publicUrl: URL, slug: string) => new URL(`/books/${slug}`, publicUrl).toString()

/**
 * Queues a mail to every mailable wishlist holding books now cheaper than its reader was told (named in the
 * mail, their new price then remembered as told). `bookIds`: only those books (an admin just lowered their
 * price); without, every book (the hourly sweep, which also catches a drop that came within a wishlist's
 * quiet day). Returns how many mails were queued; the caller kicks the outbox.
 */
export async function queuePriceDropMails(
  db: Db,
  options: MailOptions & { bookIds?: string[] },
): Promise<number> {
  const now = options.now ?? new Date()
  if (options.bookIds && options.bookIds.length === 0) return 0
  const cheaper = sql`${books.priceCents} < ${wishlistItems.seenPriceCents}${
    options.bookIds ? sql` and ${inArray(books.id, options.bookIds)}` : sql``
  }`
  const { storeName } = await readStoreSettings(db)
  return db.transaction(async (tx) => {
    const claimed = await claimWishlists(tx, now, cheaper)
    if (claimed.length === 0) return 0
    const ids = claimed.map((row) => row.id)
    const groups = groupBy(await readWishedBooks(tx, ids, cheaper))
    for (const wishlist of claimed) {
      const rows = groups.get(wishlist.id)
      if (!rows?.length) continue
      await enqueueEmail(tx, {
        kind: 'wishlist-price-drop',
        subjectKey: `${wishlist.id}:${now.toISOString()}`,
        to: rows[0]!.email,
        ...wishlistEmail({
          news: {
            kind: 'price-drop',
            books: rows.map((row) => ({
              title: row.title,
              url: bookUrl(options.publicUrl, row.slug),
              priceCents: row.priceCents,
              currency: row.currency,
              wasCents: row.seenPriceCents,
            })),
          },
          ...links(options.publicUrl, wishlist.unsubscribeToken),
          store: storeName,
        }),
      })
    }
    // What the readers were told is the price they know now.
    await tx.execute(sql`
      update ${wishlistItems} set seen_price_cents = ${books.priceCents}
      from ${books}
      where ${books.id} = ${wishlistItems.bookId} and ${inArray(wishlistItems.wishlistId, ids)}
        and ${books.priceCents} < ${wishlistItems.seenPriceCents}`)
    return claimed.length
  })
}

/**
 * A coupon was made or switched on: queues a mail to every mailable wishlist holding books it applies to
 * (its books, its topics' books, or every book), naming the code and those books; once per coupon and
 * wishlist. A coupon that is off, not started, over, used up, or for a first purchase to a reader who has
 * bought before, mails no one. Returns how many mails were queued.
 */
export async function queueCouponMails(db: Db, couponId: string, options: MailOptions): Promise<number> {
  const now = options.now ?? new Date()
  const [coupon] = await db.select().from(coupons).where(eq(coupons.id, couponId)).limit(1)
  if (!coupon || !coupon.active) return 0
  if ((coupon.startsAt && now < coupon.startsAt) || (coupon.endsAt && now >= coupon.endsAt)) return 0
  if (coupon.maxRedemptions !== null && coupon.redeemed >= coupon.maxRedemptions) return 0
  const applies = sql`(
    (not exists (select 1 from ${couponBooks} where ${couponBooks.couponId} = ${couponId})
      and not exists (select 1 from ${couponTopics} where ${couponTopics.couponId} = ${couponId}))
    or exists (select 1 from ${couponBooks} where ${couponBooks.couponId} = ${couponId}
      and ${couponBooks.bookId} = ${books.id})
    or exists (select 1 from ${couponTopics} join ${bookTopics} on ${bookTopics.topicId} = ${couponTopics.topicId}
      where ${couponTopics.couponId} = ${couponId} and ${bookTopics.bookId} = ${books.id}))
    and ${books.available}`
  const subjectKey = (wishlistId: string) => `${couponId}:${wishlistId}`
  const notYetTold = sql`not exists (select 1 from ${emailOutbox} where ${emailOutbox.kind} = 'wishlist-coupon'
    and ${emailOutbox.subjectKey} = ${couponId}::text || ':' || ${wishlists.id}::text)`
  const firstPurchase = coupon.firstPurchaseOnly
    ? sql`not exists (select 1 from ${libraryItems} where ${libraryItems.userId} = ${wishlists.userId})`
    : sql`true`
  const discount =
    coupon.kind === 'percent' ? `${coupon.value} % off` : `${formatPrice(coupon.value, coupon.currency)} off`
  const { storeName } = await readStoreSettings(db)
  return db.transaction(async (tx) => {
    const claimed = await claimWishlists(tx, now, applies, sql`${notYetTold} and ${firstPurchase}`)
    if (claimed.length === 0) return 0
    const groups = groupBy(
      await readWishedBooks(
        tx,
        claimed.map((row) => row.id),
        applies,
      ),
    )
    for (const wishlist of claimed) {
      const rows = groups.get(wishlist.id)
      if (!rows?.length) continue
      const wished: WishedBook[] = rows.map((row) => ({
        title: row.title,
        url: bookUrl(options.publicUrl, row.slug),
        priceCents: row.priceCents,
        currency: row.currency,
      }))
      await enqueueEmail(tx, {
        kind: 'wishlist-coupon',
        subjectKey: subjectKey(wishlist.id),
        to: rows[0]!.email,
        ...wishlistEmail({
          news: { kind: 'coupon', code: coupon.code, discount, endsAt: coupon.endsAt, books: wished },
          ...links(options.publicUrl, wishlist.unsubscribeToken),
          store: storeName,
        }),
      })
    }
    return claimed.length
  })
}

type Services = Pick<AppContext, 'db' | 'env' | 'logger' | 'kickOutbox'>

/**
 * For the back office, after an admin saved a book: mails the readers who wished for it if its price is now
 * below what they were told. The admin's change is already saved: a failure here is logged, not theirs to
 * see, and the hourly sweep (`queuePriceDropMails` without books) tries again.
 */
export async function mailWishlistsAfterPriceChange(app: Services, bookIds: string[]): Promise<void> {
  try {
    const queued = await queuePriceDropMails(app.db, { publicUrl: app.env.publicUrl, bookIds })
    if (queued > 0) {
      app.logger.info({ bookIds, queued }, 'wishlist price-drop mails queued')
      app.kickOutbox()
    }
  } catch (error) {
    app.logger.error({ err: error, bookIds }, 'wishlist price-drop mails could not be queued')
  }
}

/** For the back office, after a coupon was made or switched on: its mails to the wishlists it applies to. */
export async function mailWishlistsAfterCouponChange(app: Services, couponId: string): Promise<void> {
  try {
    const queued = await queueCouponMails(app.db, couponId, { publicUrl: app.env.publicUrl })
    if (queued > 0) {
      app.logger.info({ couponId, queued }, 'wishlist coupon mails queued')
      app.kickOutbox()
    }
  } catch (error) {
    app.logger.error({ err: error, couponId }, 'wishlist coupon mails could not be queued')
  }
}
