/**
 * `npm run bench:library`: what the reader's library costs, through the store's own code on the embedded
 * database and a temporary file folder. Publishing the books' files at start-up, cold (rendering all of
 * them) and warm (nothing changed); then downloads: the first of each buyer (stamping a copy) and repeats
 * (the cached copy), each streamed to the end. Prints medians and p99s; asserts only the outcomes.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { publishBookFiles } from '#app/features/library/book-files.server.ts'
import { prepareDownload } from '#app/features/library/downloads.server.ts'
import type { PurchasedFormat } from '#app/features/library/library.server.ts'
import { openDatabase } from '#app/server/db/database.server.ts'
import { createLogger } from '#app/server/logger.server.ts'
import { createLocalStorage } from '#app/server/storage.server.ts'
import { createBuyer } from '#harness/factories/buyers.ts'

const BUYERS = 20
const REPEATS = 5
const logger = createLogger('silent')
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'codebook-bench-library-'))
const storage = createLocalStorage(folder)
const database = await openDatabase({ kind: 'pglite' })
await database.migrate()
await seedCatalog(database.db)

const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now()
  const result = await fn()
  return [result, performance.now() - started]
}
const [cold, coldMs] = await time(() => publishBookFiles(database.db, storage, logger))
const [, warmMs] = await time(() => publishBookFiles(database.db, storage, logger))
if (cold.rendered !== cold.books) throw new Error('the cold run should render every book')

const [book] = await listBooks(database.db)
const samples: Record<string, number[]> = {}
const record = (name: string, ms: number) => (samples[name] ??= []).push(ms)
for (let buyerIndex = 0; buyerIndex < BUYERS; buyerIndex++) {
  const buyer = await createBuyer(database.db, [book!.id])
  for (const format of ['pdf', 'epub'] as PurchasedFormat[]) {
    for (let attempt = 0; attempt <= REPEATS; attempt++) {
      const [bytes, ms] = await time(async () => {
        const download = await prepareDownload(
          database.db,
          storage,
          { userId: buyer.userId, email: buyer.email, slug: book!.slug, format },
          logger,
        )
        if (!download.ok) throw new Error(`download refused: ${download.status}`)
        if (download.cached !== attempt > 0) throw new Error('unexpected cache outcome')
        return (await new Response(download.stream).arrayBuffer()).byteLength
      })
      if (bytes < 1000) throw new Error('a download came back empty')
      record(`${format} ${attempt === 0 ? 'first (stamped)' : 'repeat (cached)'}`, ms)
    }
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}
console.log(
  `publishing ${cold.books} books' PDF, EPUB and sample: cold ${coldMs.toFixed(0)} ms, warm ${warmMs.toFixed(0)} ms`,
)
console.log(`downloads of '${book!.slug}' by ${BUYERS} buyers (PGlite in memory, local folder):`)
for (const [name, values] of Object.entries(samples)) {
  console.log(
    `  ${name.padEnd(22)} p50 ${percentile(values, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(values, 99).toFixed(1).padStart(6)} ms   (${values.length} runs)`,
  )
}
await database.close()
fs.rmSync(folder, { recursive: true, force: true })
