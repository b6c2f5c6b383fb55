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
