import { matchRoutes, type RouteObject, type ServerBuild } from 'react-router'

export type RouteTemplateOf = (pathname: string) => Promise<string | undefined>

/**
 * The route path template a URL path matches ('/books/:slug' for '/books/go-in-action'), from the build's
 * route manifest; undefined when no route matches (the catch-all's '/*' counts as a match). For labels that
 * must not carry what a visitor typed: analytics' page views, the metrics' route label.
 */
export function routeTemplates(build: ServerBuild | (() => Promise<ServerBuild>)): RouteTemplateOf {
  const trees = new WeakMap<ServerBuild, RouteObject[]>()
  return async (pathname) => {
    const current = typeof build === 'function' ? await build() : build
    let tree = trees.get(current)
    if (!tree) trees.set(current, (tree = routeTree(current)))
    return templateOf(tree, pathname)
  }
}

function templateOf(tree: RouteObject[], pathname: string): string | undefined {
  const matches = matchRoutes(tree, pathname)
  return matches ? templateOfMatches(matches) : undefined
}

/** The template of what `matchRoutes` found: its routes' paths joined. */
export function templateOfMatches(matches: { route: { path?: string } }[]): string {
  return `/${matches
    .map((match) => match.route.path ?? '')
    .filter(Boolean)
    .join('/')}`.replace(/\/+/g, '/')
}

/** React Router's flat route manifest as the nested routes `matchRoutes` takes. */
export function routeTree(build: ServerBuild): RouteObject[] {
  const routes = Object.values(build.routes).flatMap((route) => (route ? [route] : []))
  const childrenOf = (parentId: string | undefined): RouteObject[] =>
    routes
      .filter((route) => route.parentId === parentId)
      .map((route): RouteObject =>
        route.index
          ? { id: route.id, path: route.path, index: true }
          : { id: route.id, path: route.path, children: childrenOf(route.id) },
      )
  return childrenOf(undefined)
}
