import { z } from 'zod'
import {
  BUYER_FILTER_MAX_LENGTH,
  ORDER_STATUS_OPTIONS,
  REFUND_REASON_MAX_LENGTH,
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

/** The refund form on an order's page: a ticked confirmation, and an optional reason for the audit log. */
export const RefundFormSchema = z.object({
  confirm: z.literal('yes', { error: 'Tick the box to confirm the refund.' }),
  reason: z
    .string()
    .trim()
    .max(REFUND_REASON_MAX_LENGTH, `At most ${REFUND_REASON_MAX_LENGTH} characters.`)
    .default(''),
})

/**
 * The refund form as posted: its confirmation and reason, or each field's first problem and the reason as
 * typed (the form shows it again).
 */
export function parseRefundForm(
  form: FormData,
):
  | { ok: true; data: z.infer<typeof RefundFormSchema> }
  | { ok: false; fieldErrors: Partial<Record<'confirm' | 'reason', string>>; reason: string } {
  const reason = form.get('reason')
  const parsed = RefundFormSchema.safeParse({
    confirm: form.get('confirm') ?? undefined,
    reason: reason ?? undefined,
  })
  if (parsed.success) return { ok: true, data: parsed.data }
  return {
    ok: false,
    fieldErrors: firstErrors(parsed.error),
    reason: typeof reason === 'string' ? reason : '',
  }
}
