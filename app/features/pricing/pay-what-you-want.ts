import { formatPrice } from '#app/features/catalog/format.ts'

/**
 * Pay what you want (issue 30): a book with a minimum (possibly 0) lets its reader choose the amount, from the
 * minimum up to the larger of ten times the suggested price and $1,000 (a typo's guard, not a limit on
 * generosity), in whole cents. The amount is checked here, on the server, whatever a form or a slider sent.
 */

export type PwywBook = { pwywMinCents: number | null; priceCents: number; currency: string }

export function pwywMaxCents(book: { priceCents: number }): number {
  return Math.max(100_000, book.priceCents * 10)
}

export const AMOUNT_PROBLEMS = ['fixed-price', 'missing', 'format', 'below-minimum', 'above-maximum'] as const
export type AmountProblem = (typeof AMOUNT_PROBLEMS)[number]

/** What a reader is told about an amount that cannot be taken, next to the field. */
export function amountMessage(problem: AmountProblem, book: PwywBook): string {
  const min = formatPrice(book.pwywMinCents ?? 0, book.currency)
  switch (problem) {
    case 'fixed-price':
      return 'This eBook has a fixed price.'
    case 'missing':
      return `Enter what you want to pay, ${min} or more.`
    case 'format':
      return `Enter an amount in dollars, like 12 or 12.50 (${min} or more).`
    case 'below-minimum':
      return `The least you can pay for this eBook is ${min}.`
    case 'above-maximum':
      return `At most ${formatPrice(pwywMaxCents(book), book.currency)}, please: thank you all the same!`
  }
}

export function parseChosenAmount(
  raw: unknown,
  book: PwywBook,
): { ok: true; cents: number } | { ok: false; problem: AmountProblem; message: string } {
  const refuse = (problem: AmountProblem) => ({
    ok: false as const,
    problem,
    message: amountMessage(problem, book),
  })
  if (book.pwywMinCents === null) return refuse('fixed-price')
  const text = typeof raw === 'string' ? raw.trim().replace(/^\$/, '') : ''
  if (text === '') return refuse('missing')
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(text)) return refuse('format')
  const cents = Math.round(Number(text) * 100)
  if (cents < book.pwywMinCents) return refuse('below-minimum')
  if (cents > pwywMaxCents(book)) return refuse('above-maximum')
  return { ok: true, cents }
}

/**
 * What the book's form shows after a refused amount: the cart sends the reader back with `?pwywError=` and
 * what they typed (`?amount=`); anything else in those parameters is ignored.
 */
export function refusedAmountOf(
  params: URLSearchParams,
  book: PwywBook,
): { error: string | null; typed: string | null } {
  const problem = AMOUNT_PROBLEMS.find((value) => value === params.get('pwywError'))
  return {
    error: problem ? amountMessage(problem, book) : null,
    typed: problem ? (params.get('amount') ?? '').slice(0, 12) : null,
  }
}
