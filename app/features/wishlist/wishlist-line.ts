import type { CoverVariants } from '#app/features/catalog/cover-image.ts'

/** A book on a wishlist as its pages show it: today's title, cover and price from the catalogue. */
export type WishlistLine = {
  bookId: string
  slug: string
  title: string
  coverPath: string
  cover: CoverVariants | null
  priceCents: number
  currency: string
  /** False for a book published but not for sale right now: no 'Add To Cart'. */
  available: boolean
}
