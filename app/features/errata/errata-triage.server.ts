/** The back office's side of errata: triage (audited, a rejection mailed) and the edition that fixes them. */
import { createHash } from 'node:crypto'
import { and, eq, inArray } from 'drizzle-orm'
import { z } from 'zod'
import type { Db, Transaction } from '#app/server/db/database.server.ts'
import { books, errata, user } from '#app/server/db/schema/index.server.ts'
import { enqueueEmail } from '#app/server/outbox.server.ts'
import { recordAudit, type Actor } from '#app/features/admin/audit.server.ts'
import { readSeller } from '#app/features/settings/store-settings.server.ts'
import { listErrataForTriage, type AdminErratum } from './errata.server.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

export const TriageSchema = z.discriminatedUnion('decision', [
  z.strictObject({ decision: z.literal('confirm'), id: z.uuid('This erratum is unknown.') }),
  z.strictObject({ decision: z.literal('reopen'), id: z.uuid('This erratum is unknown.') }),
  z.strictObject({
    decision: z.literal('reject'),
    id: z.uuid('This erratum is unknown.'),
    reason: z
      .string()
      .trim()
      .min(1, 'Please say why it is rejected: the reporter reads it.')
      .max(1000, 'The reason must be at most 1000 characters.')
      .refine((value) => !value.includes('\0'), 'The reason must not hold a NUL character.'),
  }),
])
export type Triage = z.infer<typeof TriageSchema>

/**
 * Confirms, rejects (with a reason) or reopens an erratum, audited. A fixed erratum stays fixed: an edition
 * has been published with it.
 */
export async function triageErratum(
  db: Db,
  triage: Triage,
  actor: Actor,
): Promise<{ ok: true } | { ok: false; status: 404 | 409; message: string }> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ status: errata.status, reason: errata.reason })
      .from(errata)
      .where(eq(errata.id, triage.id))
      .for('update')
    if (!before) return { ok: false, status: 404, message: 'This erratum is unknown.' }
    if (before.status === 'fixed')
      return { ok: false, status: 409, message: 'This erratum is fixed in a published edition.' }
    const after =
      triage.decision === 'confirm'
        ? { status: 'confirmed' as const, reason: '' }
        : triage.decision === 'reject'
          ? { status: 'rejected' as const, reason: triage.reason }
          : { status: 'open' as const, reason: '' }
    await tx.update(errata).set(after).where(eq(errata.id, triage.id))
    await recordAudit(tx, {
      actor,
      action: `erratum.${triage.decision}`,
      entityType: 'erratum',
      entityId: triage.id,
      before,
      after,
    })
    if (triage.decision === 'reject') await mailRejection(tx, triage.id, triage.reason)
    return { ok: true }
  })
}

/**
 * The reporter (with an account) is told why their erratum was rejected: the reason is for them, as the admin's
 * form says; the book page does not list rejected errata. Once per erratum and reason.
 */
async function mailRejection(tx: Transaction, id: string, reason: string): Promise<void> {
  const [row] = await tx
    .select({ to: user.email, title: books.title, quote: errata.quote })
    .from(errata)
    .innerJoin(books, eq(books.id, errata.bookId))
    .innerJoin(user, eq(user.id, errata.reporterId))
    .where(eq(errata.id, id))
  if (!row) return
  const { storeName } = await readSeller(tx)
  const subject = `About the erratum you reported in ${row.title}`
  const text = [
    `Thank you for reporting a possible mistake in ${row.title}:`,
    '',
    `“${row.quote}”`,
    '',
    'After a look, it stays as it is:',
    reason,
    '',
    `— ${storeName}`,
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<p>Thank you for reporting a possible mistake in <strong>${escapeHtml(row.title)}</strong>:</p>
<blockquote>${escapeHtml(row.quote)}</blockquote>
<p>After a look, it stays as it is:</p>
<p style="white-space:pre-line">${escapeHtml(reason)}</p>
<p>— ${escapeHtml(storeName)}</p>
</body></html>`
  await enqueueEmail(tx, {
    kind: 'erratum-rejected',
    subjectKey: `${id}:${createHash('sha256').update(reason).digest('hex').slice(0, 16)}`,
    to: row.to,
    subject,
    text,
    html,
  })
}

/** The confirmed errata of a book, for the changelog of its next edition. */
export function confirmedErrata(db: Db, bookId: string): Promise<AdminErratum[]> {
  return listErrataForTriage(db, { status: 'confirmed', bookId, limit: 1000 })
}

/** The changelog lines for confirmed errata: what a new edition fixes, credited as the reporters chose. */
export function errataChangelog(list: Array<Pick<AdminErratum, 'quote' | 'description' | 'credit'>>): string {
  return list
    .map((erratum) => {
      const quote = erratum.quote.length > 60 ? `${erratum.quote.slice(0, 57)}…` : erratum.quote
      return `- Fixed: “${quote}” — ${erratum.description}${erratum.credit ? ` (reported by ${erratum.credit})` : ''}`
    })
    .join('\n')
}

/**
 * Inside the transaction that publishes `edition`: the book's confirmed errata become fixed in it, and each
 * reporter with an account is mailed once per erratum.
 */
export async function markErrataFixed(
  tx: Transaction,
  book: { id: string; title: string; slug: string },
  edition: number,
  { bookUrl, store }: { bookUrl: string; store: string },
): Promise<number> {
  const fixed = await tx
    .update(errata)
    .set({ status: 'fixed', fixedInEdition: edition })
    .where(and(eq(errata.bookId, book.id), eq(errata.status, 'confirmed')))
    .returning({ id: errata.id, reporterId: errata.reporterId, quote: errata.quote })
  const reporters = fixed.filter((erratum) => erratum.reporterId)
  const emails = reporters.length
    ? await tx
        .select({ id: user.id, email: user.email })
        .from(user)
        .where(
          inArray(
            user.id,
            reporters.map((erratum) => erratum.reporterId!),
          ),
        )
    : []
  const emailOf = new Map(emails.map((row) => [row.id, row.email]))
  for (const erratum of reporters) {
    const to = emailOf.get(erratum.reporterId!)
    if (!to) continue
    await enqueueEmail(tx, {
      kind: 'erratum-fixed',
      subjectKey: erratum.id,
      to,
      ...erratumFixedEmail({ title: book.title, edition, quote: erratum.quote, bookUrl, store }),
    })
  }
  return fixed.length
}

function erratumFixedEmail(input: {
  title: string
  edition: number
  quote: string
  bookUrl: string
  store: string
}) {
  const { title, edition, quote, bookUrl, store } = input
  const subject = `The erratum you reported in ${title} is fixed`
  const text = [
    `Thank you: the mistake you reported in ${title} is fixed in edition ${edition}.`,
    '',
    `You reported: “${quote}”`,
    '',
    `The book's errata: ${bookUrl}#errata`,
    '',
    `— ${store}`,
  ].join('\n')
  const html = `<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;color:#0f172a">
<p>Thank you: the mistake you reported in <strong>${escapeHtml(title)}</strong> is fixed in edition ${edition}.</p>
<blockquote>${escapeHtml(quote)}</blockquote>
<p><a href="${escapeHtml(bookUrl)}#errata">The book's errata</a></p>
<p>— ${escapeHtml(store)}</p>
</body></html>`
  return { subject, text, html }
}
