/**
 * A redirect target from a form or query is only followed if it is a path on this site: '/books/x?y#z'.
 * Anything else ('//evil.example', 'https://…', '/\\evil', control characters) gives `fallback`.
 */
export function safeRedirectPath(value: unknown, fallback = '/'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return fallback
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback
  return value
}
