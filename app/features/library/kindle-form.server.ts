import { readerSlugPattern } from '#app/features/reader/reader-books.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { KindleAddressSchema, removeKindleAddress, saveKindleAddress, sendToKindle } from './kindle.server.ts'

/**
 * The Send to Kindle forms (issue 33): on the account page, save the Kindle's address or forget it; in the
 * library, send a book.
 */

type Outcome =
  | { ok: true; notice: string }
  | { ok: false; status: 400; fieldErrors?: { kindleAddress: string }; formError?: string }

export async function saveKindleAddressFor(db: Db, user: { id: string }, form: FormData): Promise<Outcome> {
  const parsed = KindleAddressSchema.safeParse(String(form.get('kindleAddress') ?? ''))
  if (!parsed.success) {
    return { ok: false, status: 400, fieldErrors: { kindleAddress: parsed.error.issues[0]!.message } }
  }
  await saveKindleAddress(db, user.id, parsed.data)
  return {
    ok: true,
    notice: `Saved: books you send from your library go to ${parsed.data}. Amazon must accept our address (see above).`,
  }
}

export async function removeKindleAddressFor(db: Db, user: { id: string }): Promise<Outcome> {
  if (!(await removeKindleAddress(db, user.id))) {
    return { ok: false, status: 400, formError: 'There was no Kindle address to remove.' }
  }
  return { ok: true, notice: 'Your Kindle address was removed: nothing more is sent to it.' }
}

/** 'CodeBook <orders@example.com>' → 'orders@example.com': what the reader adds to Amazon's approved list. */
export function senderAddress(mailFrom: string): string {
  return /<([^<>\s]+)>/.exec(mailFrom)?.[1] ?? mailFrom.trim()
}

/** The library's 'Send to Kindle' on a book: queued (and the outbox woken), or why not, with its status. */
export async function answerSendToKindle(
  app: AppContext,
  reader: { id: string; email: string },
  form: FormData,
): Promise<{ status: number; slug: string; notice?: string; error?: string; retryAfterSeconds?: number }> {
  const slug = String(form.get('slug') ?? '')
  if (form.get('intent') !== 'send-to-kindle' || !readerSlugPattern.test(slug))
    return { status: 400, slug, error: 'Please use the Send to Kindle button of a book.' }
  const sent = await sendToKindle(
    app,
    { userId: reader.id, email: reader.email },
    { slug, maxBytes: app.env.MAIL_MAX_ATTACHMENT_MB * 1024 * 1024 },
  )
  if (!sent.ok)
    return { status: sent.status, slug, error: sent.message, retryAfterSeconds: sent.retryAfterSeconds }
  app.kickOutbox()
  return { status: 200, slug, notice: `“${sent.title}” is on its way to ${sent.address}.` }
}
