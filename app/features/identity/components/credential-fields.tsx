import { TextField } from '#app/components/ui/text-field.tsx'
import { newPasswordHint } from '../account-forms.ts'
import {
  EMAIL_MAX_LENGTH,
  identityMessages,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
} from '../credentials.ts'

/**
 * An email field as every identity form has it: required, at most EMAIL_MAX_LENGTH characters, the store's
 * own message when it is left empty. `username` marks the address a password manager files a password under.
 */
export function EmailField({
  label = 'Email',
  name = 'email',
  autoComplete,
  hint,
  defaultValue,
  error,
}: {
  label?: string
  name?: string
  autoComplete: 'email' | 'username'
  hint?: string
  defaultValue?: string
  error?: string
}) {
  return (
    <TextField
      label={label}
      name={name}
      type="email"
      requiredMessage={identityMessages.emailMissing}
      autoComplete={autoComplete}
      required
      maxLength={EMAIL_MAX_LENGTH}
      hint={hint}
      defaultValue={defaultValue}
      error={error}
    />
  )
}

/**
 * A password field: a `new` one (registering, resetting, changing) carries the length rules as HTML
 * constraints and says them in its hint; the `current` one is checked only against the longest a password can
 * be. Passwords are never given back to the form: no default value.
 */
export function PasswordField({
  kind,
  label = 'Password',
  name = 'password',
  hint = kind === 'new' ? newPasswordHint : undefined,
  requiredMessage = identityMessages.passwordMissing,
  error,
}: {
  kind: 'new' | 'current'
  label?: string
  name?: string
  hint?: string
  /** The browser's message for an empty field, in the store's words. */
  requiredMessage?: string
  error?: string
}) {
  return (
    <TextField
      label={label}
      name={name}
      type="password"
      requiredMessage={requiredMessage}
      autoComplete={kind === 'new' ? 'new-password' : 'current-password'}
      required
      minLength={kind === 'new' ? PASSWORD_MIN_LENGTH : undefined}
      maxLength={PASSWORD_MAX_LENGTH}
      hint={hint}
      error={error}
    />
  )
}
