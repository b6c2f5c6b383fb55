/**
 * A business buyer's VAT number, as typed next to the billing country (issue 31): normalised, its format and
 * check digits checked with jsvat, and refused with a message to show next to the field when it cannot give
 * reverse charge. Browser-safe, so the checkout form and the action say the same thing; whether the number is
 * registered is VIES's answer (vies.server.ts), asked only once this one says yes.
 *
 * The rules (decision 036):
 * 1. Spaces, dots and dashes are dropped and letters upper-cased; the two-letter prefix may be left out when
 *    the billing country is known. Greece's VAT prefix is EL (ISO GR; GR typed is read as EL). Northern
 *    Ireland's is XI, its ISO country GB.
 * 2. A number from another country than the billing country is refused: reverse charge needs the buyer's own
 *    registration where they are.
 * 3. Only the 27 member states and XI are accepted; any other country (GB since Brexit, NO, CH, …) is refused
 *    with a message saying reverse charge is for EU VAT numbers.
 * 4. The format and check digits are jsvat's; the messages describe only formats jsvat checks.
 */
import {
  austria,
  belgium,
  bulgaria,
  checkVAT,
  croatia,
  cyprus,
  czechRepublic,
  denmark,
  estonia,
  finland,
  france,
  germany,
  greece,
  hungary,
  ireland,
  italy,
  latvia,
  lithuania,
  luxembourg,
  malta,
  netherlands,
  poland,
  portugal,
  romania,
  slovakiaRepublic,
  slovenia,
  spain,
  sweden,
  unitedKingdom,
  type Country,
} from 'jsvat'

export type VatNumber = {
  ok: true
  /** The VAT prefix, as VIES wants it: 'DE', 'EL' for Greece, 'XI' for Northern Ireland. */
  countryCode: string
  /** The ISO 3166 alpha-2 country: 'DE', 'GR', 'GB' for Northern Ireland. */
  isoCountry: string
  /** What follows the prefix ('U12011204' for Austria): VIES's `vatNumber`. */
  number: string
  /** Prefix and number, no separators: 'DE111111125'. What invoices print. */
  formatted: string
}

export type ParsedVatNumber = VatNumber | { ok: false; message: string }

/**
 * jsvat knows no XI: HMRC gives a Northern Ireland trader its UK number with XI in front, so GB's check
 * digits and its 9- and 12-digit forms apply (not GB's GD/HA forms for government bodies).
 */
const northernIreland: Country = {
  name: 'Northern Ireland',
  codes: ['XI'],
  calcFn: unitedKingdom.calcFn,
  rules: { multipliers: unitedKingdom.rules.multipliers, regex: [/^(XI)(\d{9})$/, /^(XI)(\d{12})$/] },
}

type MemberState = { iso: string; adjective: string; format: string; rules: Country }

/** By VAT prefix. Each `format` says what jsvat's patterns for that country accept (the common forms). */
const MEMBER_STATES: Readonly<Record<string, MemberState>> = {
  AT: { iso: 'AT', adjective: 'Austrian', format: 'ATU followed by 8 digits', rules: austria },
  BE: { iso: 'BE', adjective: 'Belgian', format: 'BE followed by 10 digits', rules: belgium },
  BG: { iso: 'BG', adjective: 'Bulgarian', format: 'BG followed by 9 or 10 digits', rules: bulgaria },
  CY: { iso: 'CY', adjective: 'Cypriot', format: 'CY followed by 8 digits and a letter', rules: cyprus },
  CZ: { iso: 'CZ', adjective: 'Czech', format: 'CZ followed by 8 to 10 digits', rules: czechRepublic },
  DE: { iso: 'DE', adjective: 'German', format: 'DE followed by 9 digits', rules: germany },
  DK: { iso: 'DK', adjective: 'Danish', format: 'DK followed by 8 digits', rules: denmark },
  EE: {
    iso: 'EE',
    adjective: 'Estonian',
    format: 'EE followed by 9 digits starting with 10',
    rules: estonia,
  },
  EL: { iso: 'GR', adjective: 'Greek', format: 'EL followed by 9 digits', rules: greece },
  ES: {
    iso: 'ES',
    adjective: 'Spanish',
    format: 'ES followed by a letter or digit, 7 digits and a letter or digit',
    rules: spain,
  },
  FI: { iso: 'FI', adjective: 'Finnish', format: 'FI followed by 8 digits', rules: finland },
  FR: {
    iso: 'FR',
    adjective: 'French',
    format: 'FR followed by 2 digits or letters and 9 digits',
    rules: france,
  },
  HR: { iso: 'HR', adjective: 'Croatian', format: 'HR followed by 11 digits', rules: croatia },
  HU: { iso: 'HU', adjective: 'Hungarian', format: 'HU followed by 8 digits', rules: hungary },
  IE: { iso: 'IE', adjective: 'Irish', format: 'IE followed by 7 digits and 1 or 2 letters', rules: ireland },
  IT: { iso: 'IT', adjective: 'Italian', format: 'IT followed by 11 digits', rules: italy },
  LT: { iso: 'LT', adjective: 'Lithuanian', format: 'LT followed by 9 or 12 digits', rules: lithuania },
  LU: { iso: 'LU', adjective: 'Luxembourg', format: 'LU followed by 8 digits', rules: luxembourg },
  LV: { iso: 'LV', adjective: 'Latvian', format: 'LV followed by 11 digits', rules: latvia },
  MT: { iso: 'MT', adjective: 'Maltese', format: 'MT followed by 8 digits', rules: malta },
  NL: {
    iso: 'NL',
    adjective: 'Dutch',
    format: 'NL followed by 9 digits, the letter B and 2 digits',
    rules: netherlands,
  },
  PL: { iso: 'PL', adjective: 'Polish', format: 'PL followed by 10 digits', rules: poland },
  PT: { iso: 'PT', adjective: 'Portuguese', format: 'PT followed by 9 digits', rules: portugal },
  RO: { iso: 'RO', adjective: 'Romanian', format: 'RO followed by 2 to 10 digits', rules: romania },
  SE: { iso: 'SE', adjective: 'Swedish', format: 'SE followed by 12 digits ending in 01', rules: sweden },
  SI: { iso: 'SI', adjective: 'Slovenian', format: 'SI followed by 8 digits', rules: slovenia },
  SK: { iso: 'SK', adjective: 'Slovak', format: 'SK followed by 10 digits', rules: slovakiaRepublic },
  XI: {
    iso: 'GB',
    adjective: 'Northern Ireland',
    format: 'XI followed by 9 or 12 digits',
    rules: northernIreland,
  },
}

/** ISO countries whose VAT prefix is another code. */
const PREFIX_OF_ISO: Readonly<Record<string, string>> = { GR: 'EL' }
/** VAT prefixes that are not ISO codes (a billing country may arrive spelt so, too). */
const ISO_OF_PREFIX: Readonly<Record<string, string>> = { EL: 'GR', XI: 'GB' }

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })

/** Spaces (any kind), dots and dashes (any kind). */
const SEPARATORS = /[\s.\-\u2010-\u2015]+/g

/**
 * Checks a VAT number typed by a business buyer. `buyerCountry` (the billing country, ISO alpha-2) lets the
 * prefix be left out and must be the number's country. Throws only for a `buyerCountry` that is not two
 * letters (a caller's mistake, not the buyer's).
 */
export function parseVatNumber(input: string, buyerCountry?: string): ParsedVatNumber {
  const buyerIso = buyerCountry === undefined ? undefined : isoOfBillingCountry(buyerCountry)
  const cleaned = input.replace(SEPARATORS, '').toUpperCase()
  if (!cleaned) return refuse('Enter your VAT number.')

  const typed = typedPrefix(cleaned)
  const buyerPrefix = buyerIso && (PREFIX_OF_ISO[buyerIso] ?? buyerIso)
  // Without a typed prefix the number is the billing country's. A French number's two check characters may
  // be letters that spell another country: typed without FR by a French buyer, it is read as French.
  const prefix =
    buyerPrefix && typed !== buyerPrefix && (!typed || isValidFor(buyerPrefix, cleaned)) ? buyerPrefix : typed
  if (!prefix) {
    return refuse(
      'Start the VAT number with its country’s two letters, for example DE or FR (EL for Greece).',
    )
  }
  const number = prefix === typed ? cleaned.slice(2) : cleaned
  const iso = ISO_OF_PREFIX[prefix] ?? prefix

  if (buyerIso && iso !== buyerIso) {
    return refuse(
      `The VAT number must be from your billing country, ${countryName(buyerIso)}; this one is from ${countryName(prefix)}.`,
    )
  }
  const state = MEMBER_STATES[prefix]
  if (!state) {
    const hint = prefix === 'GB' ? ' A business in Northern Ireland can give its XI number.' : ''
    return refuse(
      `Reverse charge applies only to VAT numbers from EU member states; this one is from ${countryName(prefix)}.${hint}`,
    )
  }
  const formatted = prefix + number
  const checked = checkVAT(formatted, [state.rules])
  // jsvat drops other characters (slashes) itself; a number is letters and digits only.
  if (!/^[A-Z0-9]+$/.test(number) || !checked.isValidFormat) {
    return refuse(`That is not a valid ${state.adjective} VAT number: it should be ${state.format}.`)
  }
  if (!checked.isValid) {
    return refuse(
      `That is not a valid ${state.adjective} VAT number: its check digits do not match. Please look for a typo.`,
    )
  }
  return { ok: true, countryCode: prefix, isoCountry: iso, number, formatted }
}

function refuse(message: string): ParsedVatNumber {
  return { ok: false, message }
}

function isoOfBillingCountry(country: string): string {
  const code = country.trim().toUpperCase()
  if (!/^[A-Z]{2}$/.test(code))
    throw new TypeError(`The billing country must be ISO alpha-2, not "${country}".`)
  return ISO_OF_PREFIX[code] ?? code
}

/** The first two letters, when they name a country (GR read as Greece's EL), else undefined. */
function typedPrefix(cleaned: string): string | undefined {
  const letters = cleaned.slice(0, 2)
  if (!/^[A-Z]{2}$/.test(letters)) return undefined
  if (MEMBER_STATES[letters]) return letters
  if (letters === 'GR') return 'EL'
  // ZZ is CLDR's 'Unknown Region', not a country.
  return letters !== 'ZZ' && regionNames.of(letters) ? letters : undefined
}

function isValidFor(prefix: string, number: string): boolean {
  const state = MEMBER_STATES[prefix]
  return Boolean(state && /^[A-Z0-9]+$/.test(number) && checkVAT(prefix + number, [state.rules]).isValid)
}

/** A country's English name from its ISO code or VAT prefix ('EL' Greece, 'XI' Northern Ireland). */
function countryName(code: string): string {
  if (code === 'XI') return 'Northern Ireland'
  return regionNames.of(ISO_OF_PREFIX[code] ?? code) ?? code
}
