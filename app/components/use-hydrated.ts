import { startTransition, useEffect, useState } from 'react'

/**
 * False while the server renders and the browser hydrates, true once React runs in the browser: for what only
 * works with JavaScript (a slider, a lazily loaded panel). Set in a transition after hydration, not by
 * `useSyncExternalStore`'s server snapshot: a snapshot that differs after hydration makes React re-render
 * synchronously, in the same long task as the page's effects (issue 35's trace); a transition is rendered in
 * slices that yield to the browser.
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false)
  useEffect(() => startTransition(() => setHydrated(true)), [])
  return hydrated
}
