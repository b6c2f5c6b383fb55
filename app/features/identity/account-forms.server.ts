import { z } from 'zod'
import { EmailSchema, NewPasswordSchema } from './credentials.server.ts'
import { accountMessages, type AccountField, type AccountFormData } from './account-forms.ts'

export const ForgotPasswordSchema = z.object({ email: EmailSchema })
export const ResetPasswordSchema = z.object({
  token: z.string().min(1).max(200),
  newPassword: NewPasswordSchema,
})
export const ChangeEmailSchema = z.object({ newEmail: EmailSchema })
export const ChangePasswordSchema = z.object({
  currentPassword: z
    .string({ error: accountMessages.currentPasswordMissing })
    .min(1, accountMessages.currentPasswordMissing),
  newPassword: NewPasswordSchema,
})

const fields = new Set<string>(['email', 'newEmail', 'currentPassword', 'newPassword'])

/** The first problem with each field, to show next to it. */
export function accountFieldErrors(error: z.ZodError): AccountFormData['fieldErrors'] {
  const errors: Partial<Record<AccountField, string>> = {}
  for (const issue of error.issues) {
    const field = issue.path[0]
    if (typeof field === 'string' && fields.has(field) && !errors[field as AccountField])
      errors[field as AccountField] = issue.message
  }
  return errors
}

/** The form's text fields (a missing field stays undefined, for the schema to name). */
export function textFields(form: FormData, names: string[]): Record<string, string | undefined> {
  return Object.fromEntries(
    names.map((name) => {
      const value = form.get(name)
      return [name, typeof value === 'string' ? value : undefined]
    }),
  )
}
