import crypto from 'node:crypto'

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
  const attributes = [
    `Max-Age=${options.maxAgeSeconds}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ')
  return {
    name: options.name,
    read(cookieHeader) {
      const raw = readCookie(cookieHeader, options.name)
      const dot = raw?.lastIndexOf('.') ?? -1
      if (!raw || dot <= 0) return undefined
      const value = raw.slice(0, dot)
      const expected = Buffer.from(sign(value))
      const given = Buffer.from(raw.slice(dot + 1))
      return given.length === expected.length && crypto.timingSafeEqual(given, expected) ? value : undefined
    },
    serialize(value) {
      if (!/^[\w-]+$/.test(value)) throw new Error('signed cookie values are limited to [A-Za-z0-9_-]')
      return `${options.name}=${value}.${sign(value)}; ${attributes}`
    },
    clear() {
      return `${options.name}=; ${attributes.replace(/Max-Age=\d+/, 'Max-Age=0')}`
    },
  }
}

/** The raw value of cookie `name` in a Cookie header. */
export function readCookie(cookieHeader: string | null, name: string): string | undefined {
  if (!cookieHeader) return undefined
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=')
    if (separator > 0 && pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim()
  }
  return undefined
}
