import { useRouteLoaderData } from 'react-router'

/** What the root loader tells every page about who is signed in (never the user id). */
export type RootUserData = {
  user: { email: string; isGuest: boolean; isAdmin: boolean; emailVerified: boolean } | null
}

export function useOptionalUser(): RootUserData['user'] {
  const root = useRouteLoaderData('root') as RootUserData | undefined
  return root?.user ?? null
}
