import crypto from 'node:crypto'
import { parse, serialize, type SerializeOptions } from 'cookie'

/**
 * A small HMAC-signed cookie: `name=value.signature`. React Router's signed cookies verify through WebCrypto,
 * asynchronously, on every request; measured here that cost more than rendering the page, so the cart id
 * (read on every page a shopper opens) is signed with node:crypto's synchronous HMAC instead.
 */
export type SignedCookie = {
  name: string
  /** The verified value from a Cookie header, or undefined if absent or tampered with. */
  read(cookieHeader: string | null): string | undefined
  /** A Set-Cookie header carrying `value`. */
  serialize(value: string): string
  /** A Set-Cookie header that deletes the cookie. */
  clear(): string
}

export function signedCookie(options: {
  name: string
  secret: string
  maxAgeSeconds: number
  secure: boolean
}): SignedCookie {
  const sign = (value: string) =>
    crypto.createHmac('sha256', options.secret).update(value).digest('base64url')
  const attributes: SerializeOptions = {
    maxAge: options.maxAgeSeconds,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: options.secure,
  }
  return {
    name: options.name,
    read(cookieHeader) {
      const raw = cookieHeader ? parse(cookieHeader)[options.name] : undefined
      const dot = raw?.lastIndexOf('.') ?? -1
      if (!raw || dot <= 0) return undefined
      const value = raw.slice(0, dot)
      const expected = Buffer.from(sign(value))
      const given = Buffer.from(raw.slice(dot + 1))
      return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? value : undefined
    },
    serialize(value) {
      if (!/^[\w-]+$/.test(value)) throw new Error('signed cookie values are limited to [A-Za-z0-9_-]')
      return serialize(options.name, `${value}.${sign(value)}`, attributes)
    },
    clear() {
      return serialize(options.name, '', { ...attributes, maxAge: 0 })
    },
  }
}
