import { z } from 'zod'
import { cardBrand, hasExpired, normalizeCardNumber, parseExpiry, passesLuhn } from './card.ts'
import { checkoutMessages, type CheckoutField } from './checkout-messages.ts'
import type { CardDetails } from './payments.server.ts'

/**
 * What every checkout form carries besides the card: the cart's key and this rendering's attempt id
 * (checkout.server.ts, getCheckout). A page that lacks them is out of date.
 */
export const CheckoutKeysSchema = z.object({
  idempotencyKey: z.string().min(1).max(100),
  attemptId: z.uuid(),
  /** A gift's checkout (issue 30): the gift the order pays for. */
  giftId: z.uuid().optional(),
})

type CheckoutKeys = { idempotencyKey: string; attemptId: string; giftId?: string }

const outOfDate = 'This checkout page is out of date. Please review your order and try again.'

/** The keys of a checkout form that has no card fields (the redirect provider's). */
export function parseCheckoutKeys(
  form: FormData,
): { ok: true; data: CheckoutKeys } | { ok: false; formError: string } {
  const parsed = CheckoutKeysSchema.safeParse({
    idempotencyKey: form.get('idempotencyKey') ?? undefined,
    attemptId: form.get('attemptId') ?? undefined,
    giftId: form.get('giftId') || undefined,
  })
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, formError: outOfDate }
}

/**
 * The test provider's card form. Anything else posted (a price, a total, a book id) is not read: the order is
 * made from the cart and the catalogue on the server.
 */
export const CardFormSchema = CheckoutKeysSchema.extend({
  name: z
    .string({ error: checkoutMessages.nameMissing })
    .trim()
    .min(1, checkoutMessages.nameMissing)
    .max(100, 'Please use at most 100 characters'),
  number: z
    .string({ error: checkoutMessages.numberMissing })
    .transform(normalizeCardNumber)
    .pipe(
      z.string().min(1, checkoutMessages.numberMissing).refine(passesLuhn, checkoutMessages.numberInvalid),
    ),
  expiry: z.string({ error: checkoutMessages.expiryInvalid }).transform((value, ctx) => {
    const expiry = parseExpiry(value)
    if (!expiry) {
      ctx.addIssue({ code: 'custom', message: checkoutMessages.expiryInvalid })
      return z.NEVER
    }
    if (hasExpired(expiry)) {
      ctx.addIssue({ code: 'custom', message: checkoutMessages.expiryPast })
      return z.NEVER
    }
    return `${String(expiry.month).padStart(2, '0')}/${String(expiry.year).slice(-2)}`
  }),
  cvc: z
    .string({ error: checkoutMessages.cvcInvalid })
    .trim()
    .regex(/^\d{3,4}$/, checkoutMessages.cvcInvalid),
})

export function parseCardForm(
  form: FormData,
):
  | { ok: true; data: CheckoutKeys & { card: CardDetails } }
  | { ok: false; errors: { fieldErrors: Partial<Record<CheckoutField, string>>; formError?: string } } {
  const text = (name: string) => {
    const value = form.get(name)
    return typeof value === 'string' ? value : undefined
  }
  const parsed = CardFormSchema.safeParse({
    idempotencyKey: text('idempotencyKey'),
    attemptId: text('attemptId'),
    giftId: text('giftId') || undefined,
    name: text('name'),
    number: text('number'),
    expiry: text('expiry'),
    cvc: text('cvc'),
  })
  if (!parsed.success) {
    const { idempotencyKey, attemptId, giftId, ...fields } = z.flattenError(parsed.error).fieldErrors
    // Each field's first problem; a page without its keys is out of date, whatever else is wrong.
    const fieldErrors = Object.fromEntries(
      Object.entries(fields).map(([field, messages]) => [field, messages[0]]),
    ) as Partial<Record<CheckoutField, string>>
    return {
      ok: false,
      errors: { fieldErrors, formError: idempotencyKey || attemptId || giftId ? outOfDate : undefined },
    }
  }
  const { idempotencyKey, attemptId, giftId, number, name, expiry, cvc } = parsed.data
  return {
    ok: true,
    data: {
      idempotencyKey,
      attemptId,
      ...(giftId ? { giftId } : {}),
      card: { number, brand: cardBrand(number), name, expiry, cvc },
    },
  }
}
