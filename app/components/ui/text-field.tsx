import { useId, type InputHTMLAttributes } from 'react'

/**
 * A labelled input with its error beside it: `aria-invalid` and `aria-describedby` tie the message to the
 * field, so a screen reader reads it when the field is focused.
 */
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
  const id = useId()
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined].filter(Boolean).join(' ')
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        onInvalid={(event) => {
          if (requiredMessage && event.currentTarget.validity.valueMissing)
            event.currentTarget.setCustomValidity(requiredMessage)
        }}
        onInput={(event) => event.currentTarget.setCustomValidity('')}
        className="rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400"
        {...input}
      />
      {hint ? (
        <p id={hintId} className="text-sm text-slate-600 dark:text-slate-300">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  )
}
