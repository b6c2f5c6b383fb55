/** App passwords: what a reader gives a reading app instead of their password (issue 33). */
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamps } from './columns.server.ts'
import { user } from './identity.server.ts'

/**
 * A named password for one reading app, shown to the reader once. Only its SHA-256 is kept: it is 100 random
 * bits, so there is no dictionary to try against a fast hash (a slow one would cost every feed request a
 * password hash). Revoking deletes the row. It opens the reader's OPDS library feed and downloads only.
 */
export const appPasswords = pgTable(
  'app_passwords',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    /** Its first four characters, so the reader can tell passwords apart in the list. */
    hint: text('hint').notNull(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex('app_passwords_secret_hash_unique').on(table.secretHash),
    index('app_passwords_user_idx').on(table.userId),
  ],
)
