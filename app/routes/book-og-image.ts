import { readCoverSource } from '#app/features/catalog/covers.server.ts'
import { getBookBySlug } from '#app/features/catalog/catalog.server.ts'
import { formatPrice } from '#app/features/catalog/format.ts'
import { bookOgImagePng, imageResponse } from '#app/features/seo/og-image.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/book-og-image'

/** GET /books/<slug>/og.png: the book's link-preview image (1200×630 PNG); 404 unless the book is published. */
export async function loader({ params, context, request }: Route.LoaderArgs) {
  const { db, storage } = getAppContext(context)
  const book = await getBookBySlug(db, params.slug.toLowerCase())
  if (!book)
    return new Response('No such book.', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    })
  const image = await bookOgImagePng({ ...book, price: formatPrice(book.priceCents, book.currency) }, () =>
    readCoverSource(storage, book),
  )
  return imageResponse(request, image)
}
