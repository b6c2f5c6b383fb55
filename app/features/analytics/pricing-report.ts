/** The dashboard's pricing panel, as the server reads it and the page shows it (issue 30). */

/** At most this many rows in each of the report's tables (the largest first). */
export const PRICING_REPORT_ROWS = 20

export type CouponFigures = {
  code: string
  currency: string
  orders: number
  /** Net revenue: what the orders paid after the coupon, less tax, less what refunds gave back of them. */
  revenueCents: number
  /** What the coupon took off them. */
  discountCents: number
}

export type BundleFigures = {
  bundleId: string
  title: string
  slug: string
  currency: string
  orders: number
  /** Net revenue of the lines bought in the bundle: what they were paid less tax, less what was refunded. */
  revenueCents: number
}

export type PayWhatYouWantFigures = {
  bookId: string
  title: string
  slug: string
  currency: string
  /** Copies bought on their own (a line of a paid order, outside a bundle). */
  copies: number
  averageCents: number
  minimumCents: number
  suggestedCents: number
}

export type GiftFigures = { bought: number; sent: number; claimed: number; revoked: number }

export type PricingReport = {
  byCoupon: CouponFigures[]
  byBundle: BundleFigures[]
  payWhatYouWant: PayWhatYouWantFigures[]
  gifts: GiftFigures
}
