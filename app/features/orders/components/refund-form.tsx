import { Form } from 'react-router'
import { dangerButton } from '#app/components/ui/button-styles.ts'
import { REFUND_REASON_MAX_LENGTH } from '../admin-order-filters.ts'

/** What the refund form's action answers when it does not refund: each field's problem and the values typed. */
export type RefundFormResult = {
  fieldErrors?: Partial<Record<'confirm' | 'reason' | 'scope' | 'lines' | 'amount', string>>
  formError?: string
  reason?: string
  scope?: string
  lines?: string[]
  amount?: string
}

const errorText = 'text-sm text-red-700 dark:text-red-300'
const input =
  'rounded-lg border border-slate-400 bg-white px-3 py-2 text-slate-900 dark:border-gray-500 dark:bg-gray-900 dark:text-slate-100'

/**
 * The back office's refund form (decision 014, issue 31): everything left, the books ticked (each its whole
 * rest) or an amount spread over the books; a reason, a confirmation, and the form's key. Works without
 * JavaScript: the choice is a radio group, its books and amount fields always shown.
 */
export function RefundForm({
  order,
  lines,
  refundKey,
  result,
  submitting,
}: {
  order: { number: number; buyerEmail: string; left: string; currency: string }
  /** The lines with something left to refund. */
  lines: { bookId: string; title: string; left: string }[]
  refundKey: string
  result: RefundFormResult | undefined
  submitting: boolean
}) {
  const errors = result?.fieldErrors ?? {}
  const scope = result?.scope ?? 'everything'
  const described = (field: keyof typeof errors) =>
    errors[field] ? { 'aria-invalid': true, 'aria-describedby': `refund-${field}-error` } : {}
  // A group names its problem; only a field is marked invalid (aria-invalid is not for groups).
  const groupDescribed = (field: keyof typeof errors) =>
    errors[field] ? { 'aria-describedby': `refund-${field}-error` } : {}
  const error = (field: keyof typeof errors) =>
    errors[field] ? (
      <p id={`refund-${field}-error`} className={errorText}>
        {errors[field]}
      </p>
    ) : null
  return (
    <Form method="post" className="flex flex-col gap-4">
      <input type="hidden" name="intent" value="refund" />
      <input type="hidden" name="key" value={refundKey} />
      <fieldset className="flex flex-col gap-2" {...groupDescribed('scope')}>
        <legend className="mb-1 text-sm font-medium">What to refund</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="scope" value="everything" defaultChecked={scope === 'everything'} />
          Everything left ({order.left})
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="scope" value="lines" defaultChecked={scope === 'lines'} />
          The books ticked below, each in full
        </label>
        <fieldset className="ml-6 flex flex-col gap-1" {...groupDescribed('lines')}>
          <legend className="sr-only">Books to refund</legend>
          {lines.map((line) => (
            <label key={line.bookId} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name="line"
                value={line.bookId}
                defaultChecked={result?.lines?.includes(line.bookId)}
              />
              {line.title} ({line.left} left)
            </label>
          ))}
          {error('lines')}
        </fieldset>
        <label className="flex items-center gap-2 text-sm">
          <input type="radio" name="scope" value="amount" defaultChecked={scope === 'amount'} />
          An amount, spread over the books in proportion to what is left of each
        </label>
        <div className="ml-6 flex flex-col gap-1">
          <label htmlFor="refund-amount" className="text-sm font-medium">
            Amount ({order.currency})
          </label>
          <input
            id="refund-amount"
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            defaultValue={result?.amount ?? ''}
            className={`${input} w-40`}
            {...described('amount')}
          />
          {error('amount')}
        </div>
        {error('scope')}
      </fieldset>
      <div className="flex flex-col gap-1">
        <label htmlFor="refund-reason" className="text-sm font-medium">
          Reason (optional, kept in the audit log)
        </label>
        <textarea
          id="refund-reason"
          name="reason"
          rows={3}
          maxLength={REFUND_REASON_MAX_LENGTH}
          defaultValue={result?.reason ?? ''}
          className={input}
          {...described('reason')}
        />
        {error('reason')}
      </div>
      <div className="flex flex-col gap-1">
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" name="confirm" value="yes" required {...described('confirm')} />
          Yes, refund order #{order.number} to {order.buyerEmail}
        </label>
        {error('confirm')}
      </div>
      <div>
        <button type="submit" className={dangerButton} disabled={submitting}>
          Refund
        </button>
      </div>
    </Form>
  )
}
