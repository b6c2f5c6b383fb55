import { Form } from 'react-router'
import { TextField } from '#app/components/ui/text-field.tsx'
import type { CartCoupon } from '../cart-coupon.ts'

const button =
  'inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2 text-sm font-medium hover:bg-slate-100 dark:border-gray-500 dark:hover:bg-gray-800'

/**
 * The cart's coupon (issue 30): a code to apply, or the one on the cart with what it did and a way to take it
 * off. Works without JavaScript (plain posts to /cart).
 */
export function CouponForm({
  coupon,
  error,
  notice,
  typed,
}: {
  coupon: CartCoupon | null
  error?: string
  notice?: string
  typed?: string
}) {
  return (
    <div className="flex max-w-sm flex-col gap-3" id="coupon">
      {notice ? (
        <p role="status" className="text-sm font-medium text-emerald-800 dark:text-emerald-300">
          {notice}
        </p>
      ) : null}
      {coupon ? (
        <div className="flex flex-wrap items-center gap-3">
          <p className="text-sm">
            Coupon <strong className="font-mono">{coupon.code}</strong>
            {coupon.applied ? ' applied.' : '.'}
            {coupon.message ? (
              <span className="block text-red-700 dark:text-red-300">{coupon.message}</span>
            ) : null}
          </p>
          <Form method="post" action="/cart">
            <input type="hidden" name="intent" value="remove-coupon" />
            <button type="submit" className={button} aria-label={`Remove coupon ${coupon.code}`}>
              Remove
            </button>
          </Form>
        </div>
      ) : null}
      <Form method="post" action="/cart" className="flex items-end gap-3">
        <input type="hidden" name="intent" value="apply-coupon" />
        <TextField
          label={coupon ? 'Another coupon code' : 'Coupon code'}
          name="couponCode"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          maxLength={32}
          required
          requiredMessage="Enter a coupon code"
          defaultValue={typed}
          error={error}
        />
        <button type="submit" className={`${button} mb-px`}>
          Apply
        </button>
      </Form>
    </div>
  )
}
