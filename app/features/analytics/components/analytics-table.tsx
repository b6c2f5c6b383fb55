import type { ReactNode } from 'react'

/** The dashboard's building blocks: a titled block, its tables of figures, and how numbers are written. */

export const count = new Intl.NumberFormat('en-US')
export const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 })

export const rowClass = 'border-b border-slate-200 dark:border-gray-700'
export const cellClass = 'py-1.5 pr-4 text-left font-normal'
export const numberClass = 'py-1.5 pr-4 text-right tabular-nums'

export function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="min-w-0">
      <h2 className="mb-3 text-lg font-semibold">{title}</h2>
      {children}
    </section>
  )
}

/** A table of figures: its first column names the row, the others are numbers (right-aligned). */
export function Table({
  head,
  caption,
  children,
}: {
  head: string[]
  /** The table's accessible name, for screen readers (the heading above it shows it to everyone). */
  caption?: string
  children: ReactNode
}) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-sm">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead>
          <tr className="border-b border-slate-300 dark:border-gray-600">
            {head.map((label, index) => (
              <th key={label} scope="col" className={`py-2 pr-4 ${index === 0 ? 'text-left' : 'text-right'}`}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

/** A long per-day table in a box of its own; focusable, so it can be scrolled with the keyboard. */
export function ScrollTable({
  label,
  head,
  children,
}: {
  label: string
  head: string[]
  children: ReactNode
}) {
  return (
    <div
      role="region"
      aria-label={`${label} (table)`}
      tabIndex={0}
      className="mt-3 max-h-72 overflow-y-auto rounded focus-visible:outline-2 focus-visible:outline-blue-700 dark:focus-visible:outline-blue-300"
    >
      <Table head={head}>{children}</Table>
    </div>
  )
}
