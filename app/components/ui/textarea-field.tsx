import type { TextareaHTMLAttributes } from 'react'
import { controlClass, Field } from '#app/components/ui/field.tsx'

/** A labelled multi-line text box with its hint and its error beside it (see `Field`). */
export function TextareaField({
  label,
  error,
  hint,
  ...textarea
}: {
  label: string
  error?: string
  hint?: string
  name: string
} & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <Field label={label} error={error} hint={hint}>
      {(control) => <textarea {...control} className={controlClass} {...textarea} />}
    </Field>
  )
}
