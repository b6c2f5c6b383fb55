/**
 * `npm run bench:bundle [-- /path …]`: what the browser downloads in JavaScript before a page can hydrate, gzipped,
 * and which source modules those bytes come from. Builds the store with hidden client source maps (the same
 * chunks byte for byte; the maps are deleted afterwards), then, for each page (default `/`), takes the scripts
 * React Router modulepreloads for it — the client entry and the matched routes' modules with their imports,
 * from the route manifest — and prints each file's gzipped size, the total, and the modules weighing most.
 * Chunks loaded later (on intent, e.g. the header's search box) are not counted: they are not in the page.
 *
 * A module's share of a chunk's gzipped size is its share of the chunk's minified characters (from the source
 * map): an estimate, good to a few per cent; the per-file and total figures are exact: gzip at level 9 and
 * Brotli at quality 11, the two encodings the build writes next to each asset and the host serves
 * (server/precompressed-assets.ts). Budget (issue 17): `/` ≤ 115 KiB gzipped.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { matchRoutes, type RouteObject } from 'react-router'
import { SourceMapConsumer, type RawSourceMap } from 'source-map-js'

const BUDGET_KIB = 115
const client = path.join('build', 'client')
const pages = process.argv.slice(2).filter((arg) => arg.startsWith('/'))
if (pages.length === 0) pages.push('/')

if (!process.argv.includes('--no-build')) {
  const build = spawnSync('npx', ['react-router', 'build', '--sourcemapClient', 'hidden'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}

type ManifestRoute = {
  id: string
  parentId?: string
  path?: string
  index?: boolean
  module: string
  imports?: string[]
}
type Manifest = { entry: { module: string; imports: string[] }; routes: Record<string, ManifestRoute> }

const assets = path.join(client, 'assets')
const manifestFile = fs.readdirSync(assets).find((file) => /^manifest-.*\.js$/.test(file))
if (!manifestFile) throw new Error('No route manifest in build/client/assets: did the build run?')
const manifest = JSON.parse(
  fs
    .readFileSync(path.join(assets, manifestFile), 'utf8')
    .replace(/^window\.__reactRouterManifest=/, '')
    .replace(/;\s*$/, ''),
) as Manifest

// The manifest's flat routes as the tree React Router matches against.
function childrenOf(parentId: string | undefined): RouteObject[] {
  return Object.values(manifest.routes)
    .filter((route) => route.parentId === parentId)
    .map((route) =>
      route.index
        ? { id: route.id, index: true as const }
        : { id: route.id, path: route.path, children: childrenOf(route.id) },
    )
}
const tree = childrenOf(undefined)

const sizes = new Map<string, { gzip: number; brotli: number; modules: Map<string, number> }>()
function measure(file: string) {
  const known = sizes.get(file)
  if (known) return known
  const code = fs.readFileSync(path.join(client, file))
  const gzip = zlib.gzipSync(code, { level: 9 }).length
  const brotli = zlib.brotliCompressSync(code, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY },
  }).length
  const modules = new Map<string, number>()
  const mapFile = path.join(client, `${file}.map`)
  if (fs.existsSync(mapFile)) {
    // Each mapping starts a run of generated characters from one source, until the next mapping on its line.
    const lines = code.toString().split('\n')
    const characters = new Map<string, number>()
    let previous: { source: string; line: number; column: number } | undefined
    const close = (until: number) => {
      if (!previous) return
      characters.set(previous.source, (characters.get(previous.source) ?? 0) + until - previous.column)
    }
    new SourceMapConsumer(JSON.parse(fs.readFileSync(mapFile, 'utf8')) as RawSourceMap).eachMapping(
      (mapping) => {
        close(
          previous?.line === mapping.generatedLine
            ? mapping.generatedColumn
            : (lines[(previous?.line ?? 1) - 1]?.length ?? 0),
        )
        previous = {
          source: readableSource(mapping.source),
          line: mapping.generatedLine,
          column: mapping.generatedColumn,
        }
      },
    )
    close(lines[(previous?.line ?? 1) - 1]?.length ?? 0)
    const total = [...characters.values()].reduce((sum, count) => sum + count, 0)
    for (const [source, count] of characters) modules.set(source, (gzip * count) / total)
  }
  const measured = { gzip, brotli, modules }
  sizes.set(file, measured)
  return measured
}

function readableSource(source: string | null): string {
  if (!source) return '(bundler glue)'
  const packageIndex = source.lastIndexOf('node_modules/')
  if (packageIndex >= 0) return source.slice(packageIndex + 'node_modules/'.length)
  return source.replace(/^(\.\.\/)+/, '')
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1)
let over = 0
for (const page of pages) {
  const matches = matchRoutes(tree, page) ?? []
  if (matches.length === 0) throw new Error(`no route matches ${page}`)
  const files = new Set([manifest.entry.module, ...manifest.entry.imports])
  for (const { route } of matches) {
    const entry = manifest.routes[route.id!]!
    files.add(entry.module)
    for (const file of entry.imports ?? []) files.add(file)
  }
  const measured = [...files].map((file) => ({ file, ...measure(file) }))
  const total = measured.reduce((sum, file) => sum + file.gzip, 0)
  const totalBrotli = measured.reduce((sum, file) => sum + file.brotli, 0)
  const modules = new Map<string, number>()
  for (const file of measured) {
    for (const [source, bytes] of file.modules) modules.set(source, (modules.get(source) ?? 0) + bytes)
  }
  console.log(
    `\n${page} (routes ${matches.map(({ route }) => route.id).join(' → ')}): ${files.size} scripts, ` +
      `${kib(total)} KiB of JavaScript gzipped (budget for / ${BUDGET_KIB} KiB), ${kib(totalBrotli)} KiB with Brotli`,
  )
  console.table(
    measured
      .sort((a, b) => b.gzip - a.gzip)
      .map(({ file, gzip, brotli }) => ({
        file: file.replace('/assets/', ''),
        'KiB gzipped': kib(gzip),
        'KiB Brotli': kib(brotli),
      })),
  )
  console.log('modules weighing most (estimated share of the gzipped bytes):')
  console.table(
    [...modules]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([module, bytes]) => ({ module, 'KiB gzipped': kib(bytes) })),
  )
  if (page === '/' && total > BUDGET_KIB * 1024) over++
}

// The maps were only for this report: they must not be served.
for (const file of fs.readdirSync(assets)) {
  if (file.endsWith('.js.map')) fs.rmSync(path.join(assets, file))
}
console.log(over ? `/ is over its ${BUDGET_KIB} KiB budget` : 'within budget')
