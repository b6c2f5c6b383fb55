import { expect, test } from 'vitest'
import { parseEnv } from '#app/server/env.server.ts'
import { visitorKey } from './visitor-key.server.ts'

// Without a cart cookie the database is never read.
const services = { db: undefined as never, env: parseEnv({}), authSecret: 's'.repeat(32) }
const keyOf = (cookie?: string) =>
  visitorKey(new Request('http://store/', { headers: cookie ? { Cookie: cookie } : {} }), services)

test('the theme is in the key; a cookie the key does not capture (a session’s, any other) means no key', async () => {
  expect(await keyOf()).toBe('system\n')
  expect(await keyOf('cb_theme=dark')).toBe('dark\n')
  expect(await keyOf('cb_theme=nonsense')).toBe('system\n')
  expect(await keyOf('cb_theme=dark; better-auth.session_token=abc.def')).toBeUndefined()
  expect(await keyOf('cb_theme=dark; tracker=1')).toBeUndefined()
})
