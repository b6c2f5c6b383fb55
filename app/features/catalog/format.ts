const priceFormats = new Map<string, Intl.NumberFormat>()

/** '$99', '$19.50': whole amounts without cents, as the seed showed them. */
export function formatPrice(cents: number, currency: string, locale = 'en-US'): string {
  const key = `${locale}:${currency}:${cents % 100 === 0}`
  let format = priceFormats.get(key)
  if (!format) {
    format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: cents % 100 === 0 ? 0 : 2,
    })
    priceFormats.set(key, format)
  }
  return format.format(cents / 100)
}

/** '5 MB', '2.4 MB', '800 KB' (binary units, as file managers show them). */
export function formatFileSize(bytes: number): string {
  const mb = bytes / (1024 * 1024)
  if (mb >= 1) return `${Number(mb.toFixed(mb >= 10 ? 0 : 1))} MB`
  return `${Math.max(1, Math.round(bytes / 1024))} KB`
}
