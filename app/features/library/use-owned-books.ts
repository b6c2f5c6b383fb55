import { useRouteLoaderData } from 'react-router'

/** What the root loader tells every page about the books the reader owns. */
export type RootLibraryData = { ownedBookIds: string[] }

export function useOwnedBookIds(): ReadonlySet<string> {
  const root = useRouteLoaderData('root') as RootLibraryData | undefined
  return new Set(root?.ownedBookIds ?? [])
}
