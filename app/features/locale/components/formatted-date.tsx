import { useLocale, formatDate, type DateStyle } from '../date-format.ts'

/**
 * A date for people in the reader's locale, inside a `<time>` that gives machines its ISO 8601 instant.
 * `lang` marks the words as the locale's, so a screen reader speaks '27. Nov.' as German on an English page.
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
  const date = typeof value === 'string' ? new Date(value) : value
  return (
    <time dateTime={date.toISOString()} lang={locale} className={className}>
      {formatDate(date, style, locale)}
    </time>
  )
}
