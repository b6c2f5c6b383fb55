import type { ReactNode } from 'react'

/**
 * What became of a back-office form's last post, above the form: the form's own error (a conflict, a refused
 * upload), else `notSaved` when fields were refused (each says why beside itself), else the `saved` notice.
 */
export function FormOutcome({
  errors,
  notSaved,
  saved,
}: {
  errors: { form?: string } & Record<string, string | undefined>
  notSaved: string
  saved: ReactNode
}) {
  if (errors.form)
    return (
      <p role="alert" className="mb-4 text-red-700 dark:text-red-300">
        {errors.form}
      </p>
    )
  if (Object.keys(errors).length > 0)
    return (
      <p role="alert" className="mb-4 text-red-700 dark:text-red-300">
        {notSaved}
      </p>
    )
  if (!saved) return null
  return (
    <p role="status" className="mb-4 text-emerald-700 dark:text-emerald-300">
      {saved}
    </p>
  )
}
