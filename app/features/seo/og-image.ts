import type { OgImage } from './meta.ts'

export const OG_IMAGE_WIDTH = 1200
export const OG_IMAGE_HEIGHT = 630

/**
 * A book's Open Graph image (routes/book-og-image.ts renders it). The version is in the URL so that a preview
 * service, which caches by URL, fetches the new image after an edit; the route itself ignores it.
 */
export function bookOgImage(book: {
  slug: string
  title: string
  author: string
  version: number
  price: string
}): OgImage {
  return {
    path: `/books/${book.slug}/og.png?v=${book.version}`,
    width: OG_IMAGE_WIDTH,
    height: OG_IMAGE_HEIGHT,
    alt: `${book.title} by ${book.author}, ${book.price} at CodeBook`,
  }
}
