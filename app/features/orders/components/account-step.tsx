import { Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { cartTotals } from '#app/features/cart/cart-totals.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { AccountForm, type AccountActionData } from '#app/features/identity/components/account-form.tsx'
import { EmailField, PasswordField } from '#app/features/identity/components/credential-fields.tsx'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { CurrencyForm } from '#app/features/currency/components/currency-form.tsx'
import type { CurrencyOption } from '#app/features/currency/currencies.ts'
import { OrderLines } from './order-lines.tsx'

/** The words that say why buying needs an account; README says the same (decision 025). */
export const whyAnAccount =
  'Your eBooks are kept in your library, so you can download them again at any time, on any device, and the receipt goes to your email. It takes one step: an email and a password. Your cart comes with you.'

/**
 * The checkout page of a guest or a signed-out visitor (docs/decisions/025-guest-checkout.md): their cart, why
 * an account is needed, and the one-step form that creates it (the register page's rules and messages) and
 * brings them back to this page to pay, cart intact. A plain form post: it works without JavaScript.
 */
export function AccountStep({
  lines,
  isGuest,
  currency,
  actionData,
}: {
  lines: readonly BookLine[]
  isGuest: boolean
  /** The buyer's currency and the others offered (features/currency), with the cart's note if any. */
  currency: { options: readonly CurrencyOption[]; chosen: string; fallback: string | null }
  actionData: AccountActionData | undefined
}) {
  const loginHref = `/login?${new URLSearchParams({ redirectTo: '/checkout' })}`
  return (
    <section className="mx-auto max-w-3xl px-4 py-12">
      <SectionHeading level={1}>Checkout</SectionHeading>
      {lines.length === 0 ? (
        <div className="flex flex-col items-center gap-6 py-8 text-center">
          <p className="text-lg">Your cart is empty: there is nothing to pay for.</p>
          <Link to="/AllBooks" className={primaryButton}>
            Browse all eBooks
          </Link>
        </div>
      ) : (
        <div className="grid gap-10 md:grid-cols-2">
          <div>
            <h2 className="mb-4 text-xl font-semibold">Your order</h2>
            {currency.fallback ? (
              <p role="status" className="mb-4 text-sm text-sky-900 dark:text-sky-100">
                {currency.fallback}
              </p>
            ) : null}
            <OrderLines lines={lines} />
            <dl className="mt-4 flex flex-col gap-1 text-xl font-semibold">
              {cartTotals(lines).map((total) => (
                <div key={total.currency} className="flex justify-between">
                  <dt>Total</dt>
                  <dd>{formatPrice(total.cents, total.currency)}</dd>
                </div>
              ))}
            </dl>
            <div className="mt-4">
              <CurrencyForm options={currency.options} current={currency.chosen} redirectTo="/checkout" />
            </div>
          </div>
          <div className="flex flex-col gap-4">
            <h2 className="text-xl font-semibold">Create your account to pay</h2>
            <p className="text-sm text-slate-700 dark:text-slate-300">
              {isGuest ? 'You are shopping as a guest. ' : null}
              {whyAnAccount}
            </p>
            <AccountForm
              action="/checkout"
              actionData={actionData}
              submitLabel="Create account and continue"
              pendingLabel="Creating your account…"
              redirectTo={undefined}
            >
              <input type="hidden" name="intent" value="create-account" />
              <EmailField
                autoComplete="email"
                defaultValue={actionData?.email}
                error={actionData?.fieldErrors?.email}
              />
              <PasswordField kind="new" error={actionData?.fieldErrors?.password} />
            </AccountForm>
            <p className="text-center text-sm">
              Already registered?{' '}
              <Link to={loginHref} className="font-medium text-blue-700 underline dark:text-sky-300">
                Login
              </Link>
            </p>
          </div>
        </div>
      )}
    </section>
  )
}
