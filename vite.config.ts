import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin, type Rolldown } from 'vite'
import { foliatePaginatorGuards } from './scripts/vite/foliate-guards'
import { foliatePaginatorPreload } from './scripts/vite/foliate-preload'

export default defineConfig({
  plugins: [
    tailwindcss(),
    reactRouter(),
    loadLazyModulesPlainly(),
    precompressAssets(),
    foliatePaginatorGuards(),
    foliatePaginatorPreload(),
  ],
  // Which chunk holds which module (build/client/.vite/manifest.json), for a page that preloads modules it imports
  // later (app/server/module-preloads.server.ts: the reader's, decision 041). Set here, not for the client alone:
  // React Router deletes the manifests unless the top-level option asks for them. Not served (a dot folder).
  build: { manifest: true },
  environments: {
    client: {
      build: {
        // TRACE_UNMINIFIED=1: readable function names in a CPU profile (`npm run trace:load`); never shipped.
        ...(process.env.TRACE_UNMINIFIED ? { minify: false } : {}),
        // No list of a lazy module's dependencies to preload: see loadLazyModulesPlainly.
        modulePreload: false,
        rolldownOptions: {
          output: {
            codeSplitting: {
              groups: [
                // React, React DOM and React Router: every page needs all of them, so one file.
                {
                  name: 'framework',
                  test: /node_modules[\\/](react|react-dom|scheduler|react-router|cookie|set-cookie-parser)[\\/]/,
                  priority: 2,
                },
                // The store's modules the root route (the layout of every page) imports: one file too.
                // Left to the bundler, `/` fetched 17 files of 0.1–2 KiB, each a request with ~0.8 KiB of
                // response headers.
                { name: (id, context) => (usedBy(root, id, context) ? 'shell' : null), priority: 1 },
                // The catalogue's components the home page shares with other pages (book lists, the book page).
                {
                  name: (id, context) =>
                    !/[\\/]app[\\/]routes[\\/]/.test(id) &&
                    usedBy(home, id, context) &&
                    usedBy(otherRoutes, id, context)
                      ? 'catalog'
                      : null,
                },
              ],
            },
          },
        },
      },
    },
    // The server bundle's entry is our own HTTP host (security headers, health checks, graceful
    // shutdown), which imports React Router's server build: one bundle, one copy of each module.
    ssr: { build: { rollupOptions: { input: './server/app.ts' } } },
  },
})

const root = /[\\/]app[\\/]root\.tsx(\?|$)/
const home = /[\\/]app[\\/]routes[\\/]home\.tsx(\?|$)/
const otherRoutes = /[\\/]app[\\/]routes[\\/](?!home\.tsx)/
const reached = new Map<RegExp, Map<string, boolean>>()

/** Whether the route module imports this module, directly or through others (static imports only). */
function usedBy(
  route: RegExp,
  id: string,
  context: Rolldown.ChunkingContext,
  seen = new Set<string>(),
): boolean {
  if (!reached.has(route)) reached.set(route, new Map())
  const known = reached.get(route)!.get(id)
  if (known !== undefined) return known
  if (seen.has(id)) return false
  seen.add(id)
  const importers = context.getModuleInfo(id)?.importers ?? []
  const used = importers.some((importer) => route.test(importer) || usedBy(route, importer, context, seen))
  reached.get(route)!.set(id, used)
  return used
}

/**
 * Vite wraps each `import()` in a helper that first preloads the imported chunk's dependencies and CSS
 * (1.6 KB in the shell, every page). The store's lazy modules (the header's menus and search box, the email
 * notice) have no CSS and depend on chunks the page has already loaded, so a plain `import()` does the same
 * work: the helper is replaced with one that just calls it.
 */
function loadLazyModulesPlainly(): Plugin {
  return {
    name: 'codebook:plain-dynamic-import',
    enforce: 'pre',
    applyToEnvironment: (environment) => environment.name === 'client',
    load: {
      filter: { id: /^\0vite\/preload-helper\.js$/ },
      handler: () => 'export const __vitePreload = (load) => load()',
    },
  }
}

/**
 * Writes each script and stylesheet of the browser's build also as `.br` (Brotli, best quality) and `.gz`
 * (gzip level 9), which the host serves to browsers that accept them (server/precompressed-assets.ts):
 * compressed once here instead of on every request, and smaller.
 */
function precompressAssets(): Plugin {
  return {
    name: 'codebook:precompress-assets',
    apply: 'build',
    applyToEnvironment: (environment) => environment.name === 'client',
    writeBundle(options, bundle) {
      for (const fileName of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(fileName)) continue
        const file = path.join(options.dir!, fileName)
        const content = fs.readFileSync(file)
        // Below ~1 KB, the `compression` middleware does not compress either: headers outweigh the gain.
        if (content.length < 1024) continue
        fs.writeFileSync(
          `${file}.br`,
          zlib.brotliCompressSync(content, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
            },
          }),
        )
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(content, { level: 9 }))
      }
    },
  }
}
