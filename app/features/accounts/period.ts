/** The accounts' periods as the page's form and its links know them (browser-safe; parsed in period.server.ts). */

export const PERIOD_KINDS = ['month', 'quarter', 'year', 'custom'] as const
export type PeriodKind = (typeof PERIOD_KINDS)[number]

export const PERIOD_FIELDS = ['period', 'month', 'quarter', 'year', 'from', 'to'] as const
export type PeriodField = (typeof PERIOD_FIELDS)[number]
export type PeriodForm = Record<PeriodField, string>
export type PeriodErrors = Partial<Record<PeriodField, string>>

/** The longest period the page reads: five years (a custom period from 1 March ends by the last of February). */
export const MAX_PERIOD_YEARS = 5

/** The earliest and latest years a period may fall in: the store's orders and the database's dates fit. */
export const FIRST_YEAR = 2000
export const LAST_YEAR = 2999

export type AccountingPeriod = {
  kind: PeriodKind
  /** First and last day, both included ('YYYY-MM-DD'), in `timeZone`. */
  from: string
  to: string
  timeZone: string
  /** 'March 2026', 'Q1 2026', '2026', '2026-01-05 to 2026-02-10'. */
  label: string
  /** For file names: '2026-03', '2026-Q1', '2026', '2026-01-05-to-2026-02-10'. */
  slug: string
}

/** The query string that asks for `form`'s period (only the chosen kind's field), for the download links. */
export function periodQuery(form: PeriodForm): string {
  const kind = form.period as PeriodKind
  const fields: PeriodField[] = kind === 'custom' ? ['period', 'from', 'to'] : ['period', kind]
  return new URLSearchParams(fields.map((field) => [field, form[field]])).toString()
}
