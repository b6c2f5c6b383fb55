import { createCookie } from 'react-router'
import { ThemeSchema, type Theme } from './theme.ts'

/** A display preference, not a secret: unsigned, validated on every read. A year, like most settings. */
const themeCookie = createCookie('cb_theme', {
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
  maxAge: 365 * 24 * 60 * 60,
})

export async function readTheme(request: Request): Promise<Theme> {
  const header = request.headers.get('Cookie')
  if (!header?.includes('cb_theme=')) return 'system'
  const parsed = ThemeSchema.safeParse(await themeCookie.parse(header))
  return parsed.success ? parsed.data : 'system'
}

export function serializeTheme(theme: Theme, secure: boolean): Promise<string> {
  return themeCookie.serialize(theme, { secure })
}
