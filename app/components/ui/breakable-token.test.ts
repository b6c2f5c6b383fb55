import { expect, test } from 'vitest'
import { tokenParts } from './breakable-token.tsx'

test('breaks before @ and dots, after slashes, underscores and hyphens; the parts make the whole', () => {
  expect(tokenParts('a.reader@example.com')).toEqual(['a', '.reader', '@example', '.com'])
  expect(tokenParts('pi_3NxYz')).toEqual(['pi_', '3NxYz'])
  expect(tokenParts('order 3dccc331-250c')).toEqual(['order 3dccc331-', '250c'])
  expect(tokenParts('/books/x')).toEqual(['/', 'books/', 'x'])
  expect(tokenParts('@..@')).toEqual(['@', '.', '.', '@'])
  expect(tokenParts('')).toEqual([])
  for (const text of ['x+tag@sub.example.co.uk', '..', 'a-b_c/d.e@f'])
    expect(tokenParts(text).join('')).toBe(text)
})
