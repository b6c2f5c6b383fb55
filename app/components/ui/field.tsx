import { useId, type ReactNode, type SelectHTMLAttributes } from 'react'

/** The look of a form control (input, select, textarea), red-bordered while it is invalid. */
export const controlClass =
  'rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 aria-invalid:border-red-600 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100 dark:aria-invalid:border-red-400'

/** What `Field` hands its control: the id its label names, and the ties to the hint and the error. */
export type ControlProps = { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string }

/**
 * A label, a control, its hint and its error: `aria-invalid` and `aria-describedby` tie the messages to the
 * control, so a screen reader reads them when it is focused. The control is the caller's (`children`).
 */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string
  error?: string
  hint?: string
  children: (props: ControlProps) => ReactNode
}) {
  const id = useId()
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children({
        id,
        ...(error ? { 'aria-invalid': true as const } : {}),
        ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      })}
      {hint ? (
        <p id={`${id}-hint`} className="text-sm text-slate-600 dark:text-slate-300">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </div>
  )
}

/** A labelled drop-down list (its `<option>`s are the children), with its hint and error beside it. */
export function SelectField({
  label,
  error,
  hint,
  children,
  ...select
}: {
  label: string
  error?: string
  hint?: string
  name: string
  children: ReactNode
} & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => (
        <select {...control} className={controlClass} {...select}>
          {children}
        </select>
      )}
    </Field>
  )
}

/**
 * Ties a form's fields to what it holds for them, by name: `{...field('title')}` gives a field its name, its
 * value (as a refused post typed it, or as loaded) and its error, so one field can never show another's.
 */
export function formFields<Name extends string>(
  values: Partial<Record<Name, string>>,
  errors: Partial<Record<Name, string>>,
) {
  return (name: Name) => ({ name, defaultValue: values[name], error: errors[name] })
}

/** A drop-down's `<option>`s: each value, showing its label. */
export function Options({ options }: { options: readonly { value: string; label: string }[] }) {
  return options.map((option) => (
    <option key={option.value} value={option.value}>
      {option.label}
    </option>
  ))
}
