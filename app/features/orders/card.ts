/**
 * Card checks for the test payment provider's form: digits only after removing spaces and dashes, the Luhn
 * checksum, an expiry month that has not passed, a 3- or 4-digit CVC. The numbers never leave the action
 * that charges them: orders keep the brand and the last 4 digits.
 */
export type CardBrand = 'Visa' | 'Mastercard' | 'American Express' | 'Discover' | 'Card'

export function normalizeCardNumber(value: string): string {
  return value.replace(/[\s-]/g, '')
}

export function passesLuhn(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false
  let sum = 0
  for (let index = 0; index < digits.length; index++) {
    let digit = Number(digits[digits.length - 1 - index])
    if (index % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}

export function cardBrand(digits: string): CardBrand {
  if (/^4/.test(digits)) return 'Visa'
  if (/^(5[1-5]|2[2-7])/.test(digits)) return 'Mastercard'
  if (/^3[47]/.test(digits)) return 'American Express'
  if (/^6(011|5)/.test(digits)) return 'Discover'
  return 'Card'
}

/** 'MM/YY' or 'MM/YYYY' → the month, or undefined if unreadable. */
export function parseExpiry(value: string): { month: number; year: number } | undefined {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(value)
  if (!match) return undefined
  const month = Number(match[1])
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2])
  if (month < 1 || month > 12) return undefined
  return { month, year }
}

/** A card is good through the last day of its expiry month. */
export function hasExpired(expiry: { month: number; year: number }, now = new Date()): boolean {
  const year = now.getUTCFullYear()
  const month = now.getUTCMonth() + 1
  return expiry.year < year || (expiry.year === year && expiry.month < month)
}
