import fs from 'node:fs'
import path from 'node:path'
import { findProjectRoot } from './project-root.server.ts'

type ManifestChunk = { file: string; imports?: string[]; dynamicImports?: string[] }

let manifest: Record<string, ManifestChunk> | null | undefined

/** The browser build's Vite manifest (build/client/.vite/manifest.json), read once; null in development. */
function readManifest(): Record<string, ManifestChunk> | null {
  if (manifest !== undefined) return manifest
  try {
    const file = path.join(findProjectRoot(), 'build', 'client', '.vite', 'manifest.json')
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, ManifestChunk>
  } catch {
    // Development (Vite serves modules as they are asked for), or a build without a manifest: no hints.
    manifest = null
  }
  return manifest
}

/**
 * The URLs of the browser chunks that hold `modules` (source paths from the project's root, as the manifest
 * names them: `app/…`), of the modules they import dynamically (one level: a lazily loaded component's own
 * `import()`s), and of every chunk those import statically: what a page links with `rel="modulepreload"` so that
 * modules it will import later are fetched with the page instead of one round trip after another. Unknown
 * modules are skipped; empty in development.
 */
export function modulePreloads(modules: string[]): string[] {
  const chunks = readManifest()
  if (!chunks) return []
  const files = new Set<string>()
  const visit = (key: string) => {
    const chunk = chunks[key]
    if (!chunk || files.has(chunk.file)) return
    files.add(chunk.file)
    for (const imported of chunk.imports ?? []) visit(imported)
  }
  for (const module of modules) {
    visit(module)
    for (const imported of chunks[module]?.dynamicImports ?? []) visit(imported)
  }
  return [...files].map((file) => `/${file}`)
}
