import { z } from 'zod'
import { RANGE_CHOICES, type RangeChoice } from './range-choices.ts'

const DAY_MS = 86_400_000
/** The longest custom range: a year and a day (a leap year's worth, compared with the one before). */
export const MAX_RANGE_DAYS = 366

const isoDate = /^\d{4}-\d{2}-\d{2}$/

/** A calendar date as the browser's date input sends it, checked to be a real day. */
const DateSchema = z
  .string()
  .trim()
  .regex(isoDate, 'Enter a date as YYYY-MM-DD.')
  .refine((value) => {
    const parsed = new Date(`${value}T00:00:00Z`)
    return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value
  }, 'That day does not exist.')

/** The dashboard's GET form: a preset of the last 7, 30 or 90 days (today included), or from–to. */
export const AnalyticsRangeSchema = z
  .object({
    range: z.enum(RANGE_CHOICES, { error: 'Choose 7, 30 or 90 days, or a custom range.' }).default('30'),
    from: DateSchema.optional(),
    to: DateSchema.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.range !== 'custom') return
    if (!value.from) ctx.addIssue({ code: 'custom', path: ['from'], message: 'Enter the first day.' })
    if (!value.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'Enter the last day.' })
    if (value.from && value.to && value.from > value.to)
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'The last day must not be before the first.' })
  })

export type DayRange = { from: string; to: string; days: number }
export type ResolvedRange = DayRange & { choice: RangeChoice; previous: DayRange }
export type RangeErrors = Partial<Record<'range' | 'from' | 'to', string>>

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10)
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1
}

/**
 * The range the form asks for, as UTC days, and the period just before it of the same length; or the
 * message for each field that is wrong. Empty fields count as absent (a form sends from= and to= empty).
 */
export function resolveRange(
  params: URLSearchParams,
  today: string,
): { ok: true; range: ResolvedRange } | { ok: false; errors: RangeErrors } {
  // The date fields are sent with every choice (they show the range on screen); only 'custom' reads them.
  const fields =
    params.get('range')?.trim() === 'custom' ? (['range', 'from', 'to'] as const) : (['range'] as const)
  const raw = Object.fromEntries(
    fields.flatMap((name) => {
      const value = params.get(name)?.trim()
      return value ? [[name, value]] : []
    }),
  )
  const parsed = AnalyticsRangeSchema.safeParse(raw)
  if (!parsed.success) {
    // The first problem with each field (the form lists them all, and shows each beside its field).
    const { fieldErrors } = z.flattenError(parsed.error)
    const errors: RangeErrors = Object.fromEntries(
      Object.entries(fieldErrors).map(([field, messages]) => [field, messages?.[0]]),
    )
    return { ok: false, errors }
  }
  const { range: choice, from: customFrom, to: customTo } = parsed.data
  let from: string
  let to: string
  if (choice === 'custom') {
    from = customFrom!
    to = customTo!
    if (to > today)
      return { ok: false, errors: { to: `The last day cannot be after today (${today}, UTC).` } }
    if (daysBetween(from, to) > MAX_RANGE_DAYS)
      return { ok: false, errors: { from: `Choose at most ${MAX_RANGE_DAYS} days.` } }
  } else {
    to = today
    from = addDays(today, 1 - Number(choice))
  }
  const days = daysBetween(from, to)
  return {
    ok: true,
    range: { choice, from, to, days, previous: { from: addDays(from, -days), to: addDays(from, -1), days } },
  }
}
