import { z } from 'zod'
import { firstFieldErrors } from '#app/server/form.server.ts'
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

const fields: readonly AccountField[] = ['email', 'newEmail', 'currentPassword', 'newPassword']

/** The first problem with each field, to show next to it. */
export function accountFieldErrors(error: z.ZodError): AccountFormData['fieldErrors'] {
  return firstFieldErrors(error, fields)
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
