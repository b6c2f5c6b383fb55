import fs from 'node:fs/promises'
import type { ServerBuild } from 'react-router'
import routes from '#app/routes.ts'

type RouteEntry = { id?: string; file: string; path?: string; index?: boolean; children?: RouteEntry[] }
type ServerRoute = NonNullable<ServerBuild['routes'][string]>

/**
 * The routes of app/routes.ts as React Router's server build holds them (ids, parents, paths, each route's
 * module), made without Vite: for the host's readers of the build (route templates, the body limits routes
 * declare in their `handle`). A module is imported only when it exports a `handle`, the one export the host
 * reads (all of them would take seconds); the others are empty here. Nothing else of a build is there, so a
 * request that reaches React Router itself fails (a 500).
 */
export async function routesBuild(): Promise<ServerBuild> {
  const manifest: Record<string, ServerRoute> = {
    root: { id: 'root', path: '', module: {} } as ServerRoute,
  }
  const add = async (entries: RouteEntry[], parentId: string) => {
    for (const entry of entries) {
      const id = entry.id ?? entry.file.replace(/\.tsx?$/, '')
      const source = await fs.readFile(new URL(`../app/${entry.file}`, import.meta.url), 'utf8')
      const module = /^export const handle\b/m.test(source)
        ? ((await import(`../app/${entry.file}`)) as ServerRoute['module'])
        : ({} as ServerRoute['module'])
      manifest[id] = { id, parentId, path: entry.path, index: entry.index, module } as ServerRoute
      await add(entry.children ?? [], id)
    }
  }
  await add(routes as RouteEntry[], 'root')
  return { routes: manifest } as unknown as ServerBuild
}
