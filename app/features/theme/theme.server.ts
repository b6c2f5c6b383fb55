import { parse, serialize } from 'cookie'
import { isTheme, type Theme } from './theme.ts'

/** The theme's cookie: every page reads it, so the page cache keys on it (app/visitor-key.server.ts). */
export const THEME_COOKIE = 'cb_theme'
const ONE_YEAR = 365 * 24 * 60 * 60

/** A display preference, not a secret: a plain value, validated on every read. */
export function readTheme(request: Pick<Request, 'headers'>): Theme {
  const value = parse(request.headers.get('Cookie') ?? '')[THEME_COOKIE]
  return isTheme(value) ? value : 'system'
}

export function serializeTheme(theme: Theme, secure: boolean): string {
  return serialize(THEME_COOKIE, theme, {
    maxAge: ONE_YEAR,
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure,
  })
}
