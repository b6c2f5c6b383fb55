import { getAppContext } from '#app/server/context.server.ts'
import { type AccountOutcome, limit, orServiceDown, type Visit } from './account-outcome.server.ts'
import {
  AppPasswordNameSchema,
  appPasswordMessages,
  createAppPassword,
  listAppPasswords,
  revokeAppPassword,
} from './app-passwords.server.ts'

/** The account page's app-password forms (issue 33): create one for a named app, revoke one. */

export { listAppPasswords }

export type AppPasswordCreated = { ok: true; notice: string; appPassword: { name: string; password: string } }

export async function createAppPasswordFor(
  visit: Visit,
  user: { id: string },
  form: FormData,
): Promise<AccountOutcome | AppPasswordCreated> {
  const app = getAppContext(visit.context)
  const tooMany = await limit(app, [])
  if (tooMany) return tooMany
  const parsed = AppPasswordNameSchema.safeParse(form.get('appPasswordName') ?? '')
  if (!parsed.success) {
    return { ok: false, status: 400, fieldErrors: { appPasswordName: parsed.error.issues[0]!.message } }
  }
  const name = parsed.data
  return orServiceDown(visit, 'creating an app password', async () => {
    const made = await createAppPassword(app.db, user.id, name)
    if (!made) return { ok: false, status: 409, formError: appPasswordMessages.tooMany }
    return {
      ok: true,
      notice: `“${name}” can now open your library. Copy its password now: it is shown only this once.`,
      appPassword: { name, password: made.password },
    } satisfies AppPasswordCreated
  })
}

export async function revokeAppPasswordOf(
  visit: Visit,
  user: { id: string },
  form: FormData,
): Promise<AccountOutcome> {
  const app = getAppContext(visit.context)
  const id = String(form.get('appPasswordId') ?? '')
  const name = (await listAppPasswords(app.db, user.id)).find((row) => row.id === id)?.name
  if (!name || !(await revokeAppPassword(app.db, user.id, id))) {
    return { ok: false, status: 400, formError: 'That app password was already revoked.' }
  }
  return { ok: true, notice: `“${name}” was revoked: the app can no longer open your library.` }
}
