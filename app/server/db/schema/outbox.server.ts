/** The mail outbox. */
import { sql } from 'drizzle-orm'
import { customType, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'

/** Bytes; node-postgres reads a Buffer, PGlite a Uint8Array: both are Uint8Arrays. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  toDriver: (value) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
})

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
    /**
     * When the outbox gave up on it: the mail server refused it for good (a 5xx reply, e.g. too large), or it
     * failed `maxEmailAttempts` times. Null while it is queued or once it is sent.
     */
    failedAt: timestamp('failed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('email_outbox_kind_subject_unique').on(table.kind, table.subjectKey),
    index('email_outbox_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.sentAt} is null`),
  ],
)

/**
 * Files sent with a queued mail (a stamped EPUB to a reader's Kindle), kept in the database so that whichever
 * instance delivers the mail has them; deleted once the mail is sent or given up.
 */
export const emailAttachments = pgTable(
  'email_attachments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    emailId: uuid('email_id')
      .notNull()
      .references(() => emailOutbox.id, { onDelete: 'cascade' }),
    fileName: text('file_name').notNull(),
    contentType: text('content_type').notNull(),
    content: bytea('content').notNull(),
  },
  (table) => [index('email_attachments_email_id_idx').on(table.emailId)],
)
