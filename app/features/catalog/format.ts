import { formatCount } from '#app/features/locale/number-format.ts'

const priceFormats = new Map<string, Intl.NumberFormat>()

/**
 * '$99', '$19.50', '-$1,234.50': whole amounts without cents, as the seed showed them. Dollars in en-US (every
 * price the store has shown so far) are written without `Intl`, whose first use on a page costs a phone a long
 * task (locale/number-format.ts); another currency or locale goes to `Intl.NumberFormat`.
 */
export function formatPrice(cents: number, currency: string, locale = 'en-US'): string {
  if (currency === 'USD' && locale === 'en-US' && Number.isInteger(cents)) {
    const amount = Math.abs(cents)
    const fraction = amount % 100 === 0 ? '' : `.${String(amount % 100).padStart(2, '0')}`
    return `${cents < 0 ? '-' : ''}$${formatCount(Math.floor(amount / 100))}${fraction}`
  }
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
