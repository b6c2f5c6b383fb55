import { useEffect, useRef } from 'react'
import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { recordEvent } from '#app/features/analytics/record.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { register } from '#app/features/identity/account.server.ts'
import { FormError } from '#app/features/identity/components/account-notice.tsx'
import type { AccountActionData } from '#app/features/identity/components/account-form.tsx'
import { getSessionUser, requireUser } from '#app/features/identity/session.server.ts'
import { removeOwnedBooksFromCart } from '#app/features/cart/cart.server.ts'
import { readCartPricing } from '#app/features/pricing/cart-forms.server.ts'
import { findGiftDraft } from '#app/features/gifts/gifts.server.ts'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { findVisitorCart } from '#app/features/cart/visitor-cart.server.ts'
import { AccountStep } from '#app/features/orders/components/account-step.tsx'
import { checkoutWithCard } from '#app/features/orders/card-checkout.server.ts'
import { OrderLines } from '#app/features/orders/components/order-lines.tsx'
import { parseCardForm, parseCheckoutKeys } from '#app/features/orders/checkout-form.server.ts'
import type { CheckoutField } from '#app/features/orders/checkout-messages.ts'
import { CheckoutNotices } from '#app/features/orders/components/checkout-notices.tsx'
import { TestCardFields } from '#app/features/orders/components/test-card-fields.tsx'
import { revalidateAfterCheckoutPost } from '#app/features/orders/checkout-revalidation.ts'
import { getCheckout } from '#app/features/orders/checkout-summary.server.ts'
import type { CheckoutRefusal, CheckoutResult } from '#app/features/orders/checkout.server.ts'
import { checkoutWithRedirect } from '#app/features/orders/redirect-checkout.server.ts'
import { checkoutFree } from '#app/features/orders/free-checkout.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { accountFailure, passOnRetryAfter, signedInRedirect } from '#app/sign-in.server.ts'
import type { Route } from './+types/checkout'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { lastInvoiceTo } from '#app/features/orders/order-history.server.ts'
import { BillingFields } from '#app/features/tax/components/billing-fields.tsx'
import { TaxSummary } from '#app/features/tax/components/tax-summary.tsx'
import { COUNTRIES } from '#app/features/tax/countries.ts'
import { locateBuyer, readBillingPost, type BillingField } from '#app/features/tax/checkout-buyer.server.ts'
import { buyerCurrency, currencyOnPage } from '#app/features/currency/buyer-currency.server.ts'
import { CurrencyForm } from '#app/features/currency/components/currency-form.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Checkout', 'Pay for the eBooks in your CodeBook cart.', { matches })

type CheckoutActionData = {
  fieldErrors?: Partial<Record<CheckoutField, string>>
  formError?: string
  /** The billing country's message, and whether to ask the buyer to confirm it (features/tax). */
  billing?: { field: BillingField; message: string; askConfirmation: boolean }
  /** Who the invoice is made out to, as the refused post typed it. */
  invoiceTo?: { name: string; address: string }
}

/**
 * Buying needs an account (docs/decisions/025-guest-checkout.md): a guest or a signed-out visitor gets this
 * page with their cart, told why, and creates the account here in one step (the action's 'create-account'),
 * keeping the cart; then the same page takes the payment.
 */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  const app = getAppContext(context)
  const user = await getSessionUser({ request, context })
  // A gift is bought signed in (its form asks first).
  if (url.searchParams.has('gift') && (!user || user.isGuest)) await requireUser({ request, context, url })
  // The buyer's currency (features/currency): the page is priced in it where every line has a price in it.
  const currency = buyerCurrency(request, app)
  if (!user || user.isGuest) {
    const cartId = await findVisitorCart(request, app, user?.id)
    // The cart as the cart page prices it: its books and bundles, with its coupon.
    const priced = await readCartPricing(app.db, cartId, user?.id ?? null, currency.currency)
    return {
      step: 'account' as const,
      lines: priced.lines,
      isGuest: Boolean(user),
      currency: currencyOnPage(currency, priced),
    }
  }
  // A gift's checkout (issue 30): the gift the buyer just described, paid on its own.
  const giftId = url.searchParams.get('gift')
  if (giftId !== null) {
    const gift = isUuid(giftId) ? await findGiftDraft(app.db, giftId, user.id) : null
    if (!gift)
      throw data(
        {
          title: 'Gift not found',
          message: 'We could not find that gift. Please start again from the book’s page.',
        },
        404,
      )
    // Paid already (or on its payment page): its order says where it is.
    if (gift.orderId && gift.orderStatus !== 'failed') throw redirect(`/orders/${gift.orderId}`)
  }
  // Priced for the buyer's billing country as far as it is known (features/tax: chosen before, or guessed).
  const { buyer, vat } = await locateBuyer(app.db, request, app.clientIp, app.vatChecker, request.signal)
  const checkout = await getCheckout(app.db, user.id, {
    ...(giftId ? { giftId } : {}),
    buyer,
    currency: currency.currency,
  })
  if (checkout.lines.length > 0) recordEvent(app, request, { name: 'begin_checkout' })
  return {
    step: 'pay' as const,
    checkout,
    currency: currencyOnPage(currency, checkout),
    provider: app.payments.name,
    email: user.email,
    billingCountry: buyer.billingCountry,
    vat,
    invoiceTo: await lastInvoiceTo(app.db, user.id),
    // Named on the server: the browser's own names could differ and break hydration.
    countries: COUNTRIES,
  }
}

/**
 * A refused account creation's Retry-After (429) reaches the browser. The page is priced for this visitor alone
 * (their currency, which may follow their address): never kept in the shared page cache (decision 040).
 */
export const headers: Route.HeadersFunction = (args) => {
  const headers = passOnRetryAfter(args)
  headers.set('Cache-Control', 'private')
  return headers
}

export const shouldRevalidate = revalidateAfterCheckoutPost

export async function action({ request, context, url }: Route.ActionArgs) {
  const app = getAppContext(context)
  const form = await readForm(request)
  if (form.get('intent') === 'create-account') {
    // Signed in already (another tab made the account): the page as it is now.
    const current = await getSessionUser({ request, context })
    if (current && !current.isGuest) return redirect('/checkout', 303)
    // The register page's rules and messages, rate limits included; the guest's cart joins the account.
    const result = await register({ request, context }, form)
    if (!result.ok) return accountFailure(result, form.get('email'))
    return signedInRedirect(request, app, { result, redirectTo: '/checkout' })
  }
  const user = await requireUser({ request, context, url })
  if (form.get('intent') === 'remove-owned') {
    await removeOwnedBooksFromCart(app.db, user.id)
    return redirect('/checkout', 303)
  }
  const free = form.get('free') === '1'
  const card = free || app.payments.kind === 'redirect' ? null : parseCardForm(form)
  if (card && !card.ok) return data<CheckoutActionData>(card.errors, { status: 400 })
  // Where the buyer is (features/tax): the country the page priced, checked against the evidence.
  const billing = await readBillingPost(app.db, form, app.clientIp, app.vatChecker, request.signal)
  const headers = new Headers()
  for (const cookie of billing.setCookies) headers.append('Set-Cookie', cookie)
  if (!billing.ok) {
    const { field, message, askConfirmation } = billing
    const typed = (name: string) => String(form.get(name) ?? '').slice(0, 1000)
    return data<CheckoutActionData>(
      {
        billing: { field, message, askConfirmation },
        invoiceTo: { name: typed('billingName'), address: typed('billingAddress') },
      },
      { status: billing.status, headers },
    )
  }
  const buyer = billing.buyer
  // The currency the page was priced in (a change since then changes the checkout's key: nothing is charged).
  const currency = buyerCurrency(request, app).currency
  let result: CheckoutResult
  if (card && app.payments.kind !== 'redirect') {
    result = await checkoutWithCard(app, app.payments, { userId: user.id, ...card.data, buyer, currency })
  } else {
    const keys = parseCheckoutKeys(form)
    if (!keys.ok) return data<CheckoutActionData>({ formError: keys.formError }, { status: 400 })
    const input = { userId: user.id, ...keys.data, buyer, currency }
    result =
      // Nothing to pay (a 100 % coupon): no card and no payment page.
      free || app.payments.kind !== 'redirect'
        ? await checkoutFree(app, input)
        : await checkoutWithRedirect(app, app.payments, { ...input, user })
  }
  if (result.outcome === 'order') return redirect(`/orders/${result.orderId}`, { status: 303, headers })
  if (result.outcome === 'payment-page') return redirect(result.url, { status: 303, headers })
  return data<CheckoutActionData>(
    { formError: result.message },
    { status: refusalStatus[result.reason], headers },
  )
}

const refusalStatus: Record<CheckoutRefusal, number> = {
  declined: 402,
  'empty-cart': 409,
  'cart-changed': 409,
  'mixed-currencies': 409,
  'coupon-used-up': 409,
  'below-minimum-charge': 409,
  'closed-unpaid': 409,
  'provider-unreachable': 502,
}

export default function Checkout({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.step === 'account')
    return (
      <AccountStep
        lines={loaderData.lines}
        isGuest={loaderData.isGuest}
        currency={loaderData.currency}
        actionData={actionData as AccountActionData | undefined}
      />
    )
  return <PayStep {...loaderData} actionData={actionData as CheckoutActionData | undefined} />
}

function PayStep({
  checkout,
  provider,
  email,
  billingCountry,
  vat,
  invoiceTo,
  countries,
  currency,
  actionData,
}: Extract<Route.ComponentProps['loaderData'], { step: 'pay' }> & {
  actionData: CheckoutActionData | undefined
}) {
  const navigation = useNavigation()
  const paying =
    navigation.state !== 'idle' &&
    navigation.formAction?.startsWith('/checkout') === true &&
    navigation.formData?.get('intent') !== 'remove-owned'
  const formRef = useRef<HTMLFormElement>(null)
  useEffect(() => {
    if (!actionData) return
    formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-form-error]')?.focus()
  }, [actionData])
  const price = (cents: number) => formatPrice(cents, checkout.currency)

  return (
    <section className="mx-auto max-w-3xl px-4 py-12">
      <SectionHeading level={1}>Checkout</SectionHeading>
      <CheckoutNotices alreadyOwned={checkout.alreadyOwned} unavailable={checkout.unavailable} />
      {checkout.lines.length === 0 ? (
        <div className="flex flex-col items-center gap-6 py-8 text-center">
          <p className="text-lg">
            {checkout.gift
              ? 'This gift is no longer for sale: there is nothing to pay for.'
              : 'Your cart is empty: there is nothing to pay for.'}
          </p>
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
            <OrderLines lines={checkout.lines} />
            <dl className="mt-4 grid grid-cols-[1fr_auto] gap-y-1 text-xl">
              {checkout.discountCents > 0 ? (
                <>
                  <dt>Subtotal</dt>
                  <dd className="text-right">{price(checkout.listCents)}</dd>
                  <dt>Coupon {checkout.coupon?.code}</dt>
                  <dd className="text-right">−{price(checkout.discountCents)}</dd>
                </>
              ) : null}
              <TaxSummary tax={checkout.tax} currency={checkout.currency} placement="before-total" />
              <dt className="font-semibold">Total</dt>
              <dd className="text-right font-semibold">{price(checkout.totalCents)}</dd>
              <TaxSummary tax={checkout.tax} currency={checkout.currency} placement="after-total" />
            </dl>
            <div className="mt-4">
              <CurrencyForm
                options={currency.options}
                current={currency.chosen}
                redirectTo={
                  checkout.gift ? `/checkout?${new URLSearchParams({ gift: checkout.gift.id })}` : '/checkout'
                }
              />
            </div>
            {checkout.coupon?.message ? (
              <p className="mt-2 text-sm text-red-700 dark:text-red-300">
                Coupon {checkout.coupon.code}: {checkout.coupon.message}{' '}
                <Link to="/cart#coupon" className="underline">
                  Change it in your cart
                </Link>
              </p>
            ) : null}
            {checkout.gift ? (
              <p className="mt-4 rounded-lg border border-sky-300 bg-sky-50 p-3 text-sm text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100">
                A gift for{' '}
                {checkout.gift.recipientName
                  ? `${checkout.gift.recipientName} (${checkout.gift.recipientEmail})`
                  : checkout.gift.recipientEmail}
                : they get its mail on <FormattedDate value={checkout.gift.deliverOn} />, with the link that
                puts it in their library. The receipt goes to {email}.
              </p>
            ) : (
              <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">
                The receipt goes to {email}. Your eBooks are in your library as soon as the payment goes
                through.
              </p>
            )}
          </div>
          <Form
            ref={formRef}
            method="post"
            action={
              checkout.gift ? `/checkout?${new URLSearchParams({ gift: checkout.gift.id })}` : '/checkout'
            }
            className="flex flex-col gap-4"
          >
            <input type="hidden" name="idempotencyKey" value={checkout.idempotencyKey} />
            {checkout.gift ? <input type="hidden" name="giftId" value={checkout.gift.id} /> : null}
            <input type="hidden" name="attemptId" value={checkout.attemptId} />
            <h2 className="text-xl font-semibold">Payment</h2>
            {actionData?.formError ? <FormError>{actionData.formError}</FormError> : null}
            <BillingFields
              // A new country priced (after a refused post): the list starts from it.
              key={`${billingCountry} ${vat?.number ?? ''}`}
              countries={countries}
              pricedCountry={billingCountry}
              vat={vat}
              invoiceTo={actionData?.invoiceTo ?? invoiceTo}
              error={actionData?.billing}
            />
            {checkout.totalCents === 0 ? (
              <>
                <input type="hidden" name="free" value="1" />
                <p className="text-sm">Your coupon covers the whole order: there is nothing to pay.</p>
              </>
            ) : provider === 'test' ? (
              <TestCardFields errors={actionData?.fieldErrors} />
            ) : (
              <p className="text-sm">You will pay on Stripe's secure page, then come back here.</p>
            )}
            <button
              type="submit"
              className={`${primaryButton} py-3 text-base`}
              disabled={paying}
              aria-busy={paying}
            >
              {checkout.totalCents === 0
                ? paying
                  ? 'Completing…'
                  : 'Complete order'
                : paying
                  ? 'Paying…'
                  : `Pay ${price(checkout.totalCents)}`}
            </button>
          </Form>
        </div>
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
