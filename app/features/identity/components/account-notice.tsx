import type { ReactNode } from 'react'

/** What an account form did, said where the visitor is looking (and read out by screen readers). */
export function Notice({ children }: { children: ReactNode }) {
  return (
    <p
      role="status"
      className="rounded-lg border border-emerald-300 bg-emerald-50 p-3 text-sm text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100"
    >
      {children}
    </p>
  )
}

/** Why a form was refused as a whole (a field's own problem is shown next to it). */
export function FormError({ children }: { children: ReactNode }) {
  return (
    <p
      role="alert"
      tabIndex={-1}
      data-form-error
      className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
    >
      {children}
    </p>
  )
}

export const linkClass = 'font-medium text-blue-700 underline dark:text-sky-300'
export const secondaryButton =
  'inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2 text-sm font-medium hover:bg-slate-100 disabled:opacity-60 dark:border-gray-500 dark:hover:bg-gray-800'
