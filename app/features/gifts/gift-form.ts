import { z } from 'zod'

/** How far ahead a gift may be dated. */
export const MAX_GIFT_DAYS_AHEAD = 365

/** The day (UTC) a date string names, or null: 'YYYY-MM-DD' that exists. */
function dayOf(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null
  const date = new Date(`${value}T00:00:00Z`)
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : date
}

/**
 * The gift form (a book's or a bundle's 'Give as a gift'): who receives it, an optional name and message, and
 * the day its mail goes (empty: today; at most a year ahead). Shared by the page and the action.
 */
export function giftFormSchema(today: Date) {
  const first = new Date(`${today.toISOString().slice(0, 10)}T00:00:00Z`)
  const last = new Date(first.getTime() + MAX_GIFT_DAYS_AHEAD * 86_400_000)
  return z.object({
    recipientEmail: z
      .string()
      .trim()
      .toLowerCase()
      .max(254, 'That email address is too long.')
      .pipe(z.email('Enter the email address of the person you give it to, e.g. ada@example.com.')),
    recipientName: z.string().trim().max(100, 'At most 100 characters.'),
    message: z.string().trim().max(1000, 'At most 1,000 characters.'),
    deliverOn: z
      .string()
      .trim()
      .transform((value, context) => {
        if (value === '') return first
        const day = dayOf(value)
        if (!day) {
          context.addIssue({
            code: 'custom',
            message: 'Enter a date as YYYY-MM-DD, or leave it empty for today.',
          })
          return z.NEVER
        }
        if (day < first || day > last) {
          context.addIssue({ code: 'custom', message: 'Choose a day from today to a year from now.' })
          return z.NEVER
        }
        return day
      }),
  })
}

export type GiftField = 'recipientEmail' | 'recipientName' | 'message' | 'deliverOn'
