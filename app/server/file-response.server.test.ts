import { expect, test } from 'vitest'
import {
  byteRangeIn,
  contentDisposition,
  downloadHeaders,
  problemPage,
  rangeNotSatisfiable,
  rangeStillWanted,
  requestedRange,
} from './file-response.server.ts'

/** RFC 5987 ext-value with the UTF-8 charset and no language: only attr-char and %XX escapes. */
const extValue = /^UTF-8''((?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+\-.^_`|~])*)$/

/** Splits `attachment; filename="…"; filename*=…` into its two parameters (the quoted one may hold `;`). */
function parametersOf(header: string) {
  const match = /^attachment; filename="([^"\\]*)"; filename\*=(\S+)$/.exec(header)
  if (!match) throw new Error(`not the expected shape: ${header}`)
  return { fallback: match[1]!, extended: match[2]! }
}

test.each([
  ['plain ASCII', 'django-framework.pdf'],
  ['quotes and a backslash', 'the "best" o\'reilly\\book.pdf'],
  ['non-ASCII', 'Café — Ünïcödé 日本語 📚.epub'],
  ['characters encodeURIComponent leaves but attr-char forbids', "it's (really) *the* one.pdf"],
  ['percent signs and separators', '100% sure; a=b, c.pdf'],
])('Content-Disposition for a name with %s: a browser saves it under exactly that name', (_, name) => {
  const { fallback, extended } = parametersOf(contentDisposition(name))
  const value = extValue.exec(extended)?.[1]
  expect(value, `filename*=${extended} is not a valid RFC 5987 ext-value`).toBeDefined()
  expect(decodeURIComponent(value!)).toBe(name)
  // The old-client fallback: printable ASCII that cannot end or escape the quoted string, nor be decoded.
  expect(fallback).toMatch(/^[\x20-\x7e]*$/)
  expect(fallback).not.toMatch(/["\\%]/)
  // …which still ends in the right extension, so the saved file opens.
  expect(fallback.endsWith(name.slice(name.lastIndexOf('.')))).toBe(true)
})

test('a plain name is its own fallback', () => {
  expect(contentDisposition('django-framework-sample.pdf')).toBe(
    `attachment; filename="django-framework-sample.pdf"; filename*=UTF-8''django-framework-sample.pdf`,
  )
})

test('download headers give the exact length, the type and no sniffing', () => {
  expect(
    downloadHeaders(
      { size: 1234, fileName: 'a.pdf', contentType: 'application/pdf' },
      { cacheControl: 'private, no-store' },
    ),
  ).toMatchObject({
    'Content-Type': 'application/pdf',
    'Content-Length': '1234',
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
  })
})

test('a problem page is an HTML page with its status, a title, the message (escaped) and a way on', async () => {
  const response = problemPage(429, 'Wait <b>20</b> hours & "retry"', undefined, { 'Retry-After': '72000' })
  expect(response.status).toBe(429)
  expect(response.headers.get('Content-Type')).toBe('text/html; charset=utf-8')
  expect(response.headers.get('Cache-Control')).toBe('no-store')
  expect(response.headers.get('Retry-After')).toBe('72000')
  const html = await response.text()
  expect(html).toContain('<title>Too many downloads — CodeBook</title>')
  expect(html).toContain('<h1>Too many downloads</h1>')
  expect(html).toContain('Wait &#60;b&#62;20&#60;/b&#62; hours &#38; &#34;retry&#34;')
  expect(html).toContain('<a href="/account/library">Go to my library</a>')
})

const get = (headers: Record<string, string>, method = 'GET') =>
  new Request('http://store/library/a/download.pdf', { method, headers })

test.each([
  ['bytes=0-99', { first: 0, last: 99 }, { start: 0, end: 99 }],
  ['bytes=100-', { first: 100, last: null }, { start: 100, end: 999 }],
  ['bytes=-100', { suffix: 100 }, { start: 900, end: 999 }],
  ['bytes=-5000', { suffix: 5000 }, { start: 0, end: 999 }],
  ['bytes=990-5000', { first: 990, last: 5000 }, { start: 990, end: 999 }],
  ['Bytes=7-7', { first: 7, last: 7 }, { start: 7, end: 7 }],
  ['bytes=999-', { first: 999, last: null }, { start: 999, end: 999 }],
  ['bytes=1000-', { first: 1000, last: null }, null],
  ['bytes=999999999999999999999-', { first: 1e21, last: null }, null],
  ['bytes=-0', { suffix: 0 }, null],
])('Range %s of a 1000-byte file', (header, asked, bytes) => {
  const range = requestedRange(get({ Range: header }))
  expect(range).toEqual({ ...asked, ifRange: null })
  expect(byteRangeIn(range!, 1000)).toEqual(bytes)
})

test.each([
  'bytes=0-99,200-299',
  'bytes=0-99, 200-',
  'bytes=99-0',
  'bytes=abc',
  'bytes=',
  'bytes=-',
  'bytes=1.5-2',
  'items=0-99',
  'bytes 0-99',
])('Range %s is ignored: the whole file', (header) => {
  expect(requestedRange(get({ Range: header }))).toBeNull()
})

test('a Range is for GET only: a HEAD ignores it', () => {
  expect(requestedRange(get({ Range: 'bytes=0-99' }, 'HEAD'))).toBeNull()
  expect(requestedRange(get({}))).toBeNull()
})

test('If-Range: the range stands only for the file’s current strong ETag', () => {
  const etag = '"0123456789abcdef"'
  const withIfRange = (ifRange?: string) =>
    requestedRange(get({ Range: 'bytes=0-9', ...(ifRange === undefined ? {} : { 'If-Range': ifRange }) }))!
  expect(rangeStillWanted(withIfRange(), etag)).toBe(true)
  expect(rangeStillWanted(withIfRange(), undefined)).toBe(true)
  expect(rangeStillWanted(withIfRange(etag), etag)).toBe(true)
  expect(rangeStillWanted(withIfRange('"another"'), etag)).toBe(false)
  expect(rangeStillWanted(withIfRange(`W/${etag}`), `W/${etag}`)).toBe(false)
  expect(rangeStillWanted(withIfRange('Wed, 21 Oct 2015 07:28:00 GMT'), etag)).toBe(false)
  expect(rangeStillWanted(withIfRange(etag), undefined)).toBe(false)
})

test('a part’s headers say which bytes of the whole it holds; 416 gives the size', () => {
  const file = { size: 1000, fileName: 'a.pdf', contentType: 'application/pdf', etag: '"e"' }
  expect(
    downloadHeaders(file, { cacheControl: 'private, no-store', range: { start: 100, end: 199 } }),
  ).toMatchObject({
    'Content-Length': '100',
    'Content-Range': 'bytes 100-199/1000',
    'Accept-Ranges': 'bytes',
    ETag: '"e"',
  })
  expect(downloadHeaders(file, { cacheControl: 'private, no-store' })).not.toHaveProperty('Content-Range')
  const refused = rangeNotSatisfiable(1000)
  expect(refused.status).toBe(416)
  expect(refused.headers.get('Content-Range')).toBe('bytes */1000')
})
