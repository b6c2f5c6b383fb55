import { data, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { cartAddedCookie } from '#app/features/cart/added-notice.server.ts'
import { CartFormSchema } from '#app/features/cart/cart-form.ts'
import { cartTotals } from '#app/features/cart/cart-totals.ts'
import { recordEvent } from '#app/features/analytics/record.server.ts'
import { addToCart, assertAddable, CartError, removeFromCart } from '#app/features/cart/cart.server.ts'
import {
  answerChosenAmount,
  answerCouponForm,
  couponLinkMessage,
  readCartPricing,
  type FormAnswer,
} from '#app/features/pricing/cart-forms.server.ts'
import { CouponForm } from '#app/features/pricing/components/coupon-form.tsx'
import { answerBundleForm } from '#app/features/bundles/bundle-cart-form.server.ts'
import { RemoveBundleButton } from '#app/features/bundles/components/bundle-cart-button.tsx'
import { bundleBookKey } from '#app/features/cart/bundle-book-key.ts'
import { CartButton } from '#app/features/cart/components/cart-button.tsx'
import { useCartBookIds } from '#app/features/cart/use-cart.ts'
import {
  findExistingVisitorCart,
  findVisitorCart,
  requireVisitorCart,
} from '#app/features/cart/visitor-cart.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { CurrencyForm } from '#app/features/currency/components/currency-form.tsx'
import { buyerCurrency, currencyOnPage } from '#app/features/currency/buyer-currency.server.ts'
import { OrderLines } from '#app/features/orders/components/order-lines.tsx'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { listOwnedBookIds } from '#app/features/library/library.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { isDataRequest } from '#app/server/data-request.ts'
import { readForm } from '#app/server/form.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import type { Route } from './+types/cart'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ loaderData, matches }) =>
  privatePageMeta(`My Cart (${loaderData?.lines.length ?? 0})`, 'The eBooks in your CodeBook cart.', {
    matches,
  })

/**
 * Priced for this visitor alone (their currency, which may follow their address; their coupon; the amounts they
 * chose), so never kept in the shared page cache, whose key knows only the books in the cart (decision 040).
 * The action's and the loader's own headers are kept: answering the cart button's fetcher with Cache-Control
 * alone left a book added on a second page out of the header's count (e2e cart journey with JavaScript).
 */
export const headers: Route.HeadersFunction = ({ actionHeaders, loaderHeaders }) => {
  const headers = new Headers(actionHeaders)
  for (const [name, value] of loaderHeaders) headers.set(name, value)
  headers.set('Cache-Control', 'private')
  return headers
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  const app = getAppContext(context)
  const user = await getSessionUser({ request, context })
  const cartId = await findVisitorCart(request, app, user?.id)
  const currency = buyerCurrency(request, app)
  const priced = await readCartPricing(app.db, cartId, user?.id ?? null, currency.currency)
  return {
    lines: priced.lines,
    currency: {
      ...currencyOnPage(currency, priced),
      // The catalogue's pages are shared by every visitor, in the base currency (decision 040).
      hint:
        currency.currency === currency.base || priced.currencyFallback
          ? null
          : `Book pages show prices in ${currency.base}.`,
    },
    bundlesNotSold: priced.bundlesNotSold,
    pricing: { listCents: priced.listCents, discountCents: priced.discountCents, currency: priced.currency },
    coupon: priced.coupon,
    // A coupon link (/c/<CODE>) that could not be used says why here.
    couponLinkError: couponLinkMessage(url.searchParams.get('couponError')),
  }
}

/** A pricing form's answer (features/pricing/cart-forms.server.ts), as React Router sends it. */
function send(answer: FormAnswer) {
  const headers = answer.setCookie ? { 'Set-Cookie': answer.setCookie } : undefined
  if (answer.kind === 'redirect') return redirect(answer.location, { status: 303, headers })
  return data(answer.body, { status: answer.status, headers })
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const app = getAppContext(context)
  const fromScript = isDataRequest(request, url)
  const form = await readForm(request)
  const formIntent = form.get('intent')
  if (formIntent === 'add-bundle' || formIntent === 'remove-bundle') {
    const user = await getSessionUser({ request, context })
    return send(await answerBundleForm({ request, app, userId: user?.id, fromScript }, form))
  }
  if (formIntent === 'apply-coupon' || formIntent === 'remove-coupon' || formIntent === 'choose-price') {
    const user = await getSessionUser({ request, context })
    const visitor = { request, app, userId: user?.id }
    return send(
      formIntent === 'choose-price'
        ? await answerChosenAmount(visitor, form)
        : await answerCouponForm(visitor, form),
    )
  }
  const parsed = CartFormSchema.safeParse(Object.fromEntries(form))
  if (!parsed.success) {
    return data({ error: parsed.error.issues[0]?.message ?? 'Invalid request.' }, { status: 400 })
  }
  const { intent, bookId, redirectTo } = parsed.data
  const user = await getSessionUser({ request, context })
  if (intent === 'add' && user && (await listOwnedBookIds(app.db, user.id)).includes(bookId)) {
    return data({ error: 'You already own this eBook: it is in your library.' }, { status: 400 })
  }
  // A refused change writes nothing: the book is checked before a first cart is made, and a removal needs
  // a cart that exists.
  let headers: { 'Set-Cookie': string } | undefined
  try {
    if (intent === 'add') {
      await assertAddable(app.db, bookId)
      const { cartId, setCookie } = await requireVisitorCart(request, app, user?.id)
      headers = setCookie ? { 'Set-Cookie': setCookie } : undefined
      await addToCart(app.db, cartId, bookId)
    } else {
      const cart = await findExistingVisitorCart(request, app, user?.id)
      if (!cart) throw new CartError('not-in-cart')
      headers = cart.setCookie ? { 'Set-Cookie': cart.setCookie } : undefined
      await removeFromCart(app.db, cart.cartId, bookId)
    }
  } catch (error) {
    if (error instanceof CartError) return data({ error: error.message }, { status: 400, headers })
    throw error
  }
  recordEvent(app, request, { name: intent === 'add' ? 'add_to_cart' : 'remove_from_cart', bookId })
  // With JavaScript the fetcher's answer says 'Added to your cart'; without, a cookie the next page reads once.
  if (fromScript) return data({ ok: true, added: intent === 'add' ? bookId : null }, { headers })
  // JavaScript off: back to the page the visitor was on, scrolled to the book they acted on.
  const back = safeRedirectPath(redirectTo, '/cart')
  const redirectHeaders = new Headers(headers)
  if (intent === 'add')
    redirectHeaders.append('Set-Cookie', cartAddedCookie(bookId, app.env.publicUrl.protocol === 'https:'))
  return redirect(back.includes('#') ? back : `${back}#book-${bookId}`, {
    status: 303,
    headers: redirectHeaders,
  })
}

export default function Cart({ loaderData, actionData }: Route.ComponentProps) {
  // Lines being removed disappear at once; the server's next answer confirms it.
  const inCart = useCartBookIds()
  const lines = loaderData.lines.filter((line) =>
    inCart.has(line.bundle ? bundleBookKey(line.bundle.id, line.bookId) : line.bookId),
  )
  const totals = cartTotals(lines)
  const { pricing, coupon } = loaderData
  const answer = actionData as
    { error?: string; couponError?: string; couponNotice?: string; couponCode?: string } | undefined
  return (
    <section className="mx-auto max-w-4xl px-4 py-12">
      <SectionHeading level={1}>My Cart ({lines.length})</SectionHeading>
      {answer?.error ? (
        <p role="alert" className="mb-6 rounded-lg border border-red-300 bg-red-50 p-4 text-red-800">
          {answer.error}
        </p>
      ) : null}
      {lines.length > 0 && loaderData.currency.fallback ? (
        <p
          role="status"
          className="mb-6 rounded-lg border border-sky-300 bg-sky-50 p-4 text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
        >
          {loaderData.currency.fallback}
        </p>
      ) : null}
      {loaderData.bundlesNotSold.length > 0 ? (
        <div
          role="status"
          className="mb-6 rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
        >
          {loaderData.bundlesNotSold.map((line) => (
            <p key={line.bundle!.id} className="flex flex-wrap items-center gap-3">
              <span>
                <Link to={`/bundles/${line.bundle!.slug}`} className="font-semibold underline">
                  {line.title}
                </Link>{' '}
                {line.why === 'owned'
                  ? 'brings nothing you do not own or have in your cart already, so it is not charged.'
                  : 'is no longer for sale, so it is not part of your order.'}
              </span>
              <RemoveBundleButton bundle={line.bundle!} />
            </p>
          ))}
        </div>
      ) : null}
      {lines.length === 0 ? (
        <div className="flex flex-col items-center gap-6 py-12 text-center">
          <p className="text-lg text-slate-600 dark:text-slate-300">Your cart is empty.</p>
          {coupon && !loaderData.couponLinkError ? (
            <p role="status" className="font-medium">
              Coupon <strong className="font-mono">{coupon.code}</strong> is on your cart: add eBooks and it
              applies at checkout.
            </p>
          ) : loaderData.couponLinkError || answer?.couponError ? (
            <p role="alert" className="font-medium text-red-700 dark:text-red-300">
              {loaderData.couponLinkError ?? answer?.couponError}
            </p>
          ) : null}
          <Link to="/AllBooks" className={primaryButton}>
            Browse all eBooks
          </Link>
        </div>
      ) : (
        <>
          <OrderLines
            lines={lines}
            size="large"
            linkTitles
            action={(line) => <CartButton bookId={line.bookId} />}
            bundleAction={(bundle) => <RemoveBundleButton bundle={bundle} />}
          />
          <div className="mt-6 flex flex-wrap items-start justify-between gap-6">
            <CouponForm
              coupon={coupon}
              error={answer?.couponError ?? loaderData.couponLinkError ?? undefined}
              notice={answer?.couponNotice}
              typed={answer?.couponCode}
            />
            <CurrencyForm
              options={loaderData.currency.options}
              current={loaderData.currency.chosen}
              redirectTo="/cart"
              hint={loaderData.currency.hint ?? undefined}
            />
            <dl className="ml-auto grid grid-cols-[auto_auto] gap-x-4 gap-y-1 text-right text-xl">
              {pricing.discountCents > 0 ? (
                <>
                  <dt>Subtotal</dt>
                  <dd>{formatPrice(pricing.listCents, pricing.currency)}</dd>
                  <dt>Coupon {coupon?.code}</dt>
                  <dd>−{formatPrice(pricing.discountCents, pricing.currency)}</dd>
                </>
              ) : null}
              <dt className="font-semibold">Total</dt>
              {totals.map((total) => (
                <dd key={total.currency}>{formatPrice(total.cents, total.currency)}</dd>
              ))}
            </dl>
          </div>
          <div className="mt-6 flex justify-end">
            <Link to="/checkout" className={`${primaryButton} px-6 py-3 text-base`}>
              Checkout
            </Link>
          </div>
        </>
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
