import { sitemapIndexXml } from '#app/features/seo/sitemap.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/sitemap-index'

/** GET /sitemap.xml: the index of the store's sitemaps (features/seo/sitemap.server.ts). */
export async function loader({ context }: Route.LoaderArgs) {
  const { db, env } = getAppContext(context)
  return new Response(await sitemapIndexXml(db, env.publicUrl.origin), { headers: sitemapHeaders })
}

export const sitemapHeaders = {
  'Content-Type': 'application/xml; charset=utf-8',
  // Crawlers come back for it now and then; an hour old is fresh enough for a new book.
  'Cache-Control': 'public, max-age=3600',
}
