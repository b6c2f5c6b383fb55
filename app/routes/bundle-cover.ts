import { bundleCoverPng, getBundlePage } from '#app/features/bundles/bundles.server.ts'
import { imageResponse } from '#app/features/seo/og-image.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/bundle-cover'

/** GET /bundles/<slug>/cover.png: the bundle's cover collage (1200×630 PNG); 404 unless it is in the store. */
export async function loader({ params, context, request }: Route.LoaderArgs) {
  const { db, storage } = getAppContext(context)
  const bundle = await getBundlePage(db, params.slug.toLowerCase(), null)
  if (!bundle)
    return new Response('No such bundle.', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    })
  return imageResponse(request, await bundleCoverPng(storage, bundle))
}
