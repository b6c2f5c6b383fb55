import type { Db } from '#app/server/db/database.server.ts'
import { KindleAddressSchema, removeKindleAddress, saveKindleAddress } from './kindle.server.ts'

/** The account page's Send to Kindle form (issue 33): save the Kindle's address, or forget it. */

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
