/**
 * The reader's locale, from the `Accept-Language` their browser sends: the first language they rank highest
 * that this runtime's `Intl` can format, or DEFAULT_LOCALE. It is resolved once per request (the root loader,
 * through app/visitor-key.server.ts) and reaches components through the root's data (date-format.ts).
 *
 * The header is what anyone may send: a malformed one, an unknown or private-use tag, a q-value that is not
 * a number are passed over, never thrown. The answer is normalized to the locale `Intl` resolves it to
 * (`de-DE-u-ca-buddhist` → `de-DE`, `de-XX` → `de`), so the page cache, which keys on it, holds one page per
 * locale the runtime has, not one per spelling of a header.
 */
export const DEFAULT_LOCALE = 'en-US'

/** Past these, a header is not a browser's: the rest is ignored rather than parsed. */
const MAX_HEADER_LENGTH = 512
const MAX_RANGES = 16

export function resolveLocale(header: string | null | undefined): string {
  if (!header) return DEFAULT_LOCALE
  const ranges = header
    .slice(0, MAX_HEADER_LENGTH)
    .split(',')
    .slice(0, MAX_RANGES)
    .map((range, index) => {
      const [tag = '', ...parameters] = range.split(';').map((part) => part.trim())
      return { tag, quality: qualityOf(parameters), index }
    })
    .filter((range) => range.tag !== '' && range.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
  for (const { tag } of ranges) {
    // 'Any language': the store's own.
    if (tag === '*') return DEFAULT_LOCALE
    const locale = supportedLocale(tag)
    if (locale) return locale
  }
  return DEFAULT_LOCALE
}

/** The range's weight: 1 without a `q`, 0 (not wanted) for one that is not a number from 0 to 1. */
function qualityOf(parameters: string[]): number {
  const q = parameters.find((parameter) => /^q\s*=/i.test(parameter))
  if (q === undefined) return 1
  const value = q.replace(/^q\s*=\s*/i, '')
  return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0
}

function supportedLocale(tag: string): string | undefined {
  try {
    // The language, script and region only: a `-u-` extension would change the calendar or the digits.
    const base = new Intl.Locale(tag).baseName
    if (Intl.DateTimeFormat.supportedLocalesOf([base]).length === 0) return undefined
    return new Intl.DateTimeFormat(base).resolvedOptions().locale
  } catch {
    // Not a well-formed language tag (`x-pig-latin`, `en_US`, a stray `;`).
    return undefined
  }
}
