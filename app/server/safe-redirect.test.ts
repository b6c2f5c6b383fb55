import { expect, test } from 'vitest'
import { safeRedirectPath } from './safe-redirect.ts'

test('same-site paths are kept', () => {
  for (const path of ['/', '/AllBooks', '/books/django-framework?x=1#book', '/search?q=a%20b']) {
    expect(safeRedirectPath(path)).toBe(path)
  }
})

test('anything that could leave the site falls back', () => {
  for (const target of [
    '//evil.example',
    'https://evil.example',
    '/\\evil.example',
    'evil',
    '',
    '/\nx',
    42,
    undefined,
  ]) {
    expect(safeRedirectPath(target, '/home')).toBe('/home')
  }
})

test('characters a Location header cannot hold are percent-encoded, in the path, the query and the fragment (issue 28)', () => {
  expect(safeRedirectPath('/книги')).toBe('/%D0%BA%D0%BD%D0%B8%D0%B3%D0%B8')
  expect(safeRedirectPath('/😀')).toBe('/%F0%9F%98%80')
  expect(safeRedirectPath('/search?q=книги#é')).toBe('/search?q=%D0%BA%D0%BD%D0%B8%D0%B3%D0%B8#%C3%A9')
  // Already encoded: left as it is, not encoded twice.
  expect(safeRedirectPath('/%D0%BA%D0%BD%D0%B8%D0%B3%D0%B8')).toBe('/%D0%BA%D0%BD%D0%B8%D0%B3%D0%B8')
  for (const target of ['/книги', '/😀', '/a?b=ü#ñ', '/\u{10FFFF}', '/\uD800']) {
    // What the Fetch API's Headers accepts: a Location a Response can carry.
    expect(() => new Headers({ Location: safeRedirectPath(target) })).not.toThrow()
  }
})

test('dot segments that would collapse into another host’s address fall back', () => {
  // '/.//evil.example' resolves to the path '//evil.example', which a browser reads as a host.
  for (const target of ['/.//evil.example', '/a/..//evil.example', '/%2e//evil.example']) {
    expect(safeRedirectPath(target, '/home')).toBe('/home')
  }
  expect(safeRedirectPath('/books/../AllBooks')).toBe('/AllBooks')
})
