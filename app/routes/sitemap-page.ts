import { authorSitemapXml, bookSitemapStream, staticSitemapXml } from '#app/features/seo/sitemap.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/sitemap-page'

const headers = { 'Content-Type': 'application/xml; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }

/** GET /sitemaps/static.xml, /sitemaps/books-<n>.xml and /sitemaps/authors-<n>.xml, as /sitemap.xml lists them; anything else is a 404. */
export async function loader({ params, context }: Route.LoaderArgs) {
  const { db, env } = getAppContext(context)
  const origin = env.publicUrl.origin
  if (params.file === 'static.xml') return new Response(await staticSitemapXml(db, origin), { headers })
  const authorPage = /^authors-([1-9]\d{0,5})\.xml$/.exec(params.file)?.[1]
  const authors = authorPage ? await authorSitemapXml(db, origin, Number(authorPage)) : null
  if (authors) return new Response(authors, { headers })
  const page = /^books-([1-9]\d{0,5})\.xml$/.exec(params.file)?.[1]
  const stream = page ? await bookSitemapStream(db, origin, Number(page)) : null
  if (!stream)
    return new Response('No such sitemap: /sitemap.xml lists them.', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    })
  return new Response(stream, { headers })
}
