import { useFetchers, useRouteLoaderData } from 'react-router'
import { z } from 'zod'

export const ThemeSchema = z.enum(['light', 'dark', 'system'])
export type Theme = z.infer<typeof ThemeSchema>

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
    const picked = ThemeSchema.safeParse(fetcher.formData?.get('theme'))
    if (picked.success) return picked.data
  }
  return root?.theme ?? 'system'
}
