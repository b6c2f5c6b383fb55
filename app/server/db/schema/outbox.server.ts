/** The mail outbox. */
import { sql } from 'drizzle-orm'
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'

/**
 * Mail waiting to go out (receipts). A receipt is queued inside the purchase's transaction, so it exists
 * exactly when the purchase does (decision 008), and is sent after the commit by a worker that retries with
 * backoff: a mail server being down never fails a purchase, and no receipt is lost on a restart.
 */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind').notNull(),
    /** What the mail is about, e.g. an order id: one receipt per order. */
    subjectKey: text('subject_key').notNull(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('email_outbox_kind_subject_unique').on(table.kind, table.subjectKey),
    index('email_outbox_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.sentAt} is null`),
  ],
)
