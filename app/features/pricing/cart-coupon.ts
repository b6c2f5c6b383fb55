/** The coupon on a cart, and what it did: its discount, or why it took nothing off (the cart page says it). */
export type CartCoupon = { code: string; applied: boolean; message: string | null }
