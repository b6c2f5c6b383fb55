/** Headers for a file sent as a download: its type, its exact length and the name to save it under. */
export function downloadHeaders(
  file: { size: number; fileName: string; contentType: string },
  { cacheControl }: { cacheControl: string },
): Record<string, string> {
  return {
    'Content-Type': file.contentType,
    'Content-Length': String(file.size),
    'Content-Disposition': contentDisposition(file.fileName),
    'Cache-Control': cacheControl,
    'X-Content-Type-Options': 'nosniff',
  }
}

/**
 * `attachment; filename="…"` with an RFC 5987 `filename*` for any name beyond plain ASCII (RFC 6266). The plain
 * `filename` is for old clients: printable ASCII only, with `"` and `\` (which would end or escape the quoted
 * string) and `%` (which some browsers percent-decode there) replaced.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(fileName)}`
}

/**
 * Percent-encodes all but RFC 5987's attr-char. encodeURIComponent leaves `'()*` as they are, which attr-char
 * does not allow (`'` even separates the charset and language from the value).
 */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}

/**
 * A small, self-contained HTML page for a refused file request (the file routes are resource routes, outside
 * the React app): the status, a sentence saying why, and a way on.
 */
export function problemPage(
  status: number,
  message: string,
  next: { href: string; label: string } = { href: '/account/library', label: 'Go to my library' },
  headers: HeadersInit = {},
): Response {
  const titles: Record<number, string> = {
    403: 'Not yours to download',
    404: 'Not found',
    429: 'Too many downloads',
    503: 'Please try again shortly',
  }
  const title = titles[status] ?? 'Something went wrong'
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — CodeBook</title></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>
<p><a href="${escapeHtml(next.href)}">${escapeHtml(next.label)}</a> · <a href="/">CodeBook home</a></p></main></body></html>`
  return new Response(html, {
    status,
    headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  })
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
