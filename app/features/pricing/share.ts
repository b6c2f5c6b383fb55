/**
 * `amount` cents shared over `weights` in proportion, in whole cents that add up to exactly `amount`: each gets
 * the whole cents of its share first (exact integer arithmetic), then the cents left over go one each to the
 * largest remainders, the earlier one first on a tie. A weight of 0 gets nothing, unless every weight is 0:
 * then the amount is shared evenly. How an amount coupon is spread over its lines, and a bundle's price over
 * its books (decision 033).
 */
export function shareInProportion(amount: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return []
  const total = weights.reduce((sum, weight) => sum + weight, 0)
  const base = total > 0 ? weights : weights.map(() => 1)
  const baseTotal = total > 0 ? total : weights.length
  const shares = base.map((weight) => weight * amount)
  const cents = shares.map((share) => Math.floor(share / baseTotal))
  let left = amount - cents.reduce((sum, value) => sum + value, 0)
  const byRemainder = shares
    .map((share, index) => ({ index, remainder: share % baseTotal }))
    .filter(({ remainder }) => remainder > 0)
    .toSorted((a, b) => b.remainder - a.remainder || a.index - b.index)
  for (const { index } of byRemainder) {
    if (left === 0) break
    cents[index]! += 1
    left--
  }
  return cents
}
