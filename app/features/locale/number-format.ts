/**
 * Numbers as the store writes them (en-US: '1,234'), without `Intl`.
 *
 * Why not `toLocaleString('en-US')` or an `Intl.NumberFormat`: the first one a page creates makes the browser
 * load its ICU number-formatting data, 15–55 ms of main thread on this machine and four times that on a phone
 * (issue 35's trace: a review form's one `toLocaleString` at module load was a 230 ms task at 4× CPU; a book
 * card's first price another 160 ms). These pages format a handful of integers and dollar amounts, which a
 * regular expression does exactly (number-format.test.ts compares them with `Intl` over a range of values).
 * Dates, whose words depend on the reader's locale, stay with `Intl` (date-format.ts).
 */

/** '0', '999', '1,000', '-12,345': an integer with en-US digit grouping (a fraction is dropped). */
export function formatCount(value: number): string {
  const whole = Math.trunc(value)
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return whole < 0 ? `-${digits}` : digits
}

/** '1st', '2nd', '3rd', '11th', '23rd', '112th': English ordinals, as `Intl.PluralRules('en-US')` selects them. */
export function formatOrdinal(value: number): string {
  const lastTwo = Math.abs(value) % 100
  const last = Math.abs(value) % 10
  const suffix =
    lastTwo >= 11 && lastTwo <= 13 ? 'th' : last === 1 ? 'st' : last === 2 ? 'nd' : last === 3 ? 'rd' : 'th'
  return `${value}${suffix}`
}
