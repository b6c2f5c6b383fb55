import { readCookie } from '#app/server/signed-cookie.server.ts'
import { isTheme, type Theme } from './theme.ts'

const THEME_COOKIE = 'cb_theme'
const ONE_YEAR = 365 * 24 * 60 * 60

/** A display preference, not a secret: a plain value, validated on every read. */
export function readTheme(request: Request): Theme {
  const value = readCookie(request.headers.get('Cookie'), THEME_COOKIE)
  return isTheme(value) ? value : 'system'
}

export function serializeTheme(theme: Theme, secure: boolean): string {
  return `${THEME_COOKIE}=${theme}; Max-Age=${ONE_YEAR}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}
