import { useRouteLoaderData } from 'react-router'
import { DEFAULT_LOCALE } from './locale.ts'

/**
 * The store's one way of writing a date for people, in the reader's locale (locale.ts). Machines get ISO
 * 8601 (`<time dateTime>`, CSV exports, JSON-LD), never this.
 *
 * Always in UTC, and the styles with a time say so: pages are rendered on the server, which is not told the
 * reader's time zone, and one page is shared by every reader with the same key (the page cache). A guessed zone
 * would be wrong for some of them without saying so; UTC, named, is wrong for no one. The same instant also
 * reads as the same day on every page, in the admin's CSV export and in the `dateTime` beside it.
 */
const STYLES = {
  /** 'Nov 27, 2026' (en-US), '27.11.2026' (de-DE). */
  date: { dateStyle: 'medium' },
  /** 'Nov 27, 2026, 7:27 PM UTC' (en-US), '27. Nov. 2026, 19:27 UTC' (de-DE). */
  dateTime: {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  },
  /** 'Nov 27' (en-US), '27. Nov.' (de-DE): a chart's axis, whose year is in its title. */
  monthDay: { month: 'short', day: 'numeric' },
} satisfies Record<string, Intl.DateTimeFormatOptions>

export type DateStyle = keyof typeof STYLES

/** What the root loader gives every page (app/root.tsx). */
export type RootLocaleData = { locale: string }

/** Made once per locale and style: a formatter is costly to make, cheap to use. Bounded by the runtime's locales. */
const formats = new Map<string, Intl.DateTimeFormat>()

/** `value` (a Date, or its ISO string as a loader sends it) in `locale`, in one of the store's styles. */
export function formatDate(value: Date | string, style: DateStyle, locale: string): string {
  const key = `${locale} ${style}`
  let format = formats.get(key)
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { ...STYLES[style], timeZone: 'UTC' })
    formats.set(key, format)
  }
  return format.format(typeof value === 'string' ? new Date(value) : value)
}

/** The reader's locale, as the root loader resolved it from their request. */
export function useLocale(): string {
  const root = useRouteLoaderData('root') as Partial<RootLocaleData> | undefined
  return root?.locale ?? DEFAULT_LOCALE
}

/** `formatDate` in the reader's locale, for text that is not a `<FormattedDate>` (a label, a chart's axis). */
export function useFormatDate(): (value: Date | string, style: DateStyle) => string {
  const locale = useLocale()
  return (value, style) => formatDate(value, style, locale)
}
