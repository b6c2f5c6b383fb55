import { expect, test } from 'vitest'
import { containing, escapeLike } from './like.server.ts'

test('what a person types is looked for as typed: % _ and \\ are not wildcards', () => {
  expect(escapeLike('50%_off\\now')).toBe('50\\%\\_off\\\\now')
  expect(containing('a_b')).toBe('%a\\_b%')
  expect(containing('')).toBe('%%')
})
