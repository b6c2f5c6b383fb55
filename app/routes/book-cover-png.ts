import { getBookBySlug } from '#app/features/catalog/catalog.server.ts'
import { coverPng } from '#app/features/catalog/cover-png.server.ts'
import { readCoverSource } from '#app/features/catalog/covers.server.ts'
import { imageResponse } from '#app/features/seo/og-image.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/book-cover-png'

/** GET /books/<slug>/cover.png: the book's cover as a 400×600 PNG (reading apps' feeds); 404 unless published. */
export async function loader({ params, context, request }: Route.LoaderArgs) {
  const { db, storage } = getAppContext(context)
  const book = await getBookBySlug(db, params.slug.toLowerCase())
  const image = book ? await coverPng(book, () => readCoverSource(storage, book)) : null
  if (!image)
    return new Response('No such cover.', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    })
  return imageResponse(request, image)
}
