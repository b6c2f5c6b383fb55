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
}
