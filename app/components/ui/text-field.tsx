import type { InputHTMLAttributes } from 'react'
import { controlClass, Field } from './field.tsx'

/** A labelled input with its hint and its error beside it (see `Field`). */
export function TextField({
  label,
  error,
  hint,
  requiredMessage,
  ...input
}: {
  label: string
  error?: string
  hint?: string
  /** The browser's own message for an empty required field, in the store's words. */
  requiredMessage?: string
  name: string
} & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => (
        <input
          {...control}
          onInvalid={(event) => {
            if (requiredMessage && event.currentTarget.validity.valueMissing)
              event.currentTarget.setCustomValidity(requiredMessage)
          }}
          onInput={(event) => event.currentTarget.setCustomValidity('')}
          className={controlClass}
          {...input}
        />
      )}
    </Field>
  )
}
