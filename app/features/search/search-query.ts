/** What the search box sends and the search URLs accept; shared by the browser and the server. */

export const MAX_QUERY_LENGTH = 100
export const SEARCH_PATH = '/search'
export const SUGGEST_PATH = '/search/suggest'
export const SUGGESTION_LIMIT = 5

/** A book offered while typing; its page is /books/<slug>. */
export type Suggestion = { slug: string; title: string; author: string }

/** The JSON of /search/suggest. */
export type SuggestResponse = { suggestions: Suggestion[] }

/**
 * Any string becomes a query that is safe to search for: control characters (PostgreSQL rejects NUL in
 * text) and unpaired surrogates become spaces, runs of white space collapse, and the result is cut to
 * MAX_QUERY_LENGTH characters (code points, so a character is never cut in half). '' means no query.
 */
export function normalizeQuery(raw: string | null | undefined): string {
  if (!raw) return ''
  const cleaned = raw
    .replace(/[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return Array.from(cleaned).slice(0, MAX_QUERY_LENGTH).join('').trim()
}

/** The results page for a query; page 1 has no page parameter. */
export function searchUrl(query: string, page = 1): string {
  const params = new URLSearchParams({ q: query })
  if (page > 1) params.set('page', String(page))
  return `${SEARCH_PATH}?${params}`
}

/** A page number from the URL: a positive whole number, else 1. */
export function parsePage(raw: string | null): number {
  if (!raw || !/^\d{1,6}$/.test(raw)) return 1
  return Math.max(1, Number(raw))
}
