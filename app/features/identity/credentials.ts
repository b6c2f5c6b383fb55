/**
 * The rules for an email and a password, shared by the forms (as HTML constraints the browser checks
 * before posting) and the server's schemas (credentials.server.ts), which check them again with the
 * common-password list the browser never downloads.
 */
export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 128
export const EMAIL_MAX_LENGTH = 254

export const identityMessages = {
  emailMissing: 'Please type your email',
  emailInvalid: 'Please enter a valid email address, like name@example.com.',
  emailTooLong: `An email address has at most ${EMAIL_MAX_LENGTH} characters.`,
  passwordMissing: 'Please type your password',
  passwordTooShort: `Use at least ${PASSWORD_MIN_LENGTH} characters.`,
  passwordTooLong: `Use at most ${PASSWORD_MAX_LENGTH} characters.`,
  passwordCommon:
    'This password is one of the 10,000 most common passwords, which attackers try first. Please choose another.',
  emailInUse: 'Email is already in use. Please use another email.',
  loginFailed: 'Login failed. Please check your credentials.',
  serviceDown: 'We could not reach the account service, so nothing changed. Please try again in a moment.',
  logoutFailed: 'We could not log you out, so you are still signed in. Please try again.',
} as const

/** The first problem with each field of an identity form, shown next to it. */
export type FieldErrors = Partial<Record<'email' | 'password', string>>
