/**
 * `npm run drill:kill -- [--quick] [--db pglite|postgres]`: buyers check out (the test card) and download
 * while the store is killed with SIGKILL at random moments and restarted on the same data. Passes when every
 * order a buyer was sent to is in the database, paid exactly once, with its library rows, nothing is
 * duplicated, and the store opened its data after every kill. Prints kills, checkouts and restart times.
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
  runBuyer,
  runDrill,
  sleep,
  tempDir,
} from './lib.ts'

const {
  quick,
  db: kind,
  build,
} = parseDrillOptions({
  name: 'kill',
  summary:
    'Buyers check out and download while the store is killed with SIGKILL at random moments and restarted: every order a buyer was sent to must be in the database, paid once, with its books.',
})
const settings = quick
  ? { buyers: 12, concurrency: 4, kills: 5, minUpMs: 1_000, maxUpMs: 3_000, loadMs: 45_000 }
  : { buyers: 40, concurrency: 6, kills: 12, minUpMs: 1_000, maxUpMs: 5_000, loadMs: 150_000 }

await runDrill(async () => {
  ensureBuild(build)
  const started = performance.now()
  const prepared = await prepareDrillStore('kill', kind, settings.buyers)
  const { buyers, books } = prepared
  const { dataDir, url } = prepared.where
  // One port for every restart: the buyers keep their address.
  const env = { ...prepared.env, PORT: String(await freePort()) }
  let store: StoreProcess = await spawnStore(env)
  onExit(() => store.stop('SIGKILL'))
  await waitUntilReady(store)
  const baseUrl = store.url

  // Buyers wait on `up` after a failed request: it resolves when the store (restarted) is ready again.
  let markUp = () => {}
  let up = Promise.resolve()
  const figures = newFigures()
  const deadline = Date.now() + settings.loadMs
  // Half the kills land while a checkout is being paid (a few milliseconds after its post is sent).
  let onCheckoutPost: (() => void) | undefined
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
          sending: (what) => {
            if (what === 'checkout post') onCheckoutPost?.()
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
  for (let kill = 0; kill < settings.kills && Date.now() < deadline; kill++) {
    await sleep(settings.minUpMs + Math.random() * (settings.maxUpMs - settings.minUpMs))
    if (kill % 2 === 1) {
      await Promise.race([new Promise<void>((resolve) => (onCheckoutPost = resolve)), sleep(5_000)])
      onCheckoutPost = undefined
      await sleep(Math.random() * 40)
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

  console.log(`
drill:kill (${kind}${quick ? ', quick' : ''}) — ${Math.round((performance.now() - started) / 1000)} s, load average ${loadAverage()}
  kills:                         ${restartMs.length}
  checkouts attempted:           ${figures.checkoutsAttempted} (checkout posts resent after a kill: ${figures.checkoutPostsRetried})
  checkouts answered (303):      ${check.redirected}
  confirmation pages answered:   ${check.confirmed}
  found paid in the database:    ${check.found} of ${check.redirected}
  paid but never shown (lost answers, not orders): ${check.paidUnseen}
  downloads:                     ${figures.downloads}
  failed requests, tried again:  ${figures.failedRequests}
  data checked with amcheck:     ${integrity.length} times (${kind === 'pglite' ? 'each folder a kill left, and the last' : 'at the end'}; ${integrity[0]?.indexes ?? 0} indexes, ${integrity[0]?.tables ?? 0} tables each)
  restart → ready:               median ${Math.round(percentile(restartMs, 50))} ms, max ${Math.round(Math.max(0, ...restartMs))} ms
  kill → ready:                  median ${Math.round(percentile(killToReadyMs, 50))} ms, max ${Math.round(Math.max(0, ...killToReadyMs))} ms
  problems:                      ${check.problems.length === 0 ? 'none' : ''}`)
  for (const problem of check.problems) console.log(`    - ${problem}`)
  return check.problems.length === 0 && restartMs.length > 0 && check.redirected > 0
})
