import { z } from 'zod'
import { firstFieldErrors } from '#app/server/form.server.ts'
import commonPasswordList from './data/common-passwords.json' with { type: 'json' }
import {
  EMAIL_MAX_LENGTH,
  identityMessages,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  type FieldErrors,
} from './credentials.ts'

/**
 * The 10,000 most common passwords, most common first: the frequency-ranked list of the MIT-licensed
 * @zxcvbn-ts/language-common 4.1.3 (from the Xato 10-million-password corpus; data/README.md says how to
 * regenerate it). Compared without regard to case: 'Password1' is as guessable as 'password1'.
 */
const commonPasswords = new Set(commonPasswordList.map((password) => password.toLowerCase()))

export function isCommonPassword(password: string): boolean {
  return commonPasswords.has(password.toLowerCase())
}

export const EmailSchema = z
  .string({ error: identityMessages.emailMissing })
  .trim()
  .min(1, identityMessages.emailMissing)
  .max(EMAIL_MAX_LENGTH, identityMessages.emailTooLong)
  .pipe(z.email(identityMessages.emailInvalid))
  .transform((email) => email.toLowerCase())

/**
 * A password being chosen (registration, a reset, a change): no composition rules (NIST 800-63B), only
 * length and the common-password list.
 */
export const NewPasswordSchema = z
  .string({ error: identityMessages.passwordMissing })
  .min(1, identityMessages.passwordMissing)
  .min(PASSWORD_MIN_LENGTH, identityMessages.passwordTooShort)
  .max(PASSWORD_MAX_LENGTH, identityMessages.passwordTooLong)
  .refine((password) => !isCommonPassword(password), identityMessages.passwordCommon)

export const RegisterSchema = z.object({ email: EmailSchema, password: NewPasswordSchema })

/** Login: a password of any other length cannot be right, and fails like a wrong one. */
export const LoginSchema = z.object({
  email: EmailSchema,
  password: z.string({ error: identityMessages.passwordMissing }).min(1, identityMessages.passwordMissing),
})

/** The first problem with each field of a login or a registration, to show next to it. */
export function fieldErrorsOf(error: z.ZodError): FieldErrors {
  return firstFieldErrors(error, ['email', 'password'])
}
