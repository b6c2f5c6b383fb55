/** The reader's chrome: small bordered buttons (their `aria-expanded`/`aria-pressed` state shown), list entries. */
export const chromeButton =
  'inline-flex items-center justify-center gap-1 rounded-md border border-slate-400 px-3 py-1.5 text-sm font-medium hover:bg-slate-100 disabled:opacity-60 aria-expanded:bg-slate-200 dark:border-gray-500 dark:hover:bg-gray-700 dark:aria-expanded:bg-gray-700'

export const listButton =
  'w-full rounded px-2 py-1 text-left text-sm hover:bg-slate-100 aria-[current]:font-semibold aria-[current]:underline dark:hover:bg-gray-700'

export const linkClass = 'text-blue-700 underline underline-offset-2 dark:text-sky-300'

/** How far into the book: a native <progress> (the CSP refuses style attributes), the store's blue. */
export const progressBar =
  'h-2 w-32 appearance-none overflow-hidden rounded [&::-moz-progress-bar]:bg-blue-700 [&::-webkit-progress-bar]:bg-slate-200 dark:[&::-webkit-progress-bar]:bg-gray-700 [&::-webkit-progress-value]:bg-blue-700 dark:[&::-webkit-progress-value]:bg-sky-300'
