/**
 * `npx tsx scripts/bench-file-sweep.ts [-- --files N]`: what a run of the sweep of old files costs (decision 034),
 * through the store's own code on the embedded database, with the files in the folder and in a bucket on a local
 * S3 server (s3rver on 127.0.0.1): N stamped copies nobody is served (default 2,000, a month's worth at a busy
 * store), then runs at the default bounds (500 deletions, 30 s) until none is left. Prints each run's time.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { createFileSweep } from '#app/features/files/sweep-files.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createS3Storage } from '#app/server/s3-storage.server.ts'
import { createLocalStorage, type FileStorage } from '#app/server/storage.server.ts'
import { startTestS3 } from '#harness/s3-server.ts'
import { parseCommandLine } from './drills/options.ts'

const options = parseCommandLine({
  usage: 'npx tsx scripts/bench-file-sweep.ts --',
  summary: 'Runs of the sweep of old files over N stamped copies nobody is served, folder and S3.',
  options: { files: { type: 'number', value: 'N', help: 'stamped copies to sweep, default 2000' } },
})
const count = options.files ?? 2000
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-bench-sweep-'))
const s3 = await startTestS3('codebook-bench')
const database = await openDatabase({ kind: 'pglite' })
try {
  await database.migrate()
  const copy = new Uint8Array(200 * 1024).fill(1)
  console.log(`the sweep of old files over ${count} stamped copies of 200 KB nobody is served`)
  for (const backEnd of ['folder', 's3'] as const) {
    const storage: FileStorage =
      backEnd === 'folder'
        ? createLocalStorage(path.join(root, 'files'))
        : createS3Storage(s3.client, { bucket: s3.bucket, prefix: 'bench/' })
    for (let start = 0; start < count; start += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, count - start) }, (_, offset) =>
          storage.put(
            `stamped/${String(start + offset).padStart(32, '0')}/book-0123456789abcdef-s1.pdf`,
            copy,
          ),
        ),
      )
    const sweep = createFileSweep({
      db: database.db,
      storage,
      logger: createLogger('silent'),
      now: () => new Date(Date.now() + 2 * 60 * 60 * 1000),
    })
    const runs: string[] = []
    for (;;) {
      const started = performance.now()
      const run = await sweep.run()
      runs.push(`${run.deleted.length} in ${Math.round(performance.now() - started)} ms`)
      if (run.stoppedBy === 'end') break
    }
    console.log(`  ${backEnd.padEnd(6)}  runs: ${runs.join(', ')}`)
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  )
} finally {
  await database.close()
  await s3.stop()
  fs.rmSync(root, { recursive: true, force: true })
}
