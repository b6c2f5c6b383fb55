/**
 * The buyer's country as far as the store can tell without asking: the country of their IP address, from the
 * offline GeoLite2 database `geoip-country` ships (refreshed with the package; no request leaves the store,
 * decision 038), and the billing country they chose before, kept in a cookie.
 */
import geoip from 'geoip-country'
import { isCountryCode } from './countries.ts'

/** The country of an IP address; null for a private, loopback or unknown one. */
export function countryOfIp(ip: string): string | null {
  const address = ip.startsWith('::ffff:') ? ip.slice('::ffff:'.length) : ip
  if (!address) return null
  try {
    const country = geoip.lookup(address)?.country
    return isCountryCode(country) ? country : null
  } catch {
    // A malformed address (a client's header is never trusted to be one): unknown.
    return null
  }
}

export const BILLING_COUNTRY_COOKIE = 'billing-country'

/** The billing country the buyer chose last, from their cookie; null if none or not a country. */
export function chosenBillingCountry(request: Request): string | null {
  const match = /(?:^|;\s*)billing-country=([A-Z]{2})(?:;|$)/.exec(request.headers.get('Cookie') ?? '')
  return match && isCountryCode(match[1]) ? match[1] : null
}

/** Remembers the buyer's billing country for a year (not a secret: it only preselects the checkout's list). */
export function billingCountryCookie(country: string): string {
  return `${BILLING_COUNTRY_COOKIE}=${country}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`
}

export const VAT_NUMBER_COOKIE = 'vat-number'

/** The VAT number the buyer gave last (as typed, checked again wherever it is used); null if none. */
export function chosenVatNumber(request: Request): string | null {
  const match = /(?:^|;\s*)vat-number=([^;]*)/.exec(request.headers.get('Cookie') ?? '')
  if (!match) return null
  try {
    const value = decodeURIComponent(match[1]!).trim()
    return value && value.length <= 30 ? value : null
  } catch {
    return null
  }
}

/** Remembers (or, empty, forgets) the buyer's VAT number: HttpOnly, as it names their business. */
export function vatNumberCookie(typed: string): string {
  return typed
    ? `${VAT_NUMBER_COOKIE}=${encodeURIComponent(typed)}; Path=/; Max-Age=31536000; SameSite=Lax; HttpOnly`
    : `${VAT_NUMBER_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax; HttpOnly`
}
