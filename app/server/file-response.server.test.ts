import { expect, test } from 'vitest'
import { contentDisposition, downloadHeaders, problemPage } from './file-response.server.ts'

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
