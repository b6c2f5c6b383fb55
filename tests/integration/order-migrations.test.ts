import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { refundOrder } from '#app/features/orders/refunds.server.ts'
import { books, libraryItems, orders } from '#app/server/db/schema/index.server.ts'
import type { DatabaseHandle } from '#app/server/db/database.server.ts'
import { migrateUpTo, openMigrationDatabase } from '#tests/migration-database.ts'

/**
 * The checkout's migrations (0006 attempt ids, 0007 refunds) applied to a database that already has orders,
 * as a running store's has: on PGlite, and on PostgreSQL under `npm run test:postgres`.
 */

const LAST_BEFORE = '0005_library_files'

let handle: DatabaseHandle
let dispose: () => Promise<void>
beforeAll(async () => {
  ;({ handle, dispose } = await openMigrationDatabase())
})
afterAll(() => dispose?.())

test('orders made before attempt ids and refund triggers existed migrate, and behave like new ones', async () => {
  await migrateUpTo(handle, LAST_BEFORE)
  const { db } = handle
  // A book as the schema of then had it (seedCatalog writes today's columns).
  await db.execute(sql`
    insert into books (slug, title, author, description, price_cents, cover_path, cover_alt, rating, file_size_bytes)
    values ('old-book', 'Old Book', 'An Author', 'A description.', 1900, '/covers/old.svg', 'Cover', 4, 1000)`)
  const [book] = await db.select({ id: books.id, title: books.title }).from(books).limit(1)
  await db.execute(sql`insert into "user" (id, name, email) values ('old-buyer', 'Old', 'old@example.com')`)
  // Two declined attempts on one cart (they shared its key), then the paid order that granted the book.
  await db.execute(sql`
    insert into orders (user_id, status, total_cents, currency, idempotency_key, payment_provider, paid_at)
    values ('old-buyer', 'failed', 1900, 'USD', 'same-cart', 'test', null),
           ('old-buyer', 'failed', 1900, 'USD', 'same-cart', 'test', null),
           ('old-buyer', 'paid', 1900, 'USD', 'same-cart', 'test', now())`)
  // Only columns the old schema had.
  const [paid] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.userId, 'old-buyer'), eq(orders.status, 'paid')))
  await db.execute(sql`
    insert into order_items (order_id, book_id, title, price_cents, currency)
    values (${paid!.id}, ${book!.id}, ${book!.title}, 1900, 'USD')`)
  await db.execute(sql`
    insert into library_items (user_id, book_id, order_id) values ('old-buyer', ${book!.id}, ${paid!.id})`)

  await handle.migrate()

  // Each old order is an attempt of its own: the new unique index holds, and no row is lost.
  const migrated = await db.select().from(orders).where(eq(orders.userId, 'old-buyer'))
  expect(migrated).toHaveLength(3)
  for (const order of migrated) expect(order.attemptId).toBe(order.id)
  // Refunding an old order takes its book back, as for a new one.
  expect(await refundOrder(db, paid!.id)).toBe('refunded')
  expect(await db.select().from(libraryItems).where(eq(libraryItems.userId, 'old-buyer'))).toEqual([])
})
