import type { ServerBuild } from 'react-router'

export type RouteMatch = {
  template: string
  params: Record<string, string>
  /** The route module's `handle` export: what a route declares for the host (server/request-bodies.ts). */
  handle?: unknown
  /** What the route answers: GET and HEAD with a loader or a page, POST with an action (a 405's `Allow`). */
  methods: string[]
}
export type RouteMatcher = (pathname: string) => RouteMatch | undefined

/**
 * The route path template a URL path matches ('/books/:slug' for '/books/go-in-action') with its params, from
 * the build's route manifest; undefined when no route matches (the catch-all's '/*' counts as a match). For
 * labels that must not carry what a visitor typed: analytics' page views, the metrics' route label.
 *
 * React Router's `matchRoutes` flattens and ranks the whole route tree on every call (a fifth of the CPU of a
 * cached page when it ran per request); here the templates are compiled once per build into regular
 * expressions, ranked as React Router ranks them (static segments over dynamic ones over a splat).
 */
export function routeMatcher(
  build: ServerBuild | (() => Promise<ServerBuild>),
): (pathname: string) => Promise<RouteMatch | undefined> {
  const compiled = new WeakMap<ServerBuild, RouteMatcher>()
  return async (pathname) => {
    const current = typeof build === 'function' ? await build() : build
    let match = compiled.get(current)
    if (!match) compiled.set(current, (match = compileRoutes(current)))
    return match(pathname)
  }
}

type Compiled = {
  template: string
  pattern: RegExp
  names: string[]
  score: number
  order: number
  handle: unknown
  methods: string[]
}

export function compileRoutes(build: ServerBuild): RouteMatcher {
  const routes = Object.values(build.routes).flatMap((route) => (route ? [route] : []))
  const byId = new Map(routes.map((route) => [route.id, route]))
  const templateOf = (id: string | undefined): string => {
    const route = id ? byId.get(id) : undefined
    if (!route) return ''
    const parent = templateOf(route.parentId)
    return route.path ? `${parent}/${route.path}` : parent
  }
  const compiled: Compiled[] = routes
    // Pathless layouts match nothing by themselves; the root ('' path) answers '/' only through its index.
    .filter((route) => route.path || route.index)
    .map((route, order) => {
      const template = `/${templateOf(route.id).split('/').filter(Boolean).join('/')}`
      const segments = template.split('/').filter(Boolean)
      const names: string[] = []
      const source = segments
        .map((segment) => {
          if (segment === '*') {
            names.push('*')
            return '(?:/(.*))?'
          }
          if (segment.startsWith(':')) {
            names.push(segment.slice(1))
            return '/([^/]+)'
          }
          return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`
        })
        .join('')
      const score =
        segments.length +
        (route.index ? 2 : 0) +
        segments.reduce(
          (total, segment) => total + (segment === '*' ? -2 : segment.startsWith(':') ? 3 : 10),
          0,
        )
      return {
        template,
        pattern: new RegExp(`^${source || ''}/*$`, 'i'),
        names,
        score,
        order,
        handle: (route.module as { handle?: unknown } | undefined)?.handle,
        methods: methodsOf(route.module),
      }
    })
    .sort((a, b) => b.score - a.score || a.order - b.order)
  return (pathname) => {
    for (const route of compiled) {
      const found = route.pattern.exec(pathname)
      if (!found) continue
      const params: Record<string, string> = {}
      route.names.forEach((name, index) => {
        const value = found[index + 1]
        if (value !== undefined) params[name] = safeDecode(value)
      })
      return { template: route.template, params, handle: route.handle, methods: route.methods }
    }
    return undefined
  }
}

function methodsOf(module: Partial<Record<'loader' | 'action' | 'default', unknown>> | undefined): string[] {
  return [...(module?.loader || module?.default ? ['GET', 'HEAD'] : []), ...(module?.action ? ['POST'] : [])]
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}
