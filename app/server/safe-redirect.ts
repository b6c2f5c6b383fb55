/** Any origin: a target is resolved against it only to see where it leads. */
const SITE = 'http://site.invalid'

/**
 * A redirect target from a form or query is only followed if it is a path on this site: '/books/x?y#z'.
 * Anything else ('//evil.example', 'https://…', '/\\evil', control characters) gives `fallback`.
 *
 * The path is returned as a URL parser writes it (dot segments resolved, characters outside ASCII
 * percent-encoded: '/книги' → '/%D0%BA…'), because a Location header holds bytes and `redirect('/книги')`
 * throws: every redirect to it was a 500 (issue 28). A path that resolves to '//host' (from '/.//host') would
 * leave the site and falls back too.
 */
export function safeRedirectPath(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  let url: URL
  try {
    url = new URL(value, SITE)
  } catch {
    return fallback
  }
  if (url.origin !== SITE) return fallback
  const path = `${url.pathname}${url.search}${url.hash}`
  return path.startsWith('//') ? fallback : path
}
