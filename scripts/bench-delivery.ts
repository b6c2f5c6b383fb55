import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { S3RVER_CREDENTIALS, startTestS3 } from '#harness/s3-server.ts'
import { spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'
import sharp from 'sharp'
import { cpuMs } from './drills/harness.ts'
import { longManuscript } from './long-manuscript.ts'

const modes = ['folder, streamed', 'S3, streamed', 'S3, redirect'] as const
type Mode = (typeof modes)[number]

/**
 * `npm run bench -- --delivery` (issue 32, decision 034): a buyer's whole stamped PDF from
 * `/library/<slug>/download.pdf` as a browser takes it (the redirect followed) — the ~300-page edition
 * bench:reader publishes, so that the bytes weigh as a real eBook's do — from a store on its folder,
 * one on S3 that streams the copy, and one on S3 that answers a 302 to a signed URL once the download is
 * allowed and counted. 8 downloads at a time, in turns, so the machine's noise falls on all three alike: whole
 * downloads a second, MB/s, p50/p99 of a whole download, and the store's CPU time per download (what a
 * redirect spares it). The object store is s3rver on 127.0.0.1, a JavaScript test server in the bench's own
 * process: its CPU is not the store's, and it is no measure of S3's speed.
 */
export async function benchDelivery(options: {
  seededDataDir: () => Promise<{ dataDir: string; database: { db: Db; close(): Promise<void> } }>
  authSecret: string
  seconds: number
  rounds?: number
}) {
  const s3 = await startTestS3('codebook-bench')
  const spawned: StoreProcess[] = []
  const stores = new Map<Mode, { store: StoreProcess; cookies: string[]; slug: string }>()
  // Each buyer may take 50 copies of a book a day (decision 010): enough buyers for every round's downloads.
  const buyers = 30
  try {
    for (const mode of modes) {
      const { dataDir, database } = await options.seededDataDir()
      const cookies: string[] = []
      let slug: string
      let bookId: string
      let adminCookie: string
      try {
        const [book] = await listBooks(database.db)
        slug = book!.slug
        bookId = book!.id
        adminCookie = (await createAdmin(database.db)).cookie
        for (let index = 0; index < buyers; index++) {
          const buyer = await createBuyer(database.db, [book!.id], {
            email: `bench-${modes.indexOf(mode)}-${index}@example.com`,
          })
          cookies.push(buyer.cookie)
        }
      } finally {
        await database.close()
      }
      const onS3 = mode !== 'folder, streamed'
      const store = await spawnStore(
        {
          LOG_LEVEL: 'warn',
          DATA_DIR: dataDir,
          BETTER_AUTH_SECRET: options.authSecret,
          ...(onS3
            ? {
                STORAGE_URL: `s3://codebook-bench/delivery-${modes.indexOf(mode)}`,
                S3_ENDPOINT: s3.endpoint,
                AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
                AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
              }
            : {}),
          ...(mode === 'S3, redirect' ? { DOWNLOAD_DELIVERY: 'redirect' } : {}),
        },
        { discardOutput: true },
      )
      spawned.push(store)
      await waitUntilReady(store, 120_000)
      // The long edition, published through the back office's manuscript form as an owner does.
      const manuscript = `${longManuscript()}\n${await figures()}`
      const published = await fetch(`${store.url}/admin/books/${bookId}/manuscript`, {
        method: 'POST',
        body: new URLSearchParams({ intent: 'publish', manuscript, changelog: 'bench' }),
        redirect: 'manual',
        headers: { Origin: store.url, Cookie: adminCookie },
      })
      if (published.status !== 303) throw new Error(`publishing answered ${published.status}`)
      // Every buyer's copy stamped before the runs (one of their 50), so that the runs measure delivery.
      for (const cookie of cookies) await downloadOnce(store.url, slug, cookie)
      stores.set(mode, { store, cookies, slug })
    }

    const results = new Map<Mode, Run[]>(modes.map((mode) => [mode, []]))
    for (let round = 0; round < (options.rounds ?? 3); round++) {
      for (const mode of modes) {
        const { store, cookies, slug } = stores.get(mode)!
        results.get(mode)!.push(await run(store, slug, cookies, options.seconds, round))
      }
    }
    const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!
    console.table(
      modes.map((mode) => {
        const runs = results.get(mode)!
        return {
          delivery: mode,
          'downloads/s': Number(median(runs.map((r) => r.perSecond)).toFixed(1)),
          'MB/s': Number(median(runs.map((r) => r.mbps)).toFixed(1)),
          'p50 ms': Math.round(median(runs.map((r) => r.p50))),
          'p99 ms': Math.round(median(runs.map((r) => r.p99))),
          'store CPU ms/download': Number(median(runs.map((r) => r.cpuPerDownload)).toFixed(1)),
          rounds: runs.map((r) => r.perSecond.toFixed(1)).join(' / '),
        }
      }),
    )
    const size = results.get('folder, streamed')![0]!.size
    console.log(
      `a ${(size / 1024).toFixed(0)} KB stamped PDF; load average ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(', ')}`,
    )
  } finally {
    for (const store of spawned) {
      await store.stop()
      fs.rmSync(path.dirname(store.dataDir), { recursive: true, force: true })
    }
    await s3.stop()
  }
}

/**
 * A figure of noise, which no compression shrinks (0.7 MB): the long edition's text alone compresses to some 50
 * KB of PDF, where an eBook with diagrams and screenshots weighs megabytes. One, as the manuscript form takes at
 * most 2 MB.
 */
async function figures(): Promise<string> {
  const made: string[] = []
  for (let index = 1; index <= 1; index++) {
    const side = 480
    const png = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer()
    made.push(`![Figure ${index}: noise](data:image/png;base64,${png.toString('base64')} "Figure ${index}")`)
  }
  return `# Figures\n\n${made.join('\n\n')}\n`
}

type Run = { perSecond: number; mbps: number; p50: number; p99: number; cpuPerDownload: number; size: number }

async function downloadOnce(base: string, slug: string, cookie: string): Promise<number> {
  const response = await fetch(`${base}/library/${slug}/download.pdf`, { headers: { Cookie: cookie } })
  const bytes = new Uint8Array(await response.arrayBuffer())
  const expected = Number(response.headers.get('Content-Length'))
  if (response.status !== 200 || bytes.length !== expected || bytes[0] !== 0x25)
    throw new Error(`download answered ${response.status} with ${bytes.length} of ${expected} bytes`)
  return bytes.length
}

/** 8 downloads at a time for `seconds`, each buyer in turn (the redirect followed, the body read whole). */
async function run(store: StoreProcess, slug: string, cookies: string[], seconds: number, round: number) {
  const durations: number[] = []
  let bytes = 0
  let next = round * 7
  const cpuBefore = cpuMs(store.child.pid)
  const started = performance.now()
  const until = started + seconds * 1000
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (performance.now() < until) {
        const cookie = cookies[next++ % cookies.length]!
        const begun = performance.now()
        bytes += await downloadOnce(store.url, slug, cookie)
        durations.push(performance.now() - begun)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  const sorted = durations.toSorted((a, b) => a - b)
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]!
  return {
    perSecond: durations.length / elapsed,
    mbps: bytes / elapsed / 1e6,
    p50: at(0.5),
    p99: at(0.99),
    cpuPerDownload: (cpuMs(store.child.pid) - cpuBefore) / durations.length,
    size: bytes / durations.length,
  }
}
