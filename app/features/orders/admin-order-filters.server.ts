import { z } from 'zod'
import {
  BUYER_FILTER_MAX_LENGTH,
  ORDER_STATUS_OPTIONS,
  REFUND_REASON_MAX_LENGTH,
  REFUND_SCOPES,
  type OrderFilterField,
} from './admin-order-filters.ts'

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-11-25.')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`)
    // PostgreSQL counts no year 0 (1 BC comes before AD 1): it refuses 0000-… where JavaScript takes it.
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) && !value.startsWith('0000')
  }, 'This is not a real date.')

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    schema.optional(),
  )

/**
 * The filters of /admin/orders and its CSV export, from the query string: the same rules for the form (as
 * HTML constraints) and the server. Empty fields mean 'any'. Dates are whole UTC days, both included.
 */
export const OrderFiltersSchema = z
  .object({
    status: optional(z.enum(ORDER_STATUS_OPTIONS, { error: 'Choose one of the listed statuses.' })),
    from: optional(isoDate),
    to: optional(isoDate),
    buyer: optional(
      z.string().trim().max(BUYER_FILTER_MAX_LENGTH, `At most ${BUYER_FILTER_MAX_LENGTH} characters.`),
    ),
    book: optional(z.uuid({ error: 'Choose a book from the list.' })),
  })
  .refine((filters) => !filters.from || !filters.to || filters.from <= filters.to, {
    path: ['to'],
    message: 'The end date is before the start date.',
  })

export type OrderFilters = z.infer<typeof OrderFiltersSchema>

/** The filters as the query string carried them (for the form), and the first problem with each. */
export function parseOrderFilters(params: URLSearchParams):
  | { ok: true; filters: OrderFilters; values: Record<OrderFilterField, string> }
  | {
      ok: false
      errors: Partial<Record<OrderFilterField, string>>
      values: Record<OrderFilterField, string>
    } {
  const values = {
    status: params.get('status') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    buyer: params.get('buyer') ?? '',
    book: params.get('book') ?? '',
  }
  const parsed = OrderFiltersSchema.safeParse(values)
  if (parsed.success) return { ok: true, filters: parsed.data, values }
  return { ok: false, errors: firstErrors(parsed.error), values }
}

/** Each field's first problem, as a form shows it next to the field. */
function firstErrors<Field extends string>(error: z.ZodError<Partial<Record<Field, unknown>>>) {
  const { fieldErrors } = z.flattenError(error)
  const errors: Partial<Record<Field, string>> = {}
  for (const field of Object.keys(fieldErrors) as Field[]) errors[field] = fieldErrors[field]?.[0]
  return errors
}

/**
 * An amount of money as typed ('12', '12.5', '12.50') in whole cents, or the message for its field: never a
 * float on the way (0.1 + 0.2 is not 0.3), and never more than two decimals.
 */
export function parseAmountCents(text: string): { ok: true; cents: number } | { ok: false; message: string } {
  const value = text.trim()
  if (value === '') return { ok: false, message: 'Enter the amount to refund.' }
  if (/^-/.test(value)) return { ok: false, message: 'Enter an amount above 0.' }
  const match = /^(\d{1,9})(?:\.(\d+))?$/.exec(value)
  if (!match) return { ok: false, message: 'Enter an amount like 12.50.' }
  const decimals = match[2] ?? ''
  if (decimals.length > 2) return { ok: false, message: 'At most two decimals: whole cents.' }
  const cents = Number(match[1]) * 100 + Number(decimals.padEnd(2, '0'))
  if (cents === 0) return { ok: false, message: 'Enter an amount above 0.' }
  return { ok: true, cents }
}

export type RefundFormField = 'confirm' | 'reason' | 'scope' | 'lines' | 'amount'

/**
 * The refund form on an order's page: what to refund (everything left, the books ticked, or an amount), a ticked
 * confirmation, an optional reason for the audit log and the credit note, and the form's key (fresh in each
 * rendering) that makes a second post of the same form no second refund. A form without a scope is
 * 'everything' (the form before partial refunds).
 */
export const RefundFormSchema = z
  .object({
    confirm: z.literal('yes', { error: 'Tick the box to confirm the refund.' }),
    reason: z
      .string()
      .trim()
      .max(REFUND_REASON_MAX_LENGTH, `At most ${REFUND_REASON_MAX_LENGTH} characters.`)
      .default(''),
    scope: z.enum(REFUND_SCOPES, { error: 'Choose what to refund.' }).default('everything'),
    lines: z.array(z.uuid({ error: 'Choose books of this order.' })).default([]),
    amount: z.string().default(''),
    key: z.string().trim().max(100).optional(),
  })
  .superRefine((form, context) => {
    if (form.scope === 'lines' && form.lines.length === 0)
      context.addIssue({ code: 'custom', path: ['lines'], message: 'Choose at least one book to refund.' })
    if (form.scope === 'amount') {
      const amount = parseAmountCents(form.amount)
      if (!amount.ok) context.addIssue({ code: 'custom', path: ['amount'], message: amount.message })
    }
  })
  .transform(({ scope, lines, amount, ...form }) => ({
    ...form,
    what:
      scope === 'lines'
        ? ({ kind: 'lines', bookIds: lines } as const)
        : scope === 'amount'
          ? ({ kind: 'amount', cents: (parseAmountCents(amount) as { cents: number }).cents } as const)
          : ({ kind: 'everything' } as const),
  }))

/** What the refund form showed, to show it again with its errors. */
export type RefundFormValues = { reason: string; scope: string; lines: string[]; amount: string }

/**
 * The refund form as posted: what to refund, the reason and the key; or each field's first problem and the
 * values as typed (the form shows them again).
 */
export function parseRefundForm(
  form: FormData,
):
  | { ok: true; data: z.infer<typeof RefundFormSchema>; values: RefundFormValues }
  | { ok: false; fieldErrors: Partial<Record<RefundFormField, string>>; values: RefundFormValues } {
  const text = (name: string) => {
    const value = form.get(name)
    return typeof value === 'string' ? value : undefined
  }
  const lines = form.getAll('line').filter((value): value is string => typeof value === 'string')
  const values = {
    reason: text('reason') ?? '',
    scope: text('scope') ?? 'everything',
    lines,
    amount: text('amount') ?? '',
  }
  const parsed = RefundFormSchema.safeParse({
    confirm: text('confirm'),
    reason: text('reason'),
    scope: text('scope') || undefined,
    lines,
    amount: text('amount'),
    key: text('key'),
  })
  if (parsed.success) return { ok: true, data: parsed.data, values }
  return { ok: false, fieldErrors: firstErrors(parsed.error), values }
}
