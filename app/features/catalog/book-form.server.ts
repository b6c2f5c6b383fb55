import { z } from 'zod'
import {
  BOOK_FORM_LIMITS,
  BOOK_LEVEL_OPTIONS,
  BOOK_STATUS_OPTIONS,
  bookFields,
  SLUG_PATTERN,
  slugify,
  type BookFieldErrors,
  type BookFormValues,
} from './book-form.ts'
import { splitTopicNames } from './topic-names.ts'

/** The book form's one schema: every action that saves a book reads the post through it. */
const trimmed = (value: unknown) => (typeof value === 'string' ? value.trim() : value)
const checkbox = z.preprocess((value) => value === 'on' || value === 'true', z.boolean())

function whole(label: string, min: number, max: number) {
  return z.preprocess(
    trimmed,
    z
      .string({ error: `Please enter the ${label}.` })
      .min(1, `Please enter the ${label}.`)
      .regex(/^\d+$/, `The ${label} is a whole number, like 2999.`)
      .transform(Number)
      .pipe(
        z
          .number()
          .int()
          .min(min, `The ${label} is at least ${min}.`)
          .max(max, `The ${label} is at most ${max}.`),
      ),
  )
}

function text(label: string, max: number) {
  return z.preprocess(
    trimmed,
    z
      .string({ error: `Please enter the ${label}.` })
      .min(1, `Please enter the ${label}.`)
      .max(max, `The ${label} has at most ${max} characters.`),
  )
}

const FeaturedPositionSchema = whole('featured order', 1, BOOK_FORM_LIMITS.featuredPositionMax)

/**
 * A price as typed ('29.99', '29', '.5') in cents, with the rules and words of the book's price: its own price
 * and its prices in other currencies (decision 040) are checked alike.
 */
function priceSchema(label: string, amount: string) {
  const The = `The ${label}`
  return z
    .string({ error: `Please enter the ${label}.` })
    .min(1, `Please enter the ${label}.`)
    .refine((price) => !price.startsWith('-'), `${The} cannot be negative.`)
    .refine((price) => !/^\d*\.\d{3,}$/.test(price), 'A price has at most 2 decimals, like 29.99.')
    .regex(/^(\d+(\.\d{0,2})?|\.\d{1,2})$/, `${The} is ${amount}, like 29.99.`)
    .transform((price) => Math.round(Number(price) * 100))
    .pipe(
      z
        .number()
        .max(
          BOOK_FORM_LIMITS.priceMaxCents,
          `${The} is at most ${(BOOK_FORM_LIMITS.priceMaxCents / 100).toLocaleString('en')}.`,
        ),
    )
}

export const BookFormSchema = z
  .object({
    title: text('title', BOOK_FORM_LIMITS.titleMax),
    // Left empty, the slug is made from the title (the form fills it as the title is typed, with JavaScript).
    slug: z.preprocess(
      (value) => (typeof value === 'string' ? value.trim().toLowerCase() : ''),
      z
        .string()
        .max(BOOK_FORM_LIMITS.slugMax, `A slug has at most ${BOOK_FORM_LIMITS.slugMax} characters.`)
        .refine(
          (slug) => slug === '' || SLUG_PATTERN.test(slug),
          'Use lower-case letters, digits and single hyphens, like learn-rust-fast.',
        ),
    ),
    author: text('author', BOOK_FORM_LIMITS.authorMax),
    description: z.preprocess(
      // Browsers post line breaks as CRLF.
      (value) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : value),
      z
        .string({ error: 'Please write a description.' })
        .min(1, 'Please write a description.')
        .max(
          BOOK_FORM_LIMITS.descriptionMax,
          `A description has at most ${BOOK_FORM_LIMITS.descriptionMax.toLocaleString('en')} characters.`,
        ),
    ),
    price: z.preprocess(trimmed, priceSchema('price', 'an amount in dollars')),
    // Pay what you want (issue 30): the least a reader may pay; empty for a fixed price.
    pwywMin: z.preprocess(
      trimmed,
      z
        .string()
        .optional()
        .transform((value, context) => {
          if (!value) return null
          if (!/^(\d+(\.\d{0,2})?|\.\d{1,2})$/.test(value)) {
            context.addIssue({
              code: 'custom',
              message: 'The minimum is an amount in dollars, like 5 or 0; leave it empty for a fixed price.',
            })
            return z.NEVER
          }
          return Math.round(Number(value) * 100)
        }),
    ),
    currency: z.preprocess(
      (value) => (typeof value === 'string' ? value.trim().toUpperCase() : value),
      z.string({ error: 'Please enter a currency.' }).regex(/^[A-Z]{3}$/, 'Use a 3-letter code, like USD.'),
    ),
    topics: z.preprocess(
      (value) => (typeof value === 'string' ? splitTopicNames(value) : []),
      z
        .array(
          z
            .string()
            .max(BOOK_FORM_LIMITS.topicMax, `A topic has at most ${BOOK_FORM_LIMITS.topicMax} characters.`),
        )
        .max(BOOK_FORM_LIMITS.topicsMax, `At most ${BOOK_FORM_LIMITS.topicsMax} topics.`),
    ),
    level: z
      .enum(BOOK_LEVEL_OPTIONS, { error: 'Please choose a level.' })
      .transform((level) => (level === 'none' ? null : level)),
    featured: checkbox,
    featuredPosition: z.preprocess(trimmed, z.string().optional()),
    bestSeller: checkbox,
    status: z.enum(BOOK_STATUS_OPTIONS, { error: 'Please choose a status.' }),
  })
  .transform(({ price, pwywMin, ...form }) => ({
    ...form,
    priceCents: price,
    pwywMinCents: pwywMin ?? null,
    slug: form.slug || slugify(form.title),
  }))
  .superRefine((book, context) => {
    if (book.pwywMinCents !== null && book.pwywMinCents > book.priceCents)
      context.addIssue({
        code: 'custom',
        path: ['pwywMin'],
        message: 'The minimum cannot be above the price (the price is what readers are suggested).',
      })
    if (!book.slug)
      context.addIssue({
        code: 'custom',
        path: ['slug'],
        message: 'Please enter a slug: the title has no letters or digits.',
      })
  })
  .transform((form, context) => {
    const { featuredPosition: rawPosition, ...book } = form
    if (!form.featured) return { ...book, featuredPosition: null }
    const position = FeaturedPositionSchema.safeParse(rawPosition)
    if (!position.success) {
      context.addIssue({
        code: 'custom',
        path: ['featuredPosition'],
        message: position.error.issues[0]?.message ?? 'Please enter the featured order.',
      })
      return z.NEVER
    }
    return { ...book, featuredPosition: position.data }
  })

export type BookInput = z.output<typeof BookFormSchema>

/** The first problem with each field; one with the form as a whole under `form`. */
export function bookFieldErrors(error: z.ZodError): BookFieldErrors {
  const flat = z.flattenError(error)
  const fieldErrors: Partial<Record<string, string[]>> = flat.fieldErrors
  const errors: BookFieldErrors = Object.fromEntries(
    Object.entries(fieldErrors).map(([field, messages]) => [field, messages?.[0]]),
  )
  if (flat.formErrors[0]) errors.form = flat.formErrors[0]
  return errors
}

/** The posted book fields as typed (text only; a file or a missing field is left out). */
export function bookFormValues(form: FormData): BookFormValues {
  const values: BookFormValues = {}
  for (const field of bookFields) {
    const value = form.get(field)
    if (typeof value === 'string') values[field] = value
  }
  return values
}

/** Reads and checks a posted book form: the book, or the values as typed with an error per field. */
export function parseBookForm(
  form: FormData,
):
  | { ok: true; input: BookInput; values: BookFormValues }
  | { ok: false; values: BookFormValues; fieldErrors: BookFieldErrors } {
  const values = bookFormValues(form)
  const parsed = BookFormSchema.safeParse(values)
  if (parsed.success) return { ok: true, input: parsed.data, values }
  const fieldErrors = bookFieldErrors(parsed.error)
  // zod checks the featured order only once every other field is valid: report it with the others.
  if (values.featured === 'on' && !fieldErrors.featuredPosition) {
    const position = FeaturedPositionSchema.safeParse(values.featuredPosition)
    if (!position.success) fieldErrors.featuredPosition = position.error.issues[0]?.message
  }
  return { ok: false, values, fieldErrors }
}

/** The book form's field for its price in `currency` (decision 040). */
export function otherPriceField(currency: string): string {
  return `price-${currency}`
}

export type OtherPrices =
  | {
      ok: true
      /** In cents by currency; null: not sold in it. */
      prices: Record<string, number | null>
      values: Record<string, string>
    }
  | { ok: false; values: Record<string, string>; errors: Record<string, string> }

/**
 * A book's prices in the store's other currencies, posted with its form (`price-EUR`…): each optional (empty: not
 * sold in that currency; no field: left as it is), checked as the price is. `ownCurrency` is the book's currency as posted: a price in it
 * is the price above, so one typed here too is refused rather than silently dropped.
 */
export function parseOtherPrices(
  form: FormData,
  currencies: readonly string[],
  ownCurrency: string | undefined,
): OtherPrices {
  const values: Record<string, string> = {}
  const prices: Record<string, number | null> = {}
  const errors: Record<string, string> = {}
  for (const currency of currencies) {
    const raw = form.get(otherPriceField(currency))
    // No field (a form from before the store offered it): that price is left as it is.
    if (typeof raw !== 'string') continue
    const typed = raw.trim()
    values[currency] = typed
    if (typed === '') {
      prices[currency] = null
      continue
    }
    if (currency === ownCurrency) {
      errors[currency] = `${currency} is the book’s own currency: its price is the price above.`
      continue
    }
    const parsed = priceSchema(`${currency} price`, 'an amount').safeParse(typed)
    if (parsed.success) prices[currency] = parsed.data
    else errors[currency] = parsed.error.issues[0]?.message ?? `Please check the ${currency} price.`
  }
  return Object.keys(errors).length > 0 ? { ok: false, values, errors } : { ok: true, prices, values }
}
