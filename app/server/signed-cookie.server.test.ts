import { expect, test } from 'vitest'
import { signedCookie } from './signed-cookie.server.ts'

const cookie = signedCookie({ name: 'cb_cart', secret: 's'.repeat(32), maxAgeSeconds: 60, secure: false })

test('a value survives the round trip; the header has the security attributes', () => {
  const header = cookie.serialize('0b9d0a4e-1f4c-4c8e-9a0e-3c1c6a0d2f11')
  expect(header).toMatch(
    /^cb_cart=0b9d0a4e-1f4c-4c8e-9a0e-3c1c6a0d2f11\.[\w-]{43}; Max-Age=60; Path=\/; HttpOnly; SameSite=Lax$/,
  )
  const sent = header.split(';')[0]!
  expect(cookie.read(`a=1; ${sent}; b=2`)).toBe('0b9d0a4e-1f4c-4c8e-9a0e-3c1c6a0d2f11')
})

test('a tampered value, a foreign signature or garbage reads as nothing', () => {
  const sent = cookie.serialize('abc').split(';')[0]!
  const other = signedCookie({ name: 'cb_cart', secret: 'o'.repeat(32), maxAgeSeconds: 60, secure: true })
  expect(cookie.read(sent.replace('abc', 'abd'))).toBeUndefined()
  expect(cookie.read(other.serialize('abc').split(';')[0]!)).toBeUndefined()
  for (const header of [null, '', 'cb_cart=', 'cb_cart=abc', 'cb_cart=.sig', 'cb_cart=abc.']) {
    expect(cookie.read(header)).toBeUndefined()
  }
  expect(other.serialize('x')).toContain('; Secure')
  expect(() => cookie.serialize('a;b')).toThrow('signed cookie values are limited to [A-Za-z0-9_-]')
})

test('the cookie is found by its exact name only', () => {
  const value = cookie.serialize('abc').split(';')[0]!.slice('cb_cart='.length)
  expect(cookie.read(`xcb_cart=${value}; cb_cart_x=${value}`)).toBeUndefined()
  expect(cookie.read(`xcb_cart=${value}; cb_cart=${value}`)).toBe('abc')
})
