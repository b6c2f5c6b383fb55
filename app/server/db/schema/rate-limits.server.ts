/** Rate-limit counters shared by every instance. */
import { bigint, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core'

/**
 * Rate-limit counters (fixed windows), in the database so that every app instance counts the same
 * attempts: one row per key ('login-failed:<email>:<ip>', 'auth:<ip>', …) until its window ends.
 */
export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    /** A count, or a running total of bytes (downloads in parts: 50 copies of a 50 MB book pass 2³¹). */
    hits: bigint('hits', { mode: 'number' }).notNull(),
    resetAt: timestamp('reset_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('rate_limits_reset_at_idx').on(table.resetAt)],
)
