import { useId, useState } from 'react'
import { useLocale, formatDate, type DateStyle } from '../date-format.ts'

/**
 * A date for people in the reader's locale, inside a `<time>` that gives machines its ISO 8601 instant.
 * `lang` marks the words as the locale's, so a screen reader speaks '27. Nov.' as German on an English page.
 *
 * While the page hydrates, the words are the ones the server wrote, read back from the element (found by
 * React's `useId`, the same on both sides), not formatted again: the first `Intl.DateTimeFormat` a page makes
 * loads the browser's ICU date data, which on a phone was a 150–220 ms task in the middle of hydrating a book
 * page (issue 35's trace). The server formatted this same instant in this same locale, so the text is what
 * formatting would give. A date rendered later (a client-side navigation, a new value) is formatted as before.
 */
export function FormattedDate({
  value,
  style = 'date',
  className,
}: {
  value: Date | string
  style?: DateStyle
  className?: string
}) {
  const locale = useLocale()
  const id = useId()
  const date = typeof value === 'string' ? new Date(value) : value
  const iso = date.toISOString()
  const [serverText] = useState(() => {
    if (typeof document === 'undefined') return undefined
    const element = document.getElementById(id)
    // The server's element for this very date and locale; anything else is formatted afresh.
    return element?.getAttribute('datetime') === iso && element.lang === locale
      ? { iso, style, locale, text: element.textContent ?? '' }
      : undefined
  })
  const text =
    serverText && serverText.iso === iso && serverText.style === style && serverText.locale === locale
      ? serverText.text
      : formatDate(date, style, locale)
  return (
    <time id={id} dateTime={iso} lang={locale} className={className}>
      {text}
    </time>
  )
}
