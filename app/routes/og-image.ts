import { imageResponse, storeOgImagePng } from '#app/features/seo/og-image.server.ts'
import type { Route } from './+types/og-image'

/** GET /og-image.png: the store's link-preview image, for every page that is not a book's. */
export async function loader({ request }: Route.LoaderArgs) {
  return imageResponse(request, await storeOgImagePng())
}
