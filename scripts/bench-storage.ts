import fs from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { S3RVER_CREDENTIALS, startTestS3 } from '#harness/s3-server.ts'
import { spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'

/**
 * `npm run bench -- --storage` (issue 32): the owner's stamped EPUB for the online reader
 * (`/read/<slug>/book.epub`: from file storage on every request, not counted as a download) from a store on
 * its folder and from a store on an S3-compatible bucket (s3rver on 127.0.0.1, objects in a local folder), in
 * turns, so the machine's noise falls on both alike: MB/s, requests a second and p99 of each, and their ratio.
 * s3rver is a test server written in JavaScript, not a tuned object store: the figures bound what one HTTP hop
 * and the SDK cost the store more than they predict S3's.
 */
export async function benchStorage(options: {
  seededDataDir: () => Promise<{ dataDir: string; database: { db: Db; close(): Promise<void> } }>
  authSecret: string
  seconds: number
  rounds?: number
}) {
  const s3 = await startTestS3('codebook-bench')
  const stores: Partial<
    Record<'folder' | 's3', { store: StoreProcess; cookie: string; slug: string; size: number }>
  > = {}
  const spawned: StoreProcess[] = []
  try {
    for (const kind of ['folder', 's3'] as const) {
      const { dataDir, database } = await options.seededDataDir()
      let cookie: string
      let slug: string
      try {
        const [book] = await listBooks(database.db)
        const buyer = await createBuyer(database.db, [book!.id], { email: `bench-${kind}@example.com` })
        cookie = buyer.cookie
        slug = book!.slug
      } finally {
        await database.close()
      }
      const store = await spawnStore(
        {
          LOG_LEVEL: 'warn',
          DATA_DIR: dataDir,
          BETTER_AUTH_SECRET: options.authSecret,
          ...(kind === 's3'
            ? {
                STORAGE_URL: 's3://codebook-bench/store',
                S3_ENDPOINT: s3.endpoint,
                AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
                AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
              }
            : {}),
        },
        { discardOutput: true },
      )
      spawned.push(store)
      await waitUntilReady(store, 120_000)
      // The first request stamps the copy and keeps it in storage; the runs read that copy.
      const first = await fetch(`${store.url}/read/${slug}/book.epub`, { headers: { Cookie: cookie } })
      if (first.status !== 200) throw new Error(`${kind}: the owner's EPUB answered ${first.status}`)
      stores[kind] = { store, cookie, slug, size: (await first.arrayBuffer()).byteLength }
    }
    const results: Record<'folder' | 's3', { mbps: number; rps: number; p99: number }[]> = {
      folder: [],
      s3: [],
    }
    for (let round = 0; round < (options.rounds ?? 3); round++) {
      for (const kind of ['folder', 's3'] as const) {
        const { store, cookie, slug, size } = stores[kind]!
        // The whole file as one range: how the reader asks for it, and not counted among the reader's daily
        // opens (300 a book), which a run would use up.
        const run = (duration: number) =>
          autocannon({
            url: `${store.url}/read/${slug}/book.epub`,
            connections: 8,
            duration,
            headers: { Cookie: cookie, Range: `bytes=0-${size - 1}` },
          })
        await run(1)
        const result = await run(options.seconds)
        if (result.non2xx || result.errors)
          throw new Error(`${kind}: ${result.non2xx} non-2xx, ${result.errors} errors`)
        results[kind].push({
          mbps: result.throughput.average / 1e6,
          rps: result.requests.average,
          p99: result.latency.p99,
        })
      }
    }
    const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.table(
      (['folder', 's3'] as const).map((kind) => ({
        storage: kind === 'folder' ? 'folder (DATA_DIR/files)' : 'S3 (s3rver on 127.0.0.1)',
        'MB/s (median)': Number(median(results[kind].map((r) => r.mbps)).toFixed(1)),
        'req/s (median)': Math.round(median(results[kind].map((r) => r.rps))),
        'p99 ms (median)': median(results[kind].map((r) => r.p99)),
        rounds: results[kind].map((r) => r.mbps.toFixed(1)).join(' / '),
      })),
    )
    const ratio = median(results.s3.map((r) => r.mbps)) / median(results.folder.map((r) => r.mbps))
    console.log(
      `a ${(stores.folder!.size / 1024).toFixed(0)} KB EPUB; S3 / folder: ${(ratio * 100).toFixed(1)} % of the folder's throughput`,
    )
  } finally {
    for (const store of spawned) {
      await store.stop()
      fs.rmSync(path.dirname(store.dataDir), { recursive: true, force: true })
    }
    await s3.stop()
  }
}
