/**
 * `npm run restore -- <backup folder>`: puts a `npm run backup` back into the configured store (DATABASE_URL,
 * or DATA_DIR's embedded database, moved aside first, never deleted; the files into DATA_DIR/files or
 * STORAGE_URL's bucket, whichever is configured now), every file checked first. Stop the store first.
 */
import { performance } from 'node:perf_hooks'
import { parseEnv } from '#app/server/env.server.ts'
import { restoreBackup } from '#server/backup.ts'

const [folder, ...rest] = process.argv.slice(2)
if (!folder || rest.length > 0) {
  console.error('Usage: npm run restore -- <backup folder>')
  process.exit(2)
}
try {
  const started = performance.now()
  const manifest = await restoreBackup(parseEnv(), folder)
  const files = manifest.format === 2 ? `, ${manifest.files.count} files checked and put back` : ''
  console.log(
    `Restored the ${manifest.database} backup of ${manifest.createdAt}${files} in ${Math.round(performance.now() - started)} ms.`,
  )
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
}
