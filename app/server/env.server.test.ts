import path from 'node:path'
import { describe, expect, test } from 'vitest'
import { parseEnv } from './env.server.ts'

describe('parseEnv', () => {
  test('a fresh clone needs no configuration', () => {
    const env = parseEnv({})
    expect(env.PORT).toBe(3000)
    expect(env.DATABASE_URL).toBeUndefined()
    expect(env.DATA_DIR).toBe(path.resolve('data'))
    expect(env.TRUST_PROXY).toBe(false)
    expect(env.publicUrl.href).toBe('http://localhost:3000/')
  })

  test('a bad value names the variable and the value', () => {
    expect(() => parseEnv({ PORT: 'abc' })).toThrow(/PORT: .*\(got "abc"\)/)
    expect(() => parseEnv({ PORT: '70000' })).toThrow(/PORT/)
    expect(() => parseEnv({ DATABASE_URL: 'mysql://x' })).toThrow(
      /DATABASE_URL: expected a postgres:\/\/ URL/,
    )
    expect(() => parseEnv({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/)
    expect(() => parseEnv({ BETTER_AUTH_URL: 'not a url' })).toThrow(/BETTER_AUTH_URL/)
    expect(() => parseEnv({ TRUST_PROXY: 'yes please' })).toThrow(/TRUST_PROXY/)
  })

  test('secrets and database credentials are never echoed back', () => {
    expect(() => parseEnv({ BETTER_AUTH_SECRET: 'short-secret' })).toThrow(
      /BETTER_AUTH_SECRET: .*\(got "\*\*\*"\)/,
    )
    expect(() => parseEnv({ BETTER_AUTH_SECRET: 'short-secret' })).not.toThrow(/short-secret/)
  })

  test('production on a real database requires the auth secret', () => {
    const production = { NODE_ENV: 'production', DATABASE_URL: 'postgres://u:p@db/codebook' }
    expect(() => parseEnv(production)).toThrow(/BETTER_AUTH_SECRET: required in production/)
    expect(parseEnv({ ...production, BETTER_AUTH_SECRET: 'x'.repeat(32) }).DATABASE_URL).toBe(
      production.DATABASE_URL,
    )
  })

  test('TRUST_PROXY accepts hop counts and address lists, and refuses to believe every proxy', () => {
    expect(parseEnv({ TRUST_PROXY: 'false' }).TRUST_PROXY).toBe(false)
    expect(() => parseEnv({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY: 'true' would believe any client/)
    expect(parseEnv({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2)
    expect(parseEnv({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toEqual(['loopback', '10.0.0.0/8'])
  })

  test('STORE_CURRENCIES: the base currency first, then the others; only currencies with cents', () => {
    expect(parseEnv({}).STORE_CURRENCIES).toEqual(['USD'])
    expect(parseEnv({ STORE_CURRENCIES: 'usd, EUR,GBP,EUR' }).STORE_CURRENCIES).toEqual(['USD', 'EUR', 'GBP'])
    expect(() => parseEnv({ STORE_CURRENCIES: 'USD,JPY' })).toThrow(
      /STORE_CURRENCIES.*1: expected .* with cents/,
    )
    expect(() => parseEnv({ STORE_CURRENCIES: 'USD,EURO' })).toThrow(/STORE_CURRENCIES/)
    expect(() => parseEnv({ STORE_CURRENCIES: 'USD,XYZ' })).toThrow(/STORE_CURRENCIES/)
  })

  test('an empty variable counts as unset', () => {
    expect(parseEnv({ PORT: '', DATABASE_URL: '' }).PORT).toBe(3000)
  })

  test('an https public URL is kept for HSTS and secure cookies', () => {
    expect(parseEnv({ BETTER_AUTH_URL: 'https://books.example' }).publicUrl.protocol).toBe('https:')
  })
})
