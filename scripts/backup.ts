/**
 * `npm run backup [-- <folder>]`: a backup of the configured store (DATABASE_URL, or the embedded database in
 * DATA_DIR, which needs the store stopped) into a new folder, default backups/codebook-<UTC time>. Prints the
 * manifest. `npm run restore -- <folder>` puts it back (server/backup.ts says how).
 */
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseEnv } from '#app/server/env.server.ts'
import { createBackup } from '#server/backup.ts'

const [folder, ...rest] = process.argv.slice(2)
if (rest.length > 0) {
  console.error('Usage: npm run backup [-- <new folder>]')
  process.exit(2)
}
try {
  const out = folder ?? path.join('backups', `codebook-${new Date().toISOString().replace(/[:.]/g, '-')}`)
  const started = performance.now()
  const manifest = await createBackup(parseEnv(), out)
  console.log(JSON.stringify(manifest, null, 2))
  console.log(`Backed up to ${out} in ${Math.round(performance.now() - started)} ms.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
}
