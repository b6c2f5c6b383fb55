import { and, asc, eq, inArray, isNull, lt, lte, sql } from 'drizzle-orm'
import type { Db, Transaction } from './db/database.server.ts'
import { emailAttachments, emailOutbox } from './db/schema/index.server.ts'
import type { Logger } from './logger.server.ts'
import { MailError, type MailAttachment, type MailMessage, type Mailer } from './mail.server.ts'

/** What `db.transaction(async (tx) => …)` hands its callback. */
export type OutboxEmail = Omit<MailMessage, 'attachments'> & {
  /** Files sent with it, kept with the mail until it is sent or given up. */
  attachments?: MailAttachment[]
  /** What sort of mail: 'receipt', … */
  kind: string
  /** What it is about (an order id): one mail per kind and subject, however often it is queued. */
  subjectKey: string
  /** Not sent before this moment (a gift's delivery day); now when not given. */
  sendAt?: Date
}

/**
 * After this many failed attempts (about a day and a half of retries) a mail stays unsent and an error is
 * logged; setting its `attempts` back to 0 queues it again.
 */
export const maxEmailAttempts = 10
/** The wait after the 1st, 2nd, … failed attempt; the last one repeats. */
const retryDelaysMs = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 6 * 3_600_000]
/**
 * How long a run keeps the mails it claimed out of other runs' reach: well beyond what a batch of 20 should
 * take (each SMTP step times out within 10 s), so two instances do not send the same mail; if a run dies
 * mid-send, its mails go out once the lease ends.
 */
const leaseMs = 15 * 60_000

/**
 * Queues a mail; call it inside the transaction that makes it true (the order being paid), so the mail is
 * queued if and only if that commits. Returns false when this kind and subject was already queued: a
 * replayed payment confirmation queues no second receipt.
 */
export async function enqueueEmail(db: Db | Transaction, email: OutboxEmail): Promise<boolean> {
  return (await enqueueEmailReturningId(db, email)) !== null
}

/** As `enqueueEmail`, returning the queued mail's id (null when this kind and subject was queued already). */
export async function enqueueEmailReturningId(
  db: Db | Transaction,
  email: OutboxEmail,
): Promise<string | null> {
  const { kind, subjectKey, to, subject, text, html, attachments = [], sendAt } = email
  const inserted = await db
    .insert(emailOutbox)
    // Due as of the app's clock, the one deliverDueEmails compares with; the column's default (the
    // database's now(), to the microsecond) would leave it not yet due to a run in the same millisecond.
    .values({ kind, subjectKey, to, subject, text, html, nextAttemptAt: sendAt ?? new Date() })
    .onConflictDoNothing({ target: [emailOutbox.kind, emailOutbox.subjectKey] })
    .returning({ id: emailOutbox.id })
  const id = inserted[0]?.id
  if (!id) return null
  if (attachments.length > 0) {
    await db.insert(emailAttachments).values(
      attachments.map(({ fileName, contentType, content }) => ({
        emailId: id,
        fileName,
        contentType,
        content,
      })),
    )
  }
  return id
}

/** Where a queued mail stands, for whoever queued it (the reader's 'Send to Kindle'). */
export type EmailState =
  | { state: 'queued'; queuedAt: Date; lastError: string | null }
  | { state: 'sent'; sentAt: Date }
  | { state: 'failed'; failedAt: Date; error: string }

export function emailStateOf(row: {
  createdAt: Date
  sentAt: Date | null
  failedAt: Date | null
  lastError: string | null
}): EmailState {
  if (row.sentAt) return { state: 'sent', sentAt: row.sentAt }
  if (row.failedAt)
    return { state: 'failed', failedAt: row.failedAt, error: row.lastError ?? 'unknown error' }
  return { state: 'queued', queuedAt: row.createdAt, lastError: row.lastError }
}

export type DeliveryOptions = {
  logger: Logger
  /** The time to act as of (tests); the clock otherwise. */
  now?: Date
  /** How many mails one claim takes; a run claims batches until none is due. */
  batchSize?: number
}

/**
 * Sends every mail that is due, oldest first, and records the outcome: sent, or the error and when to try
 * again (1 min, 5 min, 30 min, 2 h, then every 6 h; given up after `maxEmailAttempts`). Several
 * instances may run it at once: each claims its batch with one atomic update (`for update skip locked`)
 * that counts the attempt and leases the rows, and sends outside any transaction, so a slow mail server
 * holds no database locks. Delivery is at least once: a run that dies between sending and recording
 * leaves the mail to be sent again after the lease.
 */
export async function deliverDueEmails(
  db: Db,
  mailer: Mailer,
  options: DeliveryOptions,
): Promise<{ sent: number; failed: number }> {
  const { logger, batchSize = 20 } = options
  const clock = () => options.now ?? new Date()
  const counts = { sent: 0, failed: 0 }
  for (;;) {
    const batch = await claimDueEmails(db, clock(), batchSize)
    for (const email of batch) {
      if (await deliverEmail(db, mailer, email, clock, logger)) counts.sent++
      else counts.failed++
    }
    if (batch.length < batchSize) return counts
  }
}

/**
 * Runs `deliverDueEmails` now, every `intervalMs`, and whenever `kick()` is called (after queueing a mail,
 * so it goes out at once). One run at a time: kicks during a run ask for one more run after it.
 */
export function startOutboxWorker(options: { db: Db; mailer: Mailer; logger: Logger; intervalMs?: number }): {
  kick(): void
  stop(): Promise<void>
} {
  const { db, mailer, logger, intervalMs = 30_000 } = options
  let running: Promise<void> | undefined
  let again = false
  let stopped = false

  const kick = () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = (async () => {
      do {
        again = false
        try {
          await deliverDueEmails(db, mailer, { logger })
        } catch (error) {
          logger.error({ err: error }, 'email delivery run failed')
        }
      } while (again && !stopped)
    })().finally(() => {
      running = undefined
    })
  }

  // Unref'd: a pending delivery never keeps the process alive (stopping is the server's call).
  const timer = setInterval(kick, intervalMs).unref()
  kick()
  return {
    kick,
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
    },
  }
}

type OutboxRow = typeof emailOutbox.$inferSelect

/** Sends one claimed mail and records the outcome. True when it went out. */
async function deliverEmail(db: Db, mailer: Mailer, email: OutboxRow, clock: () => Date, logger: Logger) {
  const log = { emailId: email.id, kind: email.kind, subjectKey: email.subjectKey, attempt: email.attempts }
  const { to, subject, text, html } = email
  const attachments = await db
    .select({
      fileName: emailAttachments.fileName,
      contentType: emailAttachments.contentType,
      content: emailAttachments.content,
    })
    .from(emailAttachments)
    .where(eq(emailAttachments.emailId, email.id))
  const outcome = await mailer.send({ to, subject, text, html, attachments }).then(
    ({ messageId }) => ({ messageId }),
    (error: unknown) => ({ error }),
  )
  if ('error' in outcome) {
    const retryAt = new Date(clock().getTime() + retryDelayMs(email.attempts))
    const refused = outcome.error instanceof MailError && isRefusedForGood(outcome.error)
    const givenUp = refused || email.attempts >= maxEmailAttempts
    await db
      .update(emailOutbox)
      .set({
        lastError: summarize(outcome.error),
        nextAttemptAt: retryAt,
        ...(givenUp ? { failedAt: clock(), attempts: Math.max(email.attempts, maxEmailAttempts) } : {}),
      })
      // A run whose lease ran out may have sent it meanwhile; that success stands.
      .where(and(eq(emailOutbox.id, email.id), isNull(emailOutbox.sentAt)))
    if (givenUp) {
      await db.delete(emailAttachments).where(eq(emailAttachments.emailId, email.id))
      logger.error(
        { ...log, err: outcome.error },
        refused
          ? 'email refused by the mail server; giving up'
          : `email not sent after ${email.attempts} attempts; giving up`,
      )
    } else {
      logger.warn({ ...log, err: outcome.error, retryAt }, 'email not sent; will retry')
    }
    return false
  }
  // Not counted as a failure to send if it throws: the mail went out. The run fails (and is logged), and
  // the lease brings the mail round again: at least once, never silently lost.
  await db
    .update(emailOutbox)
    .set({ sentAt: clock(), lastError: null, failedAt: null })
    .where(eq(emailOutbox.id, email.id))
  // Sent: its files (a reader's stamped copy) need not be kept.
  await db.delete(emailAttachments).where(eq(emailAttachments.emailId, email.id))
  logger.info({ ...log, messageId: outcome.messageId }, 'email sent')
  return true
}

async function claimDueEmails(db: Db, now: Date, limit: number) {
  const due = db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(
      and(
        isNull(emailOutbox.sentAt),
        lte(emailOutbox.nextAttemptAt, now),
        lt(emailOutbox.attempts, maxEmailAttempts),
      ),
    )
    .orderBy(asc(emailOutbox.nextAttemptAt))
    .limit(limit)
    .for('update', { skipLocked: true })
  const claimed = await db
    .update(emailOutbox)
    .set({ attempts: sql`${emailOutbox.attempts} + 1`, nextAttemptAt: new Date(now.getTime() + leaseMs) })
    .where(inArray(emailOutbox.id, due))
    .returning()
  return claimed.toSorted((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
}

/**
 * The server's last word on this message, which sending it again cannot change: a 5xx reply to its envelope or
 * its data (no such mailbox, too large), or a size over the one the server announced. A 5xx to the store's
 * own sign-in (a wrong SMTP password) is not: the mail goes once the operator fixes it.
 */
function isRefusedForGood({ code, responseCode }: MailError) {
  if (code !== 'EENVELOPE' && code !== 'EMESSAGE') return false
  if (responseCode === undefined) return code === 'EMESSAGE'
  return responseCode >= 500 && responseCode < 600
}

function retryDelayMs(attempts: number) {
  return retryDelaysMs[Math.min(attempts, retryDelaysMs.length) - 1]!
}

/** The error's message on one line, short enough for a column and a log line. */
function summarize(error: unknown) {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/\s+/g, ' ').trim().slice(0, 500) || 'unknown error'
}
