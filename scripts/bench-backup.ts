/**
 * `npx tsx scripts/bench-backup.ts [-- --db pglite|postgres] [--extra N] [--runs R]`: what `npm run backup` and
 * `npm run restore` cost on the seed store (the catalogue and its books' files, rendered once), with its files in
 * the folder and in a bucket on a local S3 server (s3rver on 127.0.0.1), through the store's own code
 * (server/backup.ts). `--extra N` adds N uploaded-image-sized files (50 KB each) to show the cost per file.
 * Prints each case's median over the runs; the backup's size and file count.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createS3Storage } from '#app/server/s3-storage.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { createBackup, restoreBackup } from '#server/backup.ts'
import { startPostgres } from '#harness/postgres-server.ts'
import { startTestS3 } from '#harness/s3-server.ts'
import { parseCommandLine } from './drills/options.ts'

const options = parseCommandLine({
  usage: 'npx tsx scripts/bench-backup.ts --',
  summary: 'Backup and restore of the seed store, its files in the folder and in S3 (s3rver).',
  options: {
    db: { type: 'string', value: 'pglite|postgres', choices: ['pglite', 'postgres'], help: 'the database' },
    extra: { type: 'number', value: 'N', help: 'extra 50 KB files (uploads), default 0' },
    runs: { type: 'number', value: 'R', help: 'runs of each case, default 3' },
  },
})
const kind = options.db ?? 'pglite'
const runs = options.runs ?? 3
const extra = options.extra ?? 0
const logger = createLogger('silent')
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-bench-backup-'))
const s3 = await startTestS3('codebook-bench')
const postgres = kind === 'postgres' ? await startPostgres() : undefined

try {
  // The seed books' files, rendered once.
  const rendered = createLocalStorage(path.join(root, 'rendered'))
  const renderer = await openDatabase({ kind: 'pglite' })
  await renderer.migrate()
  await seedCatalog(renderer.db)
  await publishBookFiles(renderer.db, rendered, logger)
  await renderer.close()

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  console.log(
    `backup and restore of the seed store (${kind}${extra ? `, + ${extra} files of 50 KB` : ''}), median of ${runs}`,
  )
  for (const backEnd of ['folder', 's3'] as const) {
    const dataDir = path.join(root, `store-${backEnd}`)
    const storage: FileStorage =
      backEnd === 'folder'
        ? createLocalStorage(path.join(dataDir, 'files'))
        : createS3Storage(s3.client, { bucket: s3.bucket, prefix: 'bench/' })
    const url = postgres?.createDatabase(`bench_${backEnd}`)
    const env = { DATA_DIR: dataDir, ...(url ? { DATABASE_URL: url } : {}) }
    const database = await openDatabase(
      url ? { kind: 'postgres', url } : { kind: 'pglite', dataDir: path.join(dataDir, 'db') },
    )
    await database.migrate()
    await seedCatalog(database.db)
    for await (const file of rendered.list('')) await storage.put(file.key, (await rendered.read(file.key))!)
    await publishBookFiles(database.db, storage, logger)
    await database.close()
    const upload = new Uint8Array(50 * 1024).fill(7)
    for (let index = 0; index < extra; index++) await storage.put(`covers/bench-${index}-400.jpeg`, upload)

    const backups: number[] = []
    const restores: number[] = []
    let size = { files: 0, bytes: 0 }
    for (let run = 0; run < runs; run++) {
      const out = path.join(root, `backup-${backEnd}-${run}`)
      let started = performance.now()
      const manifest = await createBackup(env, out, { storage })
      backups.push(performance.now() - started)
      size = { files: manifest.files.count, bytes: manifest.files.bytes }
      started = performance.now()
      await restoreBackup(env, out, { storage })
      restores.push(performance.now() - started)
    }
    console.log(
      `  ${backEnd.padEnd(6)}  ${size.files} files, ${(size.bytes / 1024 / 1024).toFixed(1)} MB: backup ${Math.round(median(backups))} ms, restore ${Math.round(median(restores))} ms`,
    )
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  )
} finally {
  await s3.stop()
  postgres?.destroy()
  fs.rmSync(root, { recursive: true, force: true })
}
