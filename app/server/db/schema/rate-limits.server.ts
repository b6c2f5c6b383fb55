/** Rate-limit counters shared by every instance. */
import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Rate-limit counters (fixed windows), in the database so that every app instance counts the same
 * attempts: one row per key ('login-failed:<email>:<ip>', 'auth:<ip>', …) until its window ends.
 */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('rate_limits_reset_at_idx').on(table.resetAt)],
)
