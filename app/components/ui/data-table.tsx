import type { ReactNode } from 'react'

/** One column of a `DataTable`: its heading, and how a row fills its cell. */
export type Column<Row> = {
  header: string
  cell: (row: Row) => ReactNode
  /** Classes added to this column's cells (e.g. `whitespace-nowrap`). */
  className?: string
  /** This column's cell names its row (`<th scope="row">`), as a screen reader announces it. */
  rowHeader?: boolean
}

/**
 * A list as a table, a row per item and a heading per column, scrolling sideways when the screen is narrow.
 * Knows nothing of what the rows are: the columns say it.
 */
export function DataTable<Row>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  /** Read by screen readers only: what the table lists and in which order. */
  caption?: string
  columns: Column<Row>[]
  rows: Row[]
  rowKey: (row: Row) => string | number
}) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full border-collapse text-left text-sm">
        {caption ? <caption className="sr-only">{caption}</caption> : null}
        <thead>
          <tr className="border-b border-slate-300 dark:border-gray-600">
            {columns.map((column) => (
              <th key={column.header} scope="col" className="py-2 pr-4">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className="border-b border-slate-200 align-top dark:border-gray-700">
              {columns.map((column) => {
                const className = column.className ? `py-2 pr-4 ${column.className}` : 'py-2 pr-4'
                return column.rowHeader ? (
                  <th key={column.header} scope="row" className={className}>
                    {column.cell(row)}
                  </th>
                ) : (
                  <td key={column.header} className={className}>
                    {column.cell(row)}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
