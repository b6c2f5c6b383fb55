/**
 * The buyer's currency (issue 31, decision 040), as far as it is a rule: the one they chose, else their country's
 * if the store offers it, else the store's base currency. Browser-safe; reading the cookies and the address is
 * buyer-currency.server.ts's.
 */

/**
 * The countries that pay in euros: the euro area (Bulgaria since 1 January 2026), the states that use it by
 * agreement (Andorra, Monaco, San Marino, Vatican City) or on their own (Montenegro), and the French
 * departments and communities overseas that are in the EU or use the euro.
 */
const EURO_COUNTRIES = new Set(
  'AT BE BG CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK AD MC SM VA ME GF GP MQ RE YT BL MF PM'.split(
    ' ',
  ),
)

/** Other countries whose own currency a store might offer (only those it offers are used). */
const OTHER_CURRENCIES: Readonly<Record<string, string>> = {
  GB: 'GBP',
  GG: 'GBP',
  JE: 'GBP',
  IM: 'GBP',
  US: 'USD',
  PR: 'USD',
  CA: 'CAD',
  AU: 'AUD',
  NZ: 'NZD',
  CH: 'CHF',
  LI: 'CHF',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  PL: 'PLN',
  CZ: 'CZK',
  RO: 'RON',
  SG: 'SGD',
  HK: 'HKD',
  IN: 'INR',
  BR: 'BRL',
  MX: 'MXN',
  ZA: 'ZAR',
}

/** The currency a country pays in, if the table knows it (ISO 3166-1 alpha-2 in, ISO 4217 out). */
export function currencyOfCountry(country: string | null): string | null {
  if (!country) return null
  return EURO_COUNTRIES.has(country) ? 'EUR' : (OTHER_CURRENCIES[country] ?? null)
}

/**
 * The currency a buyer's cart is priced in: the one they chose (if it is still offered); else their country's
 * (the billing country they named at checkout, else the one of their IP address) if the store offers it; else the
 * store's base currency, `offered[0]`.
 */
export function buyerCurrencyOf(
  buyer: { chosen: string | null; billingCountry: string | null; ipCountry: string | null },
  offered: readonly string[],
): string {
  if (buyer.chosen && offered.includes(buyer.chosen)) return buyer.chosen
  const ofCountry = currencyOfCountry(buyer.billingCountry ?? buyer.ipCountry)
  return ofCountry && offered.includes(ofCountry) ? ofCountry : offered[0]!
}

export type CurrencyOption = { code: string; name: string }

const names = new Intl.DisplayNames(['en'], { type: 'currency' })

/**
 * The currencies the store offers, named in English ('EUR — Euro'): named on the server, as the browser's own
 * names could differ and break hydration.
 */
export function currencyOptions(offered: readonly string[]): CurrencyOption[] {
  return offered.map((code) => ({ code, name: names.of(code) ?? code }))
}

/** What a cart says when it could not be priced in the buyer's currency (cart-currency.server.ts). */
export type CurrencyFallback = {
  /** The buyer's currency. */
  wanted: string
  /** The books (or bundles) without a price in it, by title. */
  titles: string[]
}

/** 'Some books have no EUR price, so your cart is in USD: Django Framework.' */
export function currencyFallbackMessage(fallback: CurrencyFallback, pricedIn: readonly string[]): string {
  const currencies = pricedIn.length > 0 ? pricedIn.join(' and ') : 'its own currency'
  return `Some books have no ${fallback.wanted} price, so your cart is in ${currencies}: ${fallback.titles.join(', ')}.`
}

/**
 * A price converted at the owner's rate, as a shop writes it: the nearest amount ending in .99 (17.48 → 16.99,
 * 17.60 → 17.99), never below 0.99; a free book stays free. The same rule as the SQL of
 * `fillPricesAtRate` (fill-prices.server.ts), which converts a whole catalogue in one statement.
 */
export function priceAtRate(cents: number, rate: number): number {
  if (cents === 0) return 0
  return Math.max(1, Math.round((cents * rate) / 100)) * 100 - 1
}
