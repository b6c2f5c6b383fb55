/** Sums prices per currency (the catalogue is in USD today; a mixed cart must never add dollars to euros). */
export function cartTotals(lines: ReadonlyArray<{ priceCents: number; currency: string }>) {
  const totals = new Map<string, number>()
  for (const line of lines) totals.set(line.currency, (totals.get(line.currency) ?? 0) + line.priceCents)
  return [...totals].map(([currency, cents]) => ({ currency, cents }))
}
