/** The back office's audit log. */
import { bigint, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { user } from './identity.server.ts'

/**
 * What admins changed, who and when, with the row before and after as JSON: written in the same transaction
 * as the change, never updated or deleted by the store.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    actorId: text('actor_id').references(() => user.id, { onDelete: 'set null' }),
    /** Kept as it was: the actor's account may be deleted or change its email later. 'cli' for the command line. */
    actorEmail: text('actor_email').notNull(),
    /** What was done, as '<entity>.<verb>': 'book.create', 'book.update', 'order.refund', 'user.grant-admin', … */
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('audit_log_created_at_idx').on(table.createdAt, table.id),
    index('audit_log_entity_idx').on(table.entityType, table.entityId),
  ],
)
