import { expect, test } from 'vitest'
import { CookieJar, cookieHeader } from '#harness/cookie-jar.ts'

test('keeps what answers set, replaces a cookie set again, and sends them back as one Cookie header', () => {
  const jar = new CookieJar('theme=dark')
  jar.take(
    new Response(null, {
      headers: [
        [
          'Set-Cookie',
          'better-auth.session_token=abc.def%2B%3D; Max-Age=604800; Path=/; HttpOnly; SameSite=Lax',
        ],
        ['Set-Cookie', 'cb_cart=one; Path=/'],
      ],
    }),
  )
  jar.take(['cb_cart=two; Path=/'])
  expect(jar.header()).toBe('theme=dark; better-auth.session_token=abc.def%2B%3D; cb_cart=two')
  expect(jar.get('cb_cart')).toBe('two')
})

test('forgets a cookie an answer expires, by Max-Age or by a past Expires, and keeps one that expires later', () => {
  const previous = 'a=1; b=2; c=3; d=4'
  const expiring = [
    'a=; Max-Age=0; Path=/',
    'b=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/',
    `c=new; Expires=${new Date(Date.now() + 86_400_000).toUTCString()}; Path=/`,
  ]
  expect(cookieHeader(expiring, previous)).toBe('c=new; d=4')
  expect(cookieHeader(new Headers(), previous)).toBe(previous)
  expect(cookieHeader(undefined)).toBe('')
})
