// `npm start`: builds the store if the sources changed since the last build, then runs it in this process
// (not a child), so SIGTERM reaches the store's own graceful stop. Plain JavaScript: it must run before
// anything is compiled. package.json's `start` gives Node `--max-old-space-size=1024`: past a major collection
// V8 then lets the heap grow to at most 1.3-2× what is live, not up to 4× as under its default limit, so the
// store's memory follows what it holds rather than how busy the machine is (docs/decisions/022). Change it there; the drills and tests
// start the store with the same flags (harness/store-process.ts).
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const entry = path.join(root, 'build', 'server', 'index.js')
const sources = [
  'app',
  'server',
  'public',
  'drizzle',
  'package.json',
  'vite.config.ts',
  'react-router.config.ts',
]

function newestChange(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false })
  if (!stat) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  return fs
    .readdirSync(target)
    .reduce((newest, name) => Math.max(newest, newestChange(path.join(target, name))), stat.mtimeMs)
}

const built = fs.statSync(entry, { throwIfNoEntry: false })?.mtimeMs ?? 0
const changed = Math.max(...sources.map((source) => newestChange(path.join(root, source))))
if (!process.argv.includes('--no-build') && changed > built) {
  console.log(
    built ? 'Sources changed since the last build: rebuilding…' : 'First start: building the store…',
  )
  const result = spawnSync('npx', ['react-router', 'build'], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

process.env.NODE_ENV ??= 'production'
const { start } = await import(entry)
await start()
