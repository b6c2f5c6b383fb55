/** One CSV line; a field is quoted when it needs to be, and one a spreadsheet would run as a formula is defused. */
export function csvLine(fields: Array<string | number>): string {
  return fields
    .map((field) => {
      let text = String(field)
      if (typeof field === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
    })
    .join(',')
}
