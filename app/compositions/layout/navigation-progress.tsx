import { useEffect } from 'react'
import { useFetchers, useNavigation } from 'react-router'
import { preloadRouteOnIntent } from './route-preload.ts'

/**
 * Whether the page is waiting on the router: a navigation or a form submission in flight, or a fetcher's
 * submission (a cart button, a review vote). A fetcher's GET (the search box's suggestions as one types) is not
 * a wait the page should announce.
 */
export function usePendingNavigation(): boolean {
  const navigation = useNavigation()
  const fetchers = useFetchers()
  return (
    navigation.state !== 'idle' ||
    fetchers.some(
      (fetcher) => fetcher.state !== 'idle' && (fetcher.formMethod ?? 'GET').toUpperCase() !== 'GET',
    )
  )
}

/** A click or a submit older than this did not start the navigation now pending (a menu opened, then a redirect). */
const INTENT_MAX_AGE_MS = 2_000

/**
 * What a reader sees while the router fetches the next page's code and data (issue 35): a thin indeterminate
 * bar along the top of the window, `aria-busy` on the page's `<main>` (the layout sets it from the same hook),
 * and the link or button that started it marked `aria-busy` too, so the page in front of them does not look
 * ready when it is about to be replaced. Before JavaScript, links and forms are the browser's own navigations
 * and the browser shows its own progress.
 *
 * It also installs the intent preloader: a route's code is fetched when a pointer comes over one of its links,
 * when the link gets focus or on touchstart (route-preload.ts), so the click waits on data alone.
 */
export function NavigationProgress() {
  const pending = usePendingNavigation()

  useEffect(() => preloadRouteOnIntent(document), [])
  useEffect(() => rememberIntents(document), [])
  useEffect(() => {
    if (!pending) return
    const started = lastIntent
    if (!started || !started.element.isConnected || performance.now() - started.at > INTENT_MAX_AGE_MS) return
    const { element } = started
    element.setAttribute('aria-busy', 'true')
    element.dataset.pending = ''
    return () => {
      element.removeAttribute('aria-busy')
      delete element.dataset.pending
    }
  }, [pending])

  if (!pending) return null
  // Indeterminate (no aria-valuenow): the router cannot know how far along a fetch is.
  return <div role="progressbar" aria-label="Loading the page" className="navigation-progress" />
}

let lastIntent: { element: HTMLElement; at: number } | undefined

/** Remembers the last link or button clicked and the last form's submitter, before the router handles them. */
function rememberIntents(root: Document): () => void {
  const onClick = (event: MouseEvent) => {
    const element = event.target instanceof Element ? event.target.closest('a[href], button') : null
    if (element instanceof HTMLElement) lastIntent = { element, at: performance.now() }
  }
  const onSubmit = (event: SubmitEvent) => {
    const element = event.submitter ?? (event.target instanceof HTMLElement ? event.target : null)
    if (element) lastIntent = { element, at: performance.now() }
  }
  // Capture: these run before React Router's own handlers take the event over.
  root.addEventListener('click', onClick, true)
  root.addEventListener('submit', onSubmit, true)
  return () => {
    root.removeEventListener('click', onClick, true)
    root.removeEventListener('submit', onSubmit, true)
  }
}
