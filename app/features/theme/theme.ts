import { useFetchers, useRouteLoaderData } from 'react-router'

// No zod here: this module runs in the browser, and zod probes for eval, which our CSP forbids.
export const themes = ['light', 'dark', 'system'] as const
export type Theme = (typeof themes)[number]

export function isTheme(value: unknown): value is Theme {
  return themes.includes(value as Theme)
}

export const themeOptions: ReadonlyArray<{ value: Theme; label: string }> = [
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
  { value: 'system', label: 'System' },
]

export const THEME_ACTION = '/theme'

/** The theme to render: the visitor's saved choice, or the one they just picked while it is being saved. */
export function useTheme(): Theme {
  const root = useRouteLoaderData('root') as { theme: Theme } | undefined
  for (const fetcher of useFetchers()) {
    if (fetcher.formAction !== THEME_ACTION) continue
    const picked = fetcher.formData?.get('theme')
    if (isTheme(picked)) return picked
  }
  return root?.theme ?? 'system'
}
