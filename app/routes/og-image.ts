import { storeOgImagePng, type RenderedImage } from '#app/features/seo/og-image.server.ts'
import type { Route } from './+types/og-image'

/** GET /og-image.png: the store's link-preview image, for every page that is not a book's. */
export async function loader({ request }: Route.LoaderArgs) {
  return imageResponse(request, await storeOgImagePng())
}

/** The PNG with its ETag; a client that has this version gets a 304 without the bytes. */
export function imageResponse(request: Request, image: RenderedImage): Response {
  const headers = {
    'Content-Type': 'image/png',
    // A day in shared caches; an edited book's pages point at a new URL (?v=<version>) anyway.
    'Cache-Control': 'public, max-age=86400',
    ETag: image.etag,
    'X-Content-Type-Options': 'nosniff',
  }
  const known = request.headers.get('If-None-Match')
  if (known && known.split(',').some((tag) => tag.trim() === image.etag))
    return new Response(null, { status: 304, headers })
  return new Response(new Uint8Array(image.png), {
    headers: { ...headers, 'Content-Length': String(image.png.length) },
  })
}
