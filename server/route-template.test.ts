import { matchRoutes, type RouteObject, type ServerBuild } from 'react-router'
import { describe, expect, test } from 'vitest'
import routeConfig from '#app/routes.ts'
import { compileRoutes } from './route-template.ts'

type ConfigEntry = { id?: string; file: string; path?: string; index?: boolean; children?: ConfigEntry[] }

/** The store's route config as a build's manifest (ids, parents, paths), under a root as React Router adds. */
function manifestOf(entries: ConfigEntry[]): ServerBuild['routes'] {
  const routes: Record<string, { id: string; parentId?: string; path?: string; index?: boolean }> = {
    root: { id: 'root', path: '' },
  }
  const add = (list: ConfigEntry[], parentId: string) => {
    for (const entry of list) {
      const id = entry.id ?? entry.file
      routes[id] = { id, parentId, path: entry.path, index: entry.index }
      if (entry.children) add(entry.children, id)
    }
  }
  add(entries, 'root')
  return routes as unknown as ServerBuild['routes']
}

/** What React Router's own matcher says, as a template. */
function reactRouterTemplate(tree: RouteObject[], pathname: string): string | undefined {
  const matches = matchRoutes(tree, pathname)
  if (!matches) return undefined
  return `/${matches
    .map((match) => match.route.path ?? '')
    .filter(Boolean)
    .join('/')}`.replace(/\/+/g, '/')
}

function treeOf(routes: ServerBuild['routes']): RouteObject[] {
  const list = Object.values(routes).flatMap((route) => (route ? [route] : []))
  const childrenOf = (parentId: string | undefined): RouteObject[] =>
    list
      .filter((route) => route.parentId === parentId)
      .map((route): RouteObject =>
        route.index
          ? { id: route.id, path: route.path, index: true }
          : { id: route.id, path: route.path, children: childrenOf(route.id) },
      )
  return childrenOf(undefined)
}

describe('route templates compiled once', () => {
  const routes = manifestOf(routeConfig as ConfigEntry[])
  const match = compileRoutes({ routes } as ServerBuild)
  const tree = treeOf(routes)

  test.each([
    '/',
    '/AllBooks',
    '/allbooks/',
    '/books/go-in-action',
    '/books/go-in-action/sample.pdf',
    '/books/go-in-action/og.png',
    '/Details/2',
    '/search',
    '/search/suggest',
    '/topics',
    '/topics/databases',
    '/library/go/download.pdf',
    '/admin',
    '/admin/books',
    '/admin/books/new',
    '/admin/books/123',
    '/admin/books/123/manuscript',
    '/admin/orders/export.csv',
    '/account/library',
    '/sitemap.xml',
    '/sitemaps/books-1.xml',
    '/no/such/page',
    '/books',
  ])('%s: the same template as React Router’s matchRoutes', (pathname) => {
    expect(match(pathname)?.template).toBe(reactRouterTemplate(tree, pathname))
  })

  test('params are decoded; a malformed escape is kept as sent', () => {
    expect(match('/books/caf%C3%A9')).toMatchObject({ template: '/books/:slug', params: { slug: 'café' } })
    expect(match('/books/%E0%A4%A')?.params.slug).toBe('%E0%A4%A')
  })
})

test('the methods a route answers, from its module: GET and HEAD with a loader or a page, POST with an action', () => {
  const route = (id: string, module: object) => ({ id, parentId: 'root', path: id, module })
  const match = compileRoutes({
    routes: {
      root: { id: 'root', path: '', module: {} },
      feed: route('feed', { loader: () => null }),
      page: route('page', { default: () => null }),
      form: route('form', { default: () => null, action: () => null }),
      hook: route('hook', { action: () => null }),
    },
  } as unknown as ServerBuild)
  expect(['/feed', '/page', '/form', '/hook'].map((path) => match(path)?.methods.join(', '))).toEqual([
    'GET, HEAD',
    'GET, HEAD',
    'GET, HEAD, POST',
    'POST',
  ])
})
