import { expect, test } from 'vitest'
import { parseEnv } from '#app/server/env.server.ts'
import { visitorKey } from './visitor-key.server.ts'

// Without a cart cookie the database is never read.
const services = { db: undefined as never, env: parseEnv({}), authSecret: 's'.repeat(32) }
const keyOf = (cookie?: string, language?: string) =>
  visitorKey(
    new Request('http://store/', {
      headers: {
        ...(cookie ? { Cookie: cookie } : {}),
        ...(language ? { 'Accept-Language': language } : {}),
      },
    }),
    services,
  )

test('the theme is in the key; a cookie the key does not capture (a session’s, any other) means no key', async () => {
  expect(await keyOf()).toBe('system\nen-US\n')
  expect(await keyOf('cb_theme=dark')).toBe('dark\nen-US\n')
  expect(await keyOf('cb_theme=nonsense')).toBe('system\nen-US\n')
  expect(await keyOf('cb_theme=dark; better-auth.session_token=abc.def')).toBeUndefined()
  expect(await keyOf('cb_theme=dark; tracker=1')).toBeUndefined()
})

test('the locale is in the key, as resolved: spellings of one locale share a key, garbage is the default', async () => {
  expect(await keyOf(undefined, 'de-DE,de;q=0.9')).toBe(await keyOf(undefined, 'de-DE'))
  expect(await keyOf(undefined, 'de-DE')).not.toBe(await keyOf(undefined, 'en-US'))
  expect(await keyOf(undefined, ';;;q=x,@@')).toBe(await keyOf())
})
