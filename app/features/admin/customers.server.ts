import { and, asc, desc, eq, gt, ilike } from 'drizzle-orm'
import type { Db } from '#app/server/db/database.server.ts'
import { books, libraryItems, orders, reviews, user } from '#app/server/db/schema/index.server.ts'
import { listAuditLog } from './audit.server.ts'
import { containing } from '#app/server/db/like.server.ts'

export const CUSTOMERS_PAGE_SIZE = 50

/**
 * Customers whose email contains `query` (any case), by email, `limit` after the cursor (the last email of the
 * previous page: keyset, unique). Guests (anonymous sessions that never registered) are not customers.
 */
export async function listCustomers(
  db: Db,
  options: { query?: string; afterEmail?: string; limit?: number } = {},
): Promise<{
  rows: { id: string; email: string; role: string; createdAt: Date }[]
  nextAfterEmail: string | null
}> {
  const limit = options.limit ?? CUSTOMERS_PAGE_SIZE
  const rows = await db
    .select({ id: user.id, email: user.email, role: user.role, createdAt: user.createdAt })
    .from(user)
    .where(
      and(
        eq(user.isAnonymous, false),
        options.query ? ilike(user.email, containing(options.query)) : undefined,
        options.afterEmail === undefined ? undefined : gt(user.email, options.afterEmail),
      ),
    )
    .orderBy(asc(user.email))
    .limit(limit + 1)
  const more = rows.length > limit
  const page = more ? rows.slice(0, limit) : rows
  return { rows: page, nextAfterEmail: more ? page[page.length - 1]!.email : null }
}

/** One customer with their orders, library, reviews and the audit entries about them; null for none or a guest. */
export async function getCustomer(db: Db, userId: string) {
  const [customer] = await db
    .select({
      id: user.id,
      email: user.email,
      emailVerified: user.emailVerified,
      role: user.role,
      createdAt: user.createdAt,
    })
    .from(user)
    .where(and(eq(user.id, userId), eq(user.isAnonymous, false)))
  if (!customer) return null
  const [customerOrders, library, customerReviews, audit] = await Promise.all([
    db
      .select({
        id: orders.id,
        number: orders.number,
        status: orders.status,
        totalCents: orders.totalCents,
        currency: orders.currency,
        createdAt: orders.createdAt,
      })
      .from(orders)
      .where(eq(orders.userId, userId))
      .orderBy(desc(orders.number)),
    db
      .select({
        bookId: books.id,
        title: books.title,
        acquiredAt: libraryItems.acquiredAt,
        downloadCount: libraryItems.downloadCount,
      })
      .from(libraryItems)
      .innerJoin(books, eq(books.id, libraryItems.bookId))
      .where(eq(libraryItems.userId, userId))
      .orderBy(asc(books.title)),
    db
      .select({
        id: reviews.id,
        bookId: books.id,
        bookTitle: books.title,
        rating: reviews.rating,
        title: reviews.title,
        visible: reviews.visible,
        createdAt: reviews.createdAt,
      })
      .from(reviews)
      .innerJoin(books, eq(books.id, reviews.bookId))
      .where(eq(reviews.userId, userId))
      .orderBy(desc(reviews.createdAt)),
    listAuditLog(db, { entity: { type: 'user', id: userId } }),
  ])
  return { customer, orders: customerOrders, library, reviews: customerReviews, audit: audit.rows }
}
