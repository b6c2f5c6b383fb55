/**
 * A book on a cart, a checkout or an order, as its line shows it (`OrderLines`): the book, its page and cover,
 * and its price (today's in a cart, the one paid in an order).
 */
export type BookLine = {
  bookId: string
  slug: string
  title: string
  coverPath: string
  priceCents: number
  currency: string
  /** Set when the book comes in a bundle on the cart or was bought in one. */
  bundle?: LineBundle
  /**
   * On a cart: the price is an amount its reader chose (pay what you want), typed in the book's own currency,
   * so the line is never priced in another (decision 040).
   */
  amountChosen?: boolean
}

/**
 * The bundle a line's book comes in (issue 30): the line's price is the book's share of the bundle's price
 * (features/pricing/bundle-price.ts). On a cart, `bookCount` books in all, `ownedCount` of them the buyer's
 * already.
 */
export type LineBundle = { id: string; slug: string; title: string; bookCount?: number; ownedCount?: number }
