/**
 * The checkout's billing country and business VAT number (decisions 036, 038): guessed or remembered for the
 * page, chosen and checked on the post.
 * - The page: the country the buyer chose last (a cookie), else their IP address's, else the seller's, else
 *   the United States; with the VAT number they gave last (a cookie), checked with VIES. The prices it shows
 *   are taxed for these, and the form names them (`pricedCountry`, `pricedVatNumber`).
 * - The post: if the country or the VAT number is not what the page priced, nothing is charged and the page is
 *   shown again priced for them; then the evidence rule (evidence.ts), which may ask for a confirmation; then
 *   the VAT number checked again (VIES answers are kept a day), so the order is taxed as the page showed.
 * Reverse charge: a VAT number VIES calls valid, of the billing country, an EU member state other than the
 * seller's. When VIES cannot answer, VAT is charged and the page says so (decision 036).
 */
import type { Db, Transaction as Tx } from '#app/server/db/database.server.ts'
import {
  billingCountryCookie,
  chosenBillingCountry,
  chosenVatNumber,
  countryOfIp,
  vatNumberCookie,
} from './buyer-country.server.ts'
import { BILLING_LIMITS } from './billing-limits.ts'
import type { BuyerTax } from './checkout-tax.server.ts'
import { countryName, isCountryCode } from './countries.ts'
import { judgeEvidence } from './evidence.ts'
import { isTaxedCountry, taxCountry } from './tax-rates.server.ts'
import { getTaxSettings } from './tax-settings.server.ts'
import { parseVatNumber } from './vat-number.ts'
import type { VatNumberChecker } from './vies.server.ts'

/** What the page says of the buyer's VAT number. */
export type VatNumberState = {
  number: string
  status: 'reverse-charge' | 'invalid' | 'unavailable' | 'not-applicable'
  message: string
}

export type LocatedBuyer = { buyer: BuyerTax; vat: VatNumberState | null }

export async function locateBuyer(
  db: Db | Tx,
  request: Request,
  clientIp: string,
  vatChecker: VatNumberChecker,
  signal?: AbortSignal,
): Promise<LocatedBuyer> {
  const ipCountry = countryOfIp(clientIp)
  const settings = await getTaxSettings(db)
  const billingCountry = chosenBillingCountry(request) ?? ipCountry ?? settings.sellerCountry ?? 'US'
  const typed = chosenVatNumber(request)
  const vat = typed
    ? await checkVatNumber(vatChecker, typed, billingCountry, settings.sellerCountry, signal)
    : null
  return {
    buyer: {
      billingCountry,
      ipCountry,
      evidenceStatus: null,
      reverseChargeVatNumber: vat?.status === 'reverse-charge' ? vat.number : null,
    },
    vat,
  }
}

async function checkVatNumber(
  vatChecker: VatNumberChecker,
  typed: string,
  billingCountry: string,
  sellerCountry: string | null,
  signal?: AbortSignal,
): Promise<VatNumberState> {
  if (taxCountry(billingCountry)?.scheme !== 'EU')
    return {
      number: typed,
      status: 'not-applicable',
      message: `Reverse charge applies to businesses in the EU; ${countryName(billingCountry)}’s tax is charged as for anyone there.`,
    }
  const parsed = parseVatNumber(typed, billingCountry)
  if (!parsed.ok) return { number: typed, status: 'invalid', message: parsed.message }
  if (billingCountry === sellerCountry)
    return {
      number: parsed.formatted,
      status: 'not-applicable',
      message: `We are in ${countryName(sellerCountry)} too, so its VAT is charged (no reverse charge within one country).`,
    }
  const answer = await vatChecker.check(parsed.countryCode, parsed.number, { signal })
  if (answer.status === 'valid')
    return {
      number: parsed.formatted,
      status: 'reverse-charge',
      message: `VAT number ${parsed.formatted} confirmed by the EU’s VIES service: no VAT is charged (reverse charge; you account for it).`,
    }
  if (answer.status === 'invalid')
    return {
      number: parsed.formatted,
      status: 'invalid',
      message: `The EU’s VIES service does not know ${parsed.formatted} as a registered VAT number, so VAT is charged. Please check it.`,
    }
  return {
    number: parsed.formatted,
    status: 'unavailable',
    message: `We could not check ${parsed.formatted} with the EU’s VIES service just now, so VAT is charged. You may try again in a few minutes.`,
  }
}

export type BillingField = 'billingCountry' | 'vatNumber' | 'billingName' | 'billingAddress'

export type BillingPost =
  | { ok: true; buyer: BuyerTax; setCookies: string[] }
  | {
      ok: false
      status: 400 | 409
      /** The message next to the field it is about. */
      field: BillingField
      message: string
      /** Show the 'my billing address is in …' tick. */
      askConfirmation: boolean
      setCookies: string[]
    }

export async function readBillingPost(
  db: Db | Tx,
  form: FormData,
  clientIp: string,
  vatChecker: VatNumberChecker,
  signal?: AbortSignal,
): Promise<BillingPost> {
  const chosen = form.get('billingCountry')
  if (!isCountryCode(chosen))
    return {
      ok: false,
      status: 400,
      field: 'billingCountry',
      message: 'Please choose your billing country.',
      askConfirmation: false,
      setCookies: [],
    }
  const typedVat = String(form.get('vatNumber') ?? '').trim()
  if (typedVat.length > 30) return refusal(400, 'vatNumber', 'A VAT number has at most 30 characters.', [])
  const setCookies = [billingCountryCookie(chosen), vatNumberCookie(typedVat)]
  const pricedVat = String(form.get('pricedVatNumber') ?? '').trim()
  if (form.get('pricedCountry') !== chosen)
    return refusal(
      409,
      'billingCountry',
      `Your order is now shown with the tax for ${countryName(chosen)}, and nothing was charged. Please check the total and pay again.`,
      setCookies,
    )
  if (typedVat !== pricedVat) {
    // Only a business buyer gives one; a typo is said before anything else happens.
    if (typedVat && taxCountry(chosen)?.scheme === 'EU') {
      const parsed = parseVatNumber(typedVat, chosen)
      if (!parsed.ok) return refusal(400, 'vatNumber', parsed.message, [])
    }
    return refusal(
      409,
      'vatNumber',
      typedVat
        ? 'Your order is now shown for your VAT number, and nothing was charged. Please check the total and pay again.'
        : 'Your order is now shown without a VAT number, and nothing was charged. Please check the total and pay again.',
      setCookies,
    )
  }
  const invoiceTo = readInvoiceTo(form, typedVat !== '' && taxCountry(chosen)?.scheme === 'EU')
  if (!invoiceTo.ok) return refusal(400, invoiceTo.field, invoiceTo.message, setCookies)
  const ipCountry = countryOfIp(clientIp)
  const judged = judgeEvidence({
    billingCountry: chosen,
    ipCountry,
    cardCountry: null,
    confirmed: form.get('confirmCountry') === 'yes',
    taxes: isTaxedCountry,
  })
  if (!judged.ok)
    return {
      ...refusal(
        409,
        'billingCountry',
        `${
          judged.ipCountry
            ? `Your connection appears to be in ${countryName(judged.ipCountry)}.`
            : 'We could not tell your country from your connection.'
        } Please confirm that your billing address is in ${countryName(chosen)}: the tax you pay depends on it. Nothing was charged.`,
        setCookies,
      ),
      askConfirmation: true,
    }
  // The seller's country matters only to a VAT number (the order's tax reads the settings itself).
  const vat = typedVat
    ? await checkVatNumber(vatChecker, typedVat, chosen, (await getTaxSettings(db)).sellerCountry, signal)
    : null
  return {
    ok: true,
    buyer: {
      billingCountry: chosen,
      ipCountry,
      evidenceStatus: judged.status,
      reverseChargeVatNumber: vat?.status === 'reverse-charge' ? vat.number : null,
      billingName: invoiceTo.name,
      billingAddress: invoiceTo.address,
    },
    setCookies,
  }
}

/**
 * Who the invoice is made out to: optional for a consumer (the account's name is used), required with an EU VAT
 * number (an invoice to a business names it and its address: Art. 226(5) of the VAT Directive).
 */
function readInvoiceTo(
  form: FormData,
  business: boolean,
):
  | { ok: true; name: string | null; address: string | null }
  | { ok: false; field: 'billingName' | 'billingAddress'; message: string } {
  const name = String(form.get('billingName') ?? '').trim()
  const address = String(form.get('billingAddress') ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join('\n')
  if (name.length > BILLING_LIMITS.name)
    return {
      ok: false,
      field: 'billingName',
      message: `A name has at most ${BILLING_LIMITS.name} characters.`,
    }
  if (address.length > BILLING_LIMITS.address || address.split('\n').length > BILLING_LIMITS.addressLines)
    return {
      ok: false,
      field: 'billingAddress',
      message: `An address has at most ${BILLING_LIMITS.addressLines} lines and ${BILLING_LIMITS.address} characters.`,
    }
  if (business && !name)
    return {
      ok: false,
      field: 'billingName',
      message: 'With a VAT number, please give your business’s name.',
    }
  if (business && !address)
    return {
      ok: false,
      field: 'billingAddress',
      message: 'With a VAT number, please give your business’s address.',
    }
  return { ok: true, name: name || null, address: address || null }
}

function refusal(
  status: 400 | 409,
  field: BillingField,
  message: string,
  setCookies: string[],
): Extract<BillingPost, { ok: false }> {
  return { ok: false, status, field, message, askConfirmation: false, setCookies }
}
