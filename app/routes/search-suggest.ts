import { normalizeQuery, type SuggestResponse } from '#app/features/search/search-query.ts'
import { suggestBooks } from '#app/features/search/search.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/search-suggest'

/**
 * GET /search/suggest?q=…: up to five books for the search box, as JSON. Any q is accepted: a missing,
 * empty or unusable one gets no suggestions (200), a long one is cut to 100 characters.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const query = normalizeQuery(new URL(request.url).searchParams.get('q'))
  const suggestions = query ? await suggestBooks(getAppContext(context).db, query) : []
  return Response.json({ suggestions } satisfies SuggestResponse, {
    // The same answer for everyone, and the catalogue changes rarely: a minute in caches saves queries
    // when several visitors (or one, deleting and retyping) ask the same.
    headers: { 'Cache-Control': 'public, max-age=60' },
  })
}
