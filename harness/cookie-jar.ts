import { getCookies, getSetCookies } from 'undici'

/** Where Set-Cookie headers come from: a response, its headers, or the header values (as `node:http` gives them). */
export type SetCookies = { headers: Headers } | Headers | readonly string[] | string | undefined

/**
 * The cookies a browser keeps for the store, for tests and drills that carry a visitor across requests: it takes
 * the Set-Cookie headers of each answer (undici's parser; a cookie that expires, by Max-Age or Expires, is
 * dropped) and gives the Cookie header of the next request.
 */
export class CookieJar {
  readonly #cookies = new Map<string, string>()

  /** A jar holding the cookies of a Cookie header (`name=value; …`). */
  constructor(cookie = '') {
    for (const [name, value] of Object.entries(getCookies(new Headers({ cookie }))))
      if (name) this.#cookies.set(name, value)
  }

  /** Keeps the cookies an answer sets, and forgets the ones it expires. */
  take(from: SetCookies): this {
    for (const cookie of getSetCookies(headersOf(from))) {
      if (!cookie) continue // not a cookie a browser would store (RFC 6265bis: e.g. over 4 kB)
      const expires = cookie.expires === undefined ? undefined : new Date(cookie.expires).getTime()
      const expired =
        (cookie.maxAge !== undefined && cookie.maxAge <= 0) ||
        (expires !== undefined && expires <= Date.now())
      if (expired) this.#cookies.delete(cookie.name)
      else this.#cookies.set(cookie.name, cookie.value)
    }
    return this
  }

  get(name: string): string | undefined {
    return this.#cookies.get(name)
  }

  /** The Cookie header to send: `name=value; …` ('' when empty). */
  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
  }
}

/** The Cookie header a browser sends after holding `previous` and receiving these Set-Cookie headers. */
export function cookieHeader(from: SetCookies, previous = ''): string {
  return new CookieJar(previous).take(from).header()
}

/**
 * The Cookie header a store's form post answers with (a login, a book added to the cart), as a browser would
 * keep it; an answer other than a redirect with a cookie is an error.
 */
export async function cookieFromForm(storeUrl: string, path: string, form: URLSearchParams): Promise<string> {
  const response = await fetch(`${storeUrl}${path}`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { Origin: storeUrl },
  })
  const cookie = cookieHeader(response)
  if (response.status !== 303 || !cookie)
    throw new Error(`POST ${path} answered ${response.status} without a cookie`)
  return cookie
}

function headersOf(from: SetCookies): Headers {
  if (from instanceof Headers) return from
  if (from !== undefined && typeof from === 'object' && 'headers' in from) return from.headers
  const headers = new Headers()
  for (const value of typeof from === 'string' ? [from] : (from ?? [])) headers.append('Set-Cookie', value)
  return headers
}
