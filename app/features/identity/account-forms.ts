import { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './credentials.ts'

/**
 * The account lifecycle's forms (decision 017): their fields, what their actions answer, and their words.
 * The rules for an email and a new password are registration's (credentials.ts).
 */
export type AccountField =
  'email' | 'newEmail' | 'currentPassword' | 'newPassword' | 'appPasswordName' | 'kindleAddress'

/** What an account form's action answers when it does not redirect. */
export type AccountFormData = {
  /** Which form on the page answered (the account page has several). */
  intent?: string
  fieldErrors?: Partial<Record<AccountField, string>>
  formError?: string
  /** Done: what to tell the visitor. */
  notice?: string
  /** The email typed, shown again (never a password). */
  email?: string
  /** A new app password: the only time its text is shown (issue 33). */
  appPassword?: { name: string; password: string }
}

export const newPasswordHint = `${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters. A long phrase you can remember is best; very common passwords are refused.`

export { EMAIL_MAX_LENGTH, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH }

export const accountMessages = {
  resetRequested: (email: string) =>
    `If an account uses ${email}, we have just mailed it a link to choose a new password. The link works for 1 hour.`,
  resetLinkUnusable:
    'This password reset link has already been used or has expired (links work once, for 1 hour). Ask for a new one below.',
  passwordReset: 'Your password was changed and every session was signed out. Log in with your new password.',
  verificationSent: (email: string) =>
    `We have mailed a new confirmation link to ${email}. It works once, for 24 hours.`,
  alreadyVerified: 'Your email is already confirmed.',
  emailChangeSent: (email: string) =>
    `We have mailed a link to ${email}. Your email changes once you follow it (within 24 hours).`,
  sameEmail: 'This is already your email.',
  newEmailTaken: (email: string) =>
    `That address now belongs to another account: ${email} was registered after you asked for it. Your email has not changed; choose another one on your account page.`,
  currentPasswordWrong: 'This is not your current password.',
  currentPasswordMissing: 'Please type your current password',
  noPassword: 'Your account has no password yet: use “Forgot password?” on the login page to set one.',
  passwordChanged: 'Your password was changed. Every other session was signed out.',
  sessionRevoked: 'That session was signed out.',
  otherSessionsRevoked: 'Every other session was signed out.',
} as const
