/**
 * The checkout's billing country (decision 038): guessed for the page, chosen and checked on the post.
 * - The page: the country the buyer chose last (a cookie), else their IP address's, else the seller's, else
 *   the United States; the prices it shows are taxed for it, and the form names it (`pricedCountry`).
 * - The post: the chosen billing country; if it is not the one the page priced, nothing is charged and the
 *   page is shown again priced for it; then the evidence rule (evidence.ts), which may ask for a confirmation.
 */
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import { billingCountryCookie, chosenBillingCountry, countryOfIp } from './buyer-country.server.ts'
import type { BuyerTax } from './checkout-tax.server.ts'
import { countryName, isCountryCode } from './countries.ts'
import { judgeEvidence } from './evidence.ts'
import { isTaxedCountry } from './tax-rates.server.ts'
import { getTaxSettings } from './tax-settings.server.ts'

export async function locateBuyer(db: Db | Tx, request: Request, clientIp: string): Promise<BuyerTax> {
  const ipCountry = countryOfIp(clientIp)
  const billingCountry =
    chosenBillingCountry(request) ?? ipCountry ?? (await getTaxSettings(db)).sellerCountry ?? 'US'
  return { billingCountry, ipCountry, evidenceStatus: null }
}

/** The checkout form's billing fields, as names: the route's form and this parser share them. */
export const BILLING_FIELDS = {
  country: 'billingCountry',
  pricedCountry: 'pricedCountry',
  confirm: 'confirmCountry',
} as const

export type BillingPost =
  | { ok: true; buyer: BuyerTax; setCookie: string }
  | {
      ok: false
      status: 400 | 409
      /** The message next to the billing country. */
      message: string
      /** Show the 'my billing address is in …' tick. */
      askConfirmation: boolean
      setCookie?: string
    }

export function readBillingPost(form: FormData, clientIp: string): BillingPost {
  const chosen = form.get(BILLING_FIELDS.country)
  if (!isCountryCode(chosen))
    return { ok: false, status: 400, message: 'Please choose your billing country.', askConfirmation: false }
  const setCookie = billingCountryCookie(chosen)
  if (form.get(BILLING_FIELDS.pricedCountry) !== chosen)
    return {
      ok: false,
      status: 409,
      message: `Your order is now shown with the tax for ${countryName(chosen)}, and nothing was charged. Please check the total and pay again.`,
      askConfirmation: false,
      setCookie,
    }
  const ipCountry = countryOfIp(clientIp)
  const judged = judgeEvidence({
    billingCountry: chosen,
    ipCountry,
    cardCountry: null,
    confirmed: form.get(BILLING_FIELDS.confirm) === 'yes',
    taxes: isTaxedCountry,
  })
  if (!judged.ok)
    return {
      ok: false,
      status: 409,
      message: `${
        judged.ipCountry
          ? `Your connection appears to be in ${countryName(judged.ipCountry)}.`
          : 'We could not tell your country from your connection.'
      } Please confirm that your billing address is in ${countryName(chosen)}: the tax you pay depends on it. Nothing was charged.`,
      askConfirmation: true,
      setCookie,
    }
  return { ok: true, buyer: { billingCountry: chosen, ipCountry, evidenceStatus: judged.status }, setCookie }
}
