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

/** `attachment; filename="…"` with an RFC 5987 `filename*` for any name beyond plain ASCII. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
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
