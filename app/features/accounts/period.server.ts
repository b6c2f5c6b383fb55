import { z } from 'zod'
import {
  FIRST_YEAR,
  LAST_YEAR,
  MAX_PERIOD_YEARS,
  PERIOD_FIELDS,
  PERIOD_KINDS,
  type AccountingPeriod,
  type PeriodErrors,
  type PeriodField,
  type PeriodForm,
} from './period.ts'

/**
 * The time zone the accounts' periods are in. The store has no time zone setting yet, so UTC: a month is
 * from midnight UTC on its first day. The queries take the zone as a parameter, so a setting only changes this.
 */
export const ACCOUNTS_TIME_ZONE = 'UTC'

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

const inYears = (year: number) => year >= FIRST_YEAR && year <= LAST_YEAR
const yearsMessage = `Choose a year from ${FIRST_YEAR} to ${LAST_YEAR}.`

const isRealDay = (value: string) => {
  const parsed = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value
}

const daySchema = (missing: string) =>
  z
    .string({ error: missing })
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter a date as YYYY-MM-DD.')
    .refine(isRealDay, 'That day does not exist.')
    .refine((value) => inYears(Number(value.slice(0, 4))), yearsMessage)

/** The page's GET form: one kind of period and its field; an empty or missing kind is this month. */
const PeriodSchema = z.discriminatedUnion(
  'period',
  [
    z.object({
      period: z.literal('month'),
      month: z
        .string({ error: 'Choose a month.' })
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Enter a month as YYYY-MM.')
        .refine((value) => inYears(Number(value.slice(0, 4))), yearsMessage),
    }),
    z.object({
      period: z.literal('quarter'),
      quarter: z
        .string({ error: 'Choose a quarter.' })
        .regex(/^\d{4}-Q[1-4]$/, 'Enter a quarter as YYYY-Q1 to YYYY-Q4.')
        .refine((value) => inYears(Number(value.slice(0, 4))), yearsMessage),
    }),
    z.object({
      period: z.literal('year'),
      year: z
        .string({ error: 'Choose a year.' })
        .regex(/^\d{4}$/, 'Enter a year as YYYY.')
        .refine((value) => inYears(Number(value)), yearsMessage),
    }),
    z.object({
      period: z.literal('custom'),
      from: daySchema('Enter the first day.'),
      to: daySchema('Enter the last day.'),
    }),
  ],
  { error: 'Choose a month, a quarter, a year or a custom period.' },
)

const pad = (n: number) => String(n).padStart(2, '0')
/** The last day of a month (1–12) of a year. */
const lastDayOf = (year: number, month: number) =>
  `${year}-${pad(month)}-${pad(new Date(Date.UTC(year, month, 0)).getUTCDate())}`

/** `at`'s calendar date in `timeZone` ('YYYY-MM-DD'). */
export function dayIn(at: Date, timeZone: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at)
}

/** What the form shows for these query parameters: empty fields as ''; no kind at all is this month. */
export function periodForm(params: URLSearchParams, today: string): PeriodForm {
  const form = Object.fromEntries(
    PERIOD_FIELDS.map((field) => [field, params.get(field)?.trim() ?? '']),
  ) as PeriodForm
  if (!form.period) return { ...form, period: 'month', month: form.month || today.slice(0, 7) }
  return form
}

/**
 * The period `form` asks for, as calendar days in `timeZone`, or the message for each field that is wrong.
 * Only the chosen kind's field is read (the others are sent too: the form shows them all). A custom period
 * longer than MAX_PERIOD_YEARS is refused: the page and its files are read from the orders themselves.
 */
export function resolvePeriod(
  form: PeriodForm,
  timeZone: string,
): { ok: true; period: AccountingPeriod } | { ok: false; errors: PeriodErrors } {
  const chosen = (PERIOD_KINDS as readonly string[]).includes(form.period) ? form.period : ''
  const fields: PeriodField[] = !chosen
    ? ['period']
    : chosen === 'custom'
      ? ['period', 'from', 'to']
      : ['period', chosen as PeriodField]
  const raw = Object.fromEntries(fields.flatMap((field) => (form[field] ? [[field, form[field]]] : [])))
  const parsed = PeriodSchema.safeParse(raw)
  if (!parsed.success) {
    const errors: PeriodErrors = {}
    for (const issue of parsed.error.issues) {
      const field = (issue.path[0] ?? 'period') as PeriodField
      errors[field] ??= issue.message
    }
    return { ok: false, errors }
  }
  const value = parsed.data
  const period = (kind: AccountingPeriod['kind'], from: string, to: string, label: string, slug: string) => ({
    ok: true as const,
    period: { kind, from, to, timeZone, label, slug },
  })
  switch (value.period) {
    case 'month': {
      const [year, month] = value.month.split('-').map(Number) as [number, number]
      return period(
        'month',
        `${value.month}-01`,
        lastDayOf(year, month),
        `${MONTHS[month - 1]} ${year}`,
        value.month,
      )
    }
    case 'quarter': {
      const year = Number(value.quarter.slice(0, 4))
      const quarter = Number(value.quarter.slice(-1))
      const first = 3 * quarter - 2
      return period(
        'quarter',
        `${year}-${pad(first)}-01`,
        lastDayOf(year, first + 2),
        `Q${quarter} ${year}`,
        value.quarter,
      )
    }
    case 'year':
      return period('year', `${value.year}-01-01`, `${value.year}-12-31`, value.year, value.year)
    case 'custom': {
      const { from, to } = value
      if (to < from) return { ok: false, errors: { to: 'The last day must not be before the first.' } }
      if (to >= addYears(from, MAX_PERIOD_YEARS))
        return { ok: false, errors: { to: `Choose a period of at most ${MAX_PERIOD_YEARS} years.` } }
      return period('custom', from, to, `${from} to ${to}`, `${from}-to-${to}`)
    }
  }
}

/** The same day `years` later ('2024-02-29' + 1 → '2025-03-01'). */
function addYears(day: string, years: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(year + years, month - 1, date)).toISOString().slice(0, 10)
}

/** The period a request's query asks for, in the accounts' time zone: the form as shown, and the period or errors. */
export function readAccountsPeriod(params: URLSearchParams, now = new Date()) {
  const timeZone = ACCOUNTS_TIME_ZONE
  const form = periodForm(params, dayIn(now, timeZone))
  return { form, timeZone, resolved: resolvePeriod(form, timeZone) }
}
