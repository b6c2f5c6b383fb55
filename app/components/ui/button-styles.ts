/** Class lists shared by buttons and links that look like buttons. */
export const buttonBase =
  'inline-flex items-center justify-center rounded-lg px-4 py-2 text-sm font-medium text-white transition-colors disabled:opacity-60'

export const primaryButton = `${buttonBase} bg-blue-700 hover:bg-blue-800`

export const dangerButton = `${buttonBase} bg-red-600 hover:bg-red-700`

/** A quieter button beside a primary one: outlined, in the text's colour. */
export const outlineButton =
  'inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2 text-sm font-medium hover:bg-slate-100 dark:border-gray-500 dark:hover:bg-gray-800'
