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

const giftFields = ['recipientEmail', 'recipientName', 'message', 'deliverOn'] as const
export type GiftField = (typeof giftFields)[number]

export type GiftFormResult =
  | { ok: true; gift: z.output<ReturnType<typeof giftFormSchema>> }
  | { ok: false; errors: Partial<Record<GiftField, string>>; values: Record<GiftField, string> }

/**
 * A posted gift form, checked: the gift, or each field's first problem with what was typed. A gift is for
 * someone else: the buyer's own address is refused (their cart is the way to buy for themselves).
 */
export function parseGiftForm(form: FormData, buyerEmail: string, today = new Date()): GiftFormResult {
  const values = Object.fromEntries(
    giftFields.map((name) => [name, String(form.get(name) ?? '').slice(0, 2000)]),
  ) as Record<GiftField, string>
  const parsed = giftFormSchema(today).safeParse(values)
  if (!parsed.success) {
    const errors: Partial<Record<GiftField, string>> = {}
    for (const issue of parsed.error.issues) errors[issue.path[0] as GiftField] ??= issue.message
    return { ok: false, errors, values }
  }
  if (parsed.data.recipientEmail === buyerEmail.toLowerCase())
    return {
      ok: false,
      errors: { recipientEmail: 'A gift is for someone else: to buy it for yourself, add it to your cart.' },
      values,
    }
  return { ok: true, gift: parsed.data }
}
