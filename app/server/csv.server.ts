/**
 * CSV files for the store owner's spreadsheet (RFC 4180): UTF-8 with a byte order mark, so that Excel reads
 * titles and names that are not ASCII; CRLF line ends; a cell quoted when it holds a quote, comma or line
 * break. A text cell a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage return)
 * is prefixed with `'`, so that a book title or an email address typed by someone else cannot run in the
 * owner's spreadsheet (CSV injection). Numbers are written as they are, and so is money: a `{ cents }` cell is
 * written as a decimal with two places ('12.50', '-3.00': a refund), a number by construction, never text.
 */
export type CsvCell = string | number | null | { cents: number }

/** Cents as a decimal of major units: 1250 → '12.50', -300 → '-3.00' (integers: exact). */
export function centsText(cents: number): string {
  const sign = cents < 0 ? '-' : ''
  const amount = Math.abs(cents)
  return `${sign}${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')}`
}

const BYTE_ORDER_MARK = '\uFEFF'

/** One cell, quoted and defused as it needs to be; null is an empty cell. */
export function csvCell(value: CsvCell): string {
  if (value !== null && typeof value === 'object') return centsText(value.cents)
  let text = value === null ? '' : String(value)
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One line of cells, with its CRLF. */
export function csvRow(cells: readonly CsvCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}

/** A whole file in memory, for a small one (a row per day of a period). */
export function csvText(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  let text = BYTE_ORDER_MARK + csvRow(header)
  for (const row of rows) text += csvRow(row)
  return text
}

/**
 * A file streamed: the header at once, then one batch of rows each time the reader wants more, so memory holds
 * one batch whatever the length of the file, and a client that reads slowly (or goes away) slows (or stops)
 * whatever produces the batches.
 */
export function csvStream(
  header: readonly string[],
  batches: AsyncIterable<ReadonlyArray<readonly CsvCell[]>>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const iterator = batches[Symbol.asyncIterator]()
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(BYTE_ORDER_MARK + csvRow(header)))
      },
      async pull(controller) {
        // A pull must enqueue or close: a waiting reader is not pulled for again.
        for (;;) {
          const next = await iterator.next()
          if (next.done) return controller.close()
          if (next.value.length > 0)
            return controller.enqueue(encoder.encode(next.value.map(csvRow).join('')))
        }
      },
      async cancel() {
        await iterator.return?.()
      },
    },
    // One batch waits at most: the next is produced only when the client has taken this one.
    { highWaterMark: 1 },
  )
}

/** A CSV file as a download: never cached (it holds private figures), saved under `filename`. */
export function csvResponse(body: string | ReadableStream<Uint8Array>, filename: string): Response {
  return new Response(body, {
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${filename}"`,
      'Cache-Control': 'private, no-store',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
