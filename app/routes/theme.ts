import { data, redirect } from 'react-router'
import { z } from 'zod'
import { serializeTheme } from '#app/features/theme/theme.server.ts'
import { themes } from '#app/features/theme/theme.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { isDataRequest } from '#app/server/data-request.ts'
import { readForm } from '#app/server/form.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import type { Route } from './+types/theme'

const ThemeFormSchema = z.object({
  theme: z.enum(themes).catch('system'),
  redirectTo: z.string().optional().catch(undefined),
})

/** Saves the display setting in a cookie, so the server renders it on the next response (no flash). */
export async function action({ request, url, context }: Route.ActionArgs) {
  const secure = getAppContext(context).env.publicUrl.protocol === 'https:'
  const form = ThemeFormSchema.parse(Object.fromEntries(await readForm(request)))
  const headers = { 'Set-Cookie': serializeTheme(form.theme, secure) }
  if (isDataRequest(request, url)) return data({ theme: form.theme }, { headers })
  return redirect(safeRedirectPath(form.redirectTo), { status: 303, headers })
}

export function loader() {
  return redirect('/')
}
