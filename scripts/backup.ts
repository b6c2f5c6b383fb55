/**
 * `npm run backup [-- <folder>]`: a backup of the configured store (DATABASE_URL, or the embedded database in
 * DATA_DIR, which needs the store stopped) and of its files (DATA_DIR/files, or STORAGE_URL's bucket) into a new
 * folder, default backups/codebook-<UTC time>. Prints what it holds (manifest.json lists every file with its
 * size and SHA-256). `npm run restore -- <folder>` puts it back (server/backup.ts says how).
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
  const { files } = manifest
  for (const [name, part] of Object.entries(manifest.parts))
    console.log(`${name}: ${part.bytes} bytes, sha256 ${part.sha256}`)
  console.log(
    `files/: ${files.count} files from ${files.from}, ${files.bytes} bytes (each one's sha256 in manifest.json)`,
  )
  if (files.missing.length > 0)
    console.error(
      `Warning: ${files.missing.length} files the database names were not in the storage (missing already, or replaced while the backup ran): ${files.missing.join(', ')}`,
    )
  console.log(`Backed up to ${out} in ${Math.round(performance.now() - started)} ms.`)
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
}
