import { browseCatalog, type CatalogPage } from '#app/features/catalog/browse.server.ts'
import type { CatalogQuery } from '#app/features/catalog/facets.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { searchMatchIds } from './search.server.ts'

export type CatalogSearchResults = {
  /** The query the results are for: the visitor's, or its correction when the visitor's found nothing. */
  query: string
  correctedFrom: string | null
  /** How many books match the words (before any filter), up to RESULT_CAP; `more` when there are more. */
  matchCount: number
  more: boolean
  /** The matches filtered, counted and sorted as the catalogue is; relevance is the search's rank. */
  page: CatalogPage
}

/** The search results page: the best matches of `q` (search.server.ts), then the catalogue's facets on them. */
export async function searchCatalog(db: Db, q: string, query: CatalogQuery): Promise<CatalogSearchResults> {
  const matches = await searchMatchIds(db, q)
  const page = await browseCatalog(db, query, matches.ids)
  return {
    query: matches.query,
    correctedFrom: matches.correctedFrom,
    matchCount: matches.ids.length,
    more: matches.more,
    page,
  }
}
