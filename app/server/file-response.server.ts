import type { ByteRange, FileStorage } from './storage.server.ts'
import { escapeHtml } from '#app/server/escape-html.ts'

/**
 * Headers for a file sent as a download: its type, its exact length and the name to save it under, that parts
 * of it may be asked for (`Accept-Ranges`), its ETag when it has one, and for a part (206) which bytes of the
 * whole these are (`Content-Range`, the length being the part's).
 */
export function downloadHeaders(
  file: { size: number; fileName: string; contentType: string; etag?: string },
  { cacheControl, range = null }: { cacheControl: string; range?: ByteRange | null },
): Record<string, string> {
  return {
    'Content-Type': file.contentType,
    'Content-Length': String(range ? range.end - range.start + 1 : file.size),
    ...(range ? { 'Content-Range': `bytes ${range.start}-${range.end}/${file.size}` } : {}),
    'Accept-Ranges': 'bytes',
    ...(file.etag ? { ETag: file.etag } : {}),
    'Content-Disposition': contentDisposition(file.fileName),
    'Cache-Control': cacheControl,
    'X-Content-Type-Options': 'nosniff',
  }
}

/**
 * One byte range as a client asks for it (RFC 9110 §14.1.2), before the file's size is known: from `first` to
 * `last` (the end when null), or the last `suffix` bytes. `ifRange` is the request's If-Range, if any.
 */
export type RangeRequest = ({ first: number; last: number | null } | { suffix: number }) & {
  ifRange: string | null
}

const singleRange = /^bytes=[ \t]*(?:(\d+)-(\d*)|-(\d+))[ \t]*$/i

/**
 * The single range a GET asks for, or null to send the whole file, which RFC 9110 §14.2 allows whenever the
 * server will not serve the range: no Range header, a method other than GET (a HEAD's Range is ignored), a unit
 * other than bytes, several ranges (readers and download managers of one file ask for one at a time; a
 * multipart answer is not worth its code), or a malformed one (`bytes=abc`, `bytes=9-0`).
 */
export function requestedRange(request: Request): RangeRequest | null {
  const header = request.headers.get('Range')
  if (request.method !== 'GET' || header === null) return null
  const match = singleRange.exec(header)
  if (!match) return null
  const ifRange = request.headers.get('If-Range')
  const [, first, last, suffix] = match
  if (suffix !== undefined) return { suffix: Number(suffix), ifRange }
  const range = { first: Number(first), last: last ? Number(last) : null, ifRange }
  return range.last !== null && range.last < range.first ? null : range
}

/**
 * Whether a range is still to be served once the file's ETag is known: always without If-Range; with it, only
 * when it names the file's current strong ETag (a resumed download of a copy that has changed since gets the
 * whole new copy, never its bytes spliced into the old). An If-Range date is never matched: these files send
 * no Last-Modified.
 */
export function rangeStillWanted(range: RangeRequest, etag: string | undefined): boolean {
  if (range.ifRange === null) return true
  return etag !== undefined && !etag.startsWith('W/') && range.ifRange.trim() === etag
}

/** The inclusive bytes a range names in a file of `size` bytes, or null when there are none (416). */
export function byteRangeIn(range: RangeRequest, size: number): ByteRange | null {
  if ('suffix' in range) {
    if (range.suffix === 0 || size === 0) return null
    return { start: Math.max(0, size - range.suffix), end: size - 1 }
  }
  if (range.first >= size) return null
  return { start: range.first, end: Math.min(range.last ?? size - 1, size - 1) }
}

/** 416 for a range that starts past the end of a file, with the file's size as RFC 9110 §15.5.17 asks. */
export function rangeNotSatisfiable(size: number, next?: { href: string; label: string }): Response {
  return problemPage(
    416,
    `The part of the file asked for is not in it: the file is ${size} bytes long.`,
    next,
    { 'Content-Range': `bytes */${size}`, 'Accept-Ranges': 'bytes' },
  )
}

/**
 * A small file held in memory (a free sample), for anyone: 304 for the ETag the client has, the one part a
 * Range asks for (206; 416 past its end, with a way back), or the whole file. `etag` names these bytes.
 */
export function publicFileResponse(
  request: Request,
  bytes: Uint8Array,
  file: { etag: string; fileName: string; contentType: string; cacheControl: string },
  back?: { href: string; label: string },
): Response {
  const { cacheControl, ...described } = file
  const headers = { ...described, size: bytes.length }
  if (request.headers.get('If-None-Match') === file.etag)
    return new Response(null, { status: 304, headers: { ETag: file.etag } })
  const range = requestedRange(request)
  if (range && rangeStillWanted(range, file.etag)) {
    const part = byteRangeIn(range, bytes.length)
    if (!part) return rangeNotSatisfiable(bytes.length, back)
    return new Response(bytes.slice(part.start, part.end + 1), {
      status: 206,
      headers: downloadHeaders(headers, { cacheControl, range: part }),
    })
  }
  // A copy: a Response takes bytes on an ArrayBuffer of their own.
  return new Response(bytes.slice(), { headers: downloadHeaders(headers, { cacheControl }) })
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
    416: 'Range not satisfiable',
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

const imageTypes = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg', png: 'image/png' } as const
export type ImageFormat = keyof typeof imageTypes

/**
 * An uploaded image's variant (a cover, an author's photo, the logo) from storage, by a name that holds a hash of
 * the upload: a file never changes under its URL, so browsers and CDNs may keep it for a year. `key` null (a name
 * of the wrong shape) or a file not stored: 404.
 */
export async function storedImageResponse(
  storage: FileStorage,
  key: string | null,
  format: ImageFormat,
): Promise<Response> {
  const stored = key === null ? null : await storage.createReadStream(key)
  if (!stored)
    return new Response('Not found', {
      status: 404,
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    })
  return new Response(stored.stream, {
    headers: {
      'Content-Type': imageTypes[format],
      'Content-Length': String(stored.size),
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
