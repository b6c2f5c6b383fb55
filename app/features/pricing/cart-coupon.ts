/** The coupon on a cart, and what it did: its discount, or why it took nothing off (the cart page says it). */
export type CartCoupon = {
  code: string
  applied: boolean
  message: string | null
  /** Why it took nothing off ('used-up', 'below-minimum', …), for the code; `message` says it to the buyer. */
  reason: string | null
}
