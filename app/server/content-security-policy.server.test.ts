import { expect, test } from 'vitest'
import { contentSecurityPolicy } from './content-security-policy.server.ts'

const directives = (policy: string) =>
  Object.fromEntries(policy.split('; ').map((directive) => [directive.split(' ')[0], directive]))

test('a page’s additions extend only the directives it names; frames stay the default’s otherwise', () => {
  const plain = directives(contentSecurityPolicy(["'nonce-abc'"], false))
  expect(plain['frame-src']).toBeUndefined()
  expect(plain['style-src']).toBe("style-src 'self'")
  const reader = directives(
    contentSecurityPolicy(["'nonce-abc'"], false, [], {
      'frame-src': ['blob:'],
      'style-src': ['blob:', "'sha256-x'"],
      'img-src': ['blob:'],
    }),
  )
  expect(reader['frame-src']).toBe("frame-src 'self' blob:")
  expect(reader['style-src']).toBe("style-src 'self' blob: 'sha256-x'")
  expect(reader['img-src']).toBe("img-src 'self' data: blob:")
  expect(reader['script-src']).toBe(plain['script-src'])
  expect(reader['font-src']).toBe(plain['font-src'])
  expect(reader['frame-ancestors']).toBe("frame-ancestors 'none'")
})
