import { serialize } from 'cookie'
import { chosenBillingCountry, countryOfIp } from '#app/features/tax/buyer-country.server.ts'
import type { AppContext } from '#app/server/context.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import {
  buyerCurrencyOf,
  currencyFallbackMessage,
  currencyOptions,
  type CurrencyFallback,
  type CurrencyOption,
} from './currencies.ts'

/**
 * The currency the buyer chose with the cart's or the checkout's form. Not a secret (it only says how to price a
 * cart), and not part of the page cache's key: the pages it changes (the cart, the checkout) are never shared
 * (decision 040).
 */
export const CURRENCY_COOKIE = 'currency'
const ONE_YEAR = 365 * 24 * 60 * 60

/** The currency the buyer's cookie names, if it looks like one (whether it is offered is checked by the caller). */
export function chosenCurrency(request: Pick<Request, 'headers'>): string | null {
  const match = /(?:^|;\s*)currency=([A-Z]{3})(?:;|$)/.exec(request.headers.get('Cookie') ?? '')
  return match?.[1] ?? null
}

export function currencyCookie(currency: string, secure: boolean): string {
  return serialize(CURRENCY_COOKIE, currency, {
    maxAge: ONE_YEAR,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
  })
}

export type BuyerCurrency = {
  /** What the buyer's cart is priced in, if every book in it has a price in it (cart-currency.server.ts). */
  currency: string
  /** The store's base currency (STORE_CURRENCIES' first). */
  base: string
  /** Every currency offered, base first, for the form's list; one only: the store shows no form. */
  options: CurrencyOption[]
}

/**
 * The buyer's currency (currencies.ts, `buyerCurrencyOf`): their choice, else their country's (the billing
 * country they named, else the one of their IP address, looked up offline), else the base currency. A store
 * that offers one currency looks nothing up.
 */
export function buyerCurrency(request: Request, app: Pick<AppContext, 'env' | 'clientIp'>): BuyerCurrency {
  const offered = app.env.STORE_CURRENCIES
  const base = offered[0]!
  if (offered.length === 1) return { currency: base, base, options: currencyOptions(offered) }
  const chosen = chosenCurrency(request)
  const billingCountry = chosen ? null : chosenBillingCountry(request)
  const ipCountry = chosen || billingCountry ? null : countryOfIp(app.clientIp)
  return {
    currency: buyerCurrencyOf({ chosen, billingCountry, ipCountry }, offered),
    base,
    options: currencyOptions(offered),
  }
}

/**
 * The currency form (components/currency-form.tsx): a currency the store offers, remembered in the buyer's
 * cookie, and the page to go back to (a path on this site, else the cart).
 */
export function readCurrencyForm(
  form: FormData,
  app: Pick<AppContext, 'env'>,
): { ok: true; currency: string; setCookie: string; redirectTo: string } | { ok: false; message: string } {
  const currency = form.get('currency')
  if (typeof currency !== 'string' || !app.env.STORE_CURRENCIES.includes(currency))
    return { ok: false, message: 'Please choose one of the currencies in the list.' }
  return {
    ok: true,
    currency,
    setCookie: currencyCookie(currency, app.env.publicUrl.protocol === 'https:'),
    redirectTo: safeRedirectPath(form.get('redirectTo'), '/cart'),
  }
}

/**
 * What the cart's and the checkout's pages show of the currency: the form's list and the buyer's currency, and,
 * when a book had no price in it, the note saying what the cart is priced in instead.
 */
export function currencyOnPage(
  buyer: BuyerCurrency,
  priced: { lines: readonly { currency: string }[]; currencyFallback: CurrencyFallback | null },
) {
  const pricedIn = [...new Set(priced.lines.map((line) => line.currency))]
  return {
    options: buyer.options,
    chosen: buyer.currency,
    fallback: priced.currencyFallback ? currencyFallbackMessage(priced.currencyFallback, pricedIn) : null,
  }
}
