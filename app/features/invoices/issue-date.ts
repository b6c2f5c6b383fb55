/**
 * The calendar day of a moment in the seller's time zone: what an invoice prints as its date, and whose year
 * its number belongs to (2026-12-31T23:30:00Z is already 2027-01-01 in Europe/Berlin). Throws a RangeError for a
 * time zone Intl does not know.
 */
export function issueDateIn(moment: Date, timeZone: string): { year: number; isoDate: string } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    calendar: 'gregory',
    numberingSystem: 'latn',
  }).formatToParts(moment)
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? ''
  const year = Number(part('year'))
  return { year, isoDate: `${part('year')}-${part('month')}-${part('day')}` }
}
