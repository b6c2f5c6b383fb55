import { z } from 'zod'
import {
  AUTHOR_FORM_LIMITS,
  authorFields,
  authorMessages,
  type AuthorFieldErrors,
  type AuthorFormValues,
} from './author-form.ts'

/** The author form's one schema: a name (spaces collapsed) and a Markdown bio (may be empty). */
export const AuthorFormSchema = z.object({
  name: z.preprocess(
    (value) => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : value),
    z
      .string({ error: authorMessages.nameMissing })
      .min(1, authorMessages.nameMissing)
      .max(AUTHOR_FORM_LIMITS.nameMax, authorMessages.nameTooLong),
  ),
  bio: z.preprocess(
    // Browsers post line breaks as CRLF.
    (value) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : ''),
    z.string().max(AUTHOR_FORM_LIMITS.bioMax, authorMessages.bioTooLong),
  ),
})

export type AuthorInput = z.output<typeof AuthorFormSchema>

/** Reads a posted author form: the input and the version edited, or the values as typed with an error per field. */
export function parseAuthorForm(
  form: FormData,
):
  | { ok: true; input: AuthorInput; version: number | null; values: AuthorFormValues }
  | { ok: false; values: AuthorFormValues; fieldErrors: AuthorFieldErrors } {
  const values: AuthorFormValues = {}
  for (const field of authorFields) {
    const value = form.get(field)
    if (typeof value === 'string') values[field] = value
  }
  const rawVersion = form.get('version')
  const version = typeof rawVersion === 'string' && /^\d{1,9}$/.test(rawVersion) ? Number(rawVersion) : null
  const parsed = AuthorFormSchema.safeParse(values)
  if (parsed.success) return { ok: true, input: parsed.data, version, values }
  const fieldErrors: AuthorFieldErrors = {}
  for (const issue of parsed.error.issues) {
    const field = issue.path[0]
    if ((field === 'name' || field === 'bio') && !fieldErrors[field]) fieldErrors[field] = issue.message
  }
  return { ok: false, values, fieldErrors }
}
