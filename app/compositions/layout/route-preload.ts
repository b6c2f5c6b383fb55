import { matchRoutes, type RouteObject } from 'react-router'

/** What React Router's browser manifest says of a route (the fields this file reads). */
type ManifestRoute = {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  caseSensitive?: boolean
  module: string
  imports?: string[]
  css?: string[]
}

declare global {
  interface Window {
    __reactRouterManifest?: { routes: Record<string, ManifestRoute | undefined> }
  }
}

/**
 * Fetches a route's code when a reader shows they may follow one of its links (issue 35): the pointer comes over
 * it, it gets the keyboard's focus, or a finger touches it. The click then waits on the page's data alone, not
 * on its script being fetched and evaluated first — on a slow phone the larger part of the wait.
 *
 * Code only, on purpose: React Router's `prefetch="intent"` also fetches the page's loader data, which would count
 * a book page as viewed when a pointer merely crossed its card, and load the server for pages nobody opens.
 * Each module is asked for once, as a `<link rel="modulepreload">`: the browser fetches and compiles it, and
 * the router's own `import()` of it on the click finds it ready. Routes React Router has not discovered yet
 * (lazy route discovery: it learns the routes behind the links a page renders) are left to the router.
 * Returns the function that removes the listeners.
 */
export function preloadRouteOnIntent(root: Document): () => void {
  const requested = new Set<string>()
  // `pointerover` fires for every element the pointer crosses inside a link: each path is matched once.
  const preloadedPaths = new Set<string>()
  const onIntent = (event: Event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null
    if (!(link instanceof HTMLAnchorElement) || link.hasAttribute('download')) return
    if (link.target && link.target !== '_self') return
    const url = new URL(link.href, root.baseURI)
    if (url.origin !== root.location.origin || preloadedPaths.has(url.pathname)) return
    const hrefs = routeModuleHrefs(url.pathname)
    // A route not discovered yet is tried again on the next intent.
    if (hrefs.length > 0) preloadedPaths.add(url.pathname)
    for (const href of hrefs) {
      if (requested.has(href)) continue
      requested.add(href)
      const preload = root.createElement('link')
      preload.rel = 'modulepreload'
      preload.href = href
      root.head.append(preload)
    }
  }
  const options = { capture: true, passive: true }
  root.addEventListener('pointerover', onIntent, options)
  root.addEventListener('focusin', onIntent, options)
  root.addEventListener('touchstart', onIntent, options)
  return () => {
    root.removeEventListener('pointerover', onIntent, options)
    root.removeEventListener('focusin', onIntent, options)
    root.removeEventListener('touchstart', onIntent, options)
  }
}

/** The scripts the routes matching `pathname` are made of, by the browser manifest (none if it has no match). */
export function routeModuleHrefs(
  pathname: string,
  manifest: Record<string, ManifestRoute | undefined> = window.__reactRouterManifest?.routes ?? {},
): string[] {
  const matches = matchRoutes(routeTree(manifest), pathname) ?? []
  const hrefs = matches.flatMap(({ route }) => {
    const entry = route.id ? manifest[route.id] : undefined
    return entry ? [entry.module, ...(entry.imports ?? [])] : []
  })
  return [...new Set(hrefs)]
}

/** The manifest's flat list of routes as the tree `matchRoutes` takes. */
function routeTree(manifest: Record<string, ManifestRoute | undefined>): RouteObject[] {
  const children = new Map<string | undefined, RouteObject[]>()
  const entries = Object.values(manifest).filter((entry) => entry !== undefined)
  for (const entry of entries) {
    const siblings = children.get(entry.parentId) ?? []
    children.set(entry.parentId, siblings)
    siblings.push(
      entry.index
        ? { id: entry.id, index: true, caseSensitive: entry.caseSensitive }
        : { id: entry.id, path: entry.path, caseSensitive: entry.caseSensitive },
    )
  }
  const attach = (routes: RouteObject[]): RouteObject[] =>
    routes.map((route) => {
      const below = children.get(route.id)
      return below && !route.index ? { ...route, children: attach(below) } : route
    })
  return attach(children.get(undefined) ?? [])
}
