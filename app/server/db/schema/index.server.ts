/**
 * The store's one database schema, a file per domain. drizzle-kit generates the SQL migrations in `drizzle/` from
 * this index (drizzle.config.ts); Better Auth's tables live here too so that there is one migration history
 * (docs/decisions/002).
 */
export * from './accounts.server.ts'
export * from './analytics.server.ts'
export * from './app-passwords.server.ts'
export * from './audit.server.ts'
export * from './authors.server.ts'
export * from './bundles.server.ts'
export * from './cart.server.ts'
export * from './catalog.server.ts'
export * from './gifts.server.ts'
export * from './identity.server.ts'
export * from './invoices.server.ts'
export * from './library.server.ts'
export * from './orders.server.ts'
export * from './outbox.server.ts'
export * from './rate-limits.server.ts'
export * from './reader.server.ts'
export * from './reviews.server.ts'
export * from './settings.server.ts'
export * from './pricing.server.ts'
export * from './tax.server.ts'
export * from './wishlist.server.ts'
