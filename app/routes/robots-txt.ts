import { robotsTxt } from '#app/features/seo/sitemap.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/robots-txt'

/** GET /robots.txt: the private pages are off limits to crawlers; the sitemap index is named, absolute. */
export function loader({ context }: Route.LoaderArgs) {
  return new Response(robotsTxt(getAppContext(context).env.publicUrl.origin), {
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=3600' },
  })
}
