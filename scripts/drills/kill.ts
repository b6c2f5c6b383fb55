/**
 * `npm run drill:kill -- [--quick] [--db pglite|postgres] [--storage folder|s3]`: buyers check out (the test
 * card) and download while the store is killed with SIGKILL at random moments and restarted on the same data.
 * Passes when every order a buyer was sent to is in the database, paid exactly once, with its library rows,
 * nothing is duplicated, the store opened its data after every kill, and no file was lost or left half-written:
 * every download was a whole PDF or EPUB, every copy a buyer downloaded is still kept after the last kill and
 * downloads whole again, and every stamped copy and book file in storage (the folder, or the S3 bucket with
 * `--storage s3`) is whole. Prints kills, checkouts, files and restart times.
 */
import fs from 'node:fs'
import path from 'node:path'
import { freePort, spawnStore, waitUntilReady, type StoreProcess } from '#harness/store-process.ts'
import {
  checkOrders,
  checkPgliteFolder,
  checkPostgresDatabase,
  type IntegrityReport,
  ensureBuild,
  loadAverage,
  newFigures,
  onExit,
  openDrillDatabase,
  parseDrillOptions,
  percentile,
  prepareDrillStore,
  request,
  runBuyer,
  runDrill,
  sleep,
  tempDir,
  type Answer,
  type BuyerRecord,
} from './lib.ts'
import { brokenStoredFiles, startDrillStorage, wholeFileProblem } from './files.ts'

const {
  quick,
  db: kind,
  build,
  storage: storageKind,
} = parseDrillOptions({
  name: 'kill',
  summary:
    'Buyers check out and download while the store is killed with SIGKILL at random moments and restarted: every order a buyer was sent to must be in the database, paid once, with its books, and no file lost or half-written.',
  storages: true,
})
// Quick on S3 (CI runs it beside the folder's two): shorter, for a kill aimed at each moment and one more.
const settings = !quick
  ? { buyers: 40, concurrency: 6, kills: 12, minUpMs: 1_000, maxUpMs: 5_000, loadMs: 150_000 }
  : storageKind === 's3'
    ? { buyers: 8, concurrency: 4, kills: 4, minUpMs: 1_000, maxUpMs: 2_000, loadMs: 25_000 }
    : { buyers: 12, concurrency: 4, kills: 5, minUpMs: 1_000, maxUpMs: 3_000, loadMs: 45_000 }

await runDrill(async () => {
  ensureBuild(build)
  const started = performance.now()
  const prepared = await prepareDrillStore('kill', kind, settings.buyers)
  const { buyers, books } = prepared
  const { dataDir, url } = prepared.where
  const storage = await startDrillStorage(storageKind)
  onExit(() => storage.stop())
  // One port for every restart: the buyers keep their address.
  const env = { ...prepared.env, ...storage.env, PORT: String(await freePort()) }
  let store: StoreProcess = await spawnStore(env)
  onExit(() => store.stop('SIGKILL'))
  await waitUntilReady(store)
  const baseUrl = store.url

  // Buyers wait on `up` after a failed request: it resolves when the store (restarted) is ready again.
  let markUp = () => {}
  let up = Promise.resolve()
  const figures = newFigures()
  const deadline = Date.now() + settings.loadMs
  // Every download answered 200 is checked whole (its length, and a PDF's or EPUB's structure).
  const fileChecks: Promise<string | null>[] = []
  const checkDownload = (what: string, answer: Answer | Error) => {
    if (what !== 'download' || answer instanceof Error || answer.status !== 200) return
    const format = answer.headers.get('Content-Type') === 'application/pdf' ? 'pdf' : 'epub'
    const length = Number(answer.headers.get('Content-Length'))
    fileChecks.push(
      wholeFileProblem(answer.bytes, format, length).then((problem) =>
        problem ? `a ${format} download: ${problem}` : null,
      ),
    )
  }
  // A third of the kills land while a checkout is being paid (a few milliseconds after its post is sent), a
  // third while a download's copy is being stamped and written to storage (its first download: up to 150 ms
  // after the request is sent), the rest at any moment.
  const aimedAt = (kill: number) => (['checkout post', 'download'] as const)[(kill % 3) - 1]
  let onSending: { what: string; resolve: () => void } | undefined
  const queue = [...buyers]
  const load = Promise.all(
    Array.from({ length: settings.concurrency }, async () => {
      for (let buyer = queue.shift(); buyer; buyer = queue.shift()) {
        await runBuyer(buyer, {
          baseUrl: () => baseUrl,
          books,
          figures,
          whenUp: () => up,
          until: () => Date.now() > deadline,
          observe: checkDownload,
          sending: (what) => {
            if (what === onSending?.what) onSending.resolve()
          },
        })
      }
    }),
  )

  // PGlite: the folder each kill left is copied and the copy opened and checked with amcheck (as the store
  // opens the original), so every crash state is checked, not only the last one; after the load, so that the
  // checks do not slow the restarts measured.
  const integrity: IntegrityReport[] = []
  const copies: string[] = []
  const crashCopies = tempDir('kill-copies')
  const restartMs: number[] = []
  const killToReadyMs: number[] = []
  const aimed = { 'checkout post': 0, download: 0 }
  for (let kill = 0; kill < settings.kills && Date.now() < deadline; kill++) {
    await sleep(settings.minUpMs + Math.random() * (settings.maxUpMs - settings.minUpMs))
    const aim = aimedAt(kill)
    if (aim) {
      const sent = await Promise.race([
        new Promise<boolean>((resolve) => (onSending = { what: aim, resolve: () => resolve(true) })),
        sleep(5_000).then(() => false),
      ])
      onSending = undefined
      await sleep(Math.random() * (aim === 'download' ? 150 : 40))
      if (sent) aimed[aim]++
    }
    up = new Promise((resolve) => (markUp = resolve))
    const killedAt = performance.now()
    await store.stop('SIGKILL')
    if (kind === 'pglite') {
      const copy = path.join(crashCopies, `kill-${kill + 1}`)
      fs.cpSync(path.join(dataDir, 'db'), copy, { recursive: true })
      copies.push(copy)
    }
    const spawnedAt = performance.now()
    store = await spawnStore(env)
    try {
      await waitUntilReady(store, 60_000)
    } catch (error) {
      console.error(`after kill ${kill + 1}, the store did not come back:`, error)
      return false
    }
    restartMs.push(performance.now() - spawnedAt)
    killToReadyMs.push(performance.now() - killedAt)
    markUp()
    console.log(
      `kill ${kill + 1}: ready again in ${Math.round(restartMs.at(-1)!)} ms after the restart (load ${loadAverage()})`,
    )
  }
  await load
  const downloadProblems = (await Promise.all(fileChecks)).filter((problem) => problem !== null)
  const kept = await checkCopiesKept(baseUrl, buyers)
  await store.stop('SIGTERM')
  for (const [index, copy] of copies.entries()) {
    const report = await checkPgliteFolder(copy).catch((error: unknown): IntegrityReport => ({
      indexes: 0,
      tables: 0,
      problems: [`kill ${index + 1}: ${String(error)}`],
    }))
    integrity.push(report)
    fs.rmSync(copy, { recursive: true, force: true })
  }

  // The data as the last restart left it, opened by the drill itself (the store is stopped).
  const database = await openDrillDatabase(kind, { dataDir, url })
  const check = await checkOrders(database, buyers).finally(() => database.close())
  integrity.push(
    kind === 'pglite' ? await checkPgliteFolder(path.join(dataDir, 'db')) : await checkPostgresDatabase(url!),
  )
  check.problems.push(...integrity.flatMap((report) => report.problems))
  // The files as the kills left them, read directly from the folder or the bucket.
  const stamped = await brokenStoredFiles(storage, dataDir, 'stamped/')
  const bookFiles = await brokenStoredFiles(storage, dataDir, 'books/')
  check.problems.push(...downloadProblems, ...kept.problems, ...stamped.problems, ...bookFiles.problems)
  if (bookFiles.checked === 0) check.problems.push('no book file found in storage')

  console.log(`
drill:kill (${kind}, files in ${storageKind === 's3' ? 'an S3 bucket' : 'the folder'}${quick ? ', quick' : ''}) — ${Math.round((performance.now() - started) / 1000)} s, load average ${loadAverage()}
  kills:                         ${restartMs.length} (${aimed['checkout post']} as a checkout was paid, ${aimed.download} as a download's copy was stamped)
  checkouts attempted:           ${figures.checkoutsAttempted} (checkout posts resent after a kill: ${figures.checkoutPostsRetried})
  checkouts answered (303):      ${check.redirected}
  confirmation pages answered:   ${check.confirmed}
  found paid in the database:    ${check.found} of ${check.redirected}
  paid but never shown (lost answers, not orders): ${check.paidUnseen}
  downloads:                     ${figures.downloads} (${fileChecks.length - downloadProblems.length} checked whole)
  copies kept after the last kill: ${kept.kept} of ${kept.downloaded} downloaded, ${kept.whole} downloaded whole again
  stored files checked whole:    ${stamped.checked} stamped copies, ${bookFiles.checked} book files (${storageKind === 's3' ? 'the bucket' : 'the folder'})
  failed requests, tried again:  ${figures.failedRequests}
  data checked with amcheck:     ${integrity.length} times (${kind === 'pglite' ? 'each folder a kill left, and the last' : 'at the end'}; ${integrity[0]?.indexes ?? 0} indexes, ${integrity[0]?.tables ?? 0} tables each)
  restart → ready:               median ${Math.round(percentile(restartMs, 50))} ms, max ${Math.round(Math.max(0, ...restartMs))} ms
  kill → ready:                  median ${Math.round(percentile(killToReadyMs, 50))} ms, max ${Math.round(Math.max(0, ...killToReadyMs))} ms
  problems:                      ${check.problems.length === 0 ? 'none' : ''}`)
  for (const problem of check.problems) console.log(`    - ${problem}`)
  return check.problems.length === 0 && restartMs.length > 0 && check.redirected > 0 && kept.downloaded > 0
})

/**
 * No file lost: after the last kill, every copy a buyer downloaded is still kept (a HEAD answers its length,
 * which the store knows only for a copy in storage: it stamps none for a HEAD) and downloads again whole, as
 * long as the HEAD said.
 */
async function checkCopiesKept(baseUrl: string, buyers: BuyerRecord[]) {
  const files = buyers.flatMap((buyer) => [...buyer.downloaded].map((file) => ({ buyer, file })))
  const problems: string[] = []
  let kept = 0
  let whole = 0
  const queue = [...files]
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [slug, format] = next.file.split('.') as [string, 'pdf' | 'epub']
        const url = `${baseUrl}/library/${slug}/download.${format}`
        const headers = { Cookie: next.buyer.cookie }
        try {
          const head = await request(url, { method: 'HEAD', headers })
          const length = head.headers.get('Content-Length')
          if (head.status !== 200 || length === null) {
            problems.push(
              `${next.file} of a buyer: HEAD answered ${head.status}, length ${length} (not kept)`,
            )
            continue
          }
          kept++
          const got = await request(url, { headers })
          const problem =
            got.status === 200
              ? await wholeFileProblem(got.bytes, format, Number(length))
              : `answered ${got.status}`
          if (problem) problems.push(`${next.file} of a buyer, downloaded again: ${problem}`)
          else whole++
        } catch (error) {
          problems.push(`${next.file} of a buyer: ${String(error)}`)
        }
      }
    }),
  )
  return { downloaded: files.length, kept, whole, problems }
}
