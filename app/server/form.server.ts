import { data } from 'react-router'
import { z } from 'zod'

const unreadable = () =>
  data(
    { title: 'This form could not be read', message: 'Please go back, reload the page and send it again.' },
    { status: 400 },
  )

/**
 * The posted form, or a 400 the error boundary shows kindly. The host already refuses bodies that are not
 * forms (415) or too large (413) (server/request-bodies.ts); what is left to fail here is a malformed
 * multipart body, which `request.formData()` rejects with a TypeError that would otherwise be a 500, and a
 * field holding a NUL character, which no form of the store sends and PostgreSQL refuses (another 500).
 */
export async function readForm(request: Request): Promise<FormData> {
  let form: FormData
  try {
    form = await request.formData()
  } catch {
    throw unreadable()
  }
  for (const value of form.values()) if (typeof value === 'string' && value.includes('\0')) throw unreadable()
  return form
}

/**
 * The first problem with each of a form's `fields`, to show next to it (zod's flattened errors). Problems with
 * other fields (a hidden token, say) are left to the caller.
 */
export function firstFieldErrors<Field extends string>(
  error: z.ZodError,
  fields: readonly Field[],
): Partial<Record<Field, string>> {
  const fieldErrors: Partial<Record<string, string[]>> = z.flattenError(error).fieldErrors
  return Object.fromEntries(
    fields.flatMap((field) => {
      const message = fieldErrors[field]?.[0]
      return message ? [[field, message]] : []
    }),
  ) as Partial<Record<Field, string>>
}
