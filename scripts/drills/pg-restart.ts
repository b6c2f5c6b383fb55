/**
 * `npm run drill:pg-restart -- [--quick]`: the store on a throwaway PostgreSQL server, under load (buyers
 * checking out, signed-in page views), while the server is stopped for a few seconds and started again.
 * Passes when, during the outage, /readyz answers 503, pages answer a 503 page (HTML saying to try again,
 * with Retry-After) and resource routes a JSON 503; no request anywhere gets a 500 or hangs (each is bounded
 * by a timeout); the store is ready and serves pages within 5 s of the server accepting connections again;
 * and every order a buyer was sent to is in the database, paid once, with its books.
 */
import { spawnStore, waitUntilReady } from '#harness/store-process.ts'
import {
  checkOrders,
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
  runViewer,
  sleep,
  isTimeout,
  type Answer,
} from './lib.ts'

const { quick, build } = parseDrillOptions({
  name: 'pg-restart',
  summary:
    'The store under load while its PostgreSQL server is stopped for a few seconds and started again: 503s, never a 500 or a hang, and every order a buyer was sent to paid once.',
  databases: ['postgres'],
})
const settings = quick
  ? { restarts: 1, outageMs: 3_000, warmMs: 3_000, afterMs: 3_000, buyers: 12, concurrency: 3, viewers: 2 }
  : { restarts: 3, outageMs: 5_000, warmMs: 5_000, afterMs: 5_000, buyers: 30, concurrency: 4, viewers: 3 }
/** A request that takes longer is a hang. */
const REQUEST_TIMEOUT_MS = 10_000
/** The store answers within this during an outage (the pool's connection timeout is below it). */
const OUTAGE_ANSWER_MS = 5_000
/** It recovers by itself within this of the server accepting connections again. */
const RECOVERY_MS = 5_000

type Phase = 'before' | 'outage' | 'after'

await runDrill(async () => {
  ensureBuild(build)
  const started = performance.now()
  const { where, env, buyers, books, postgres } = await prepareDrillStore(
    'pg-restart',
    'postgres',
    settings.buyers,
  )
  const server = postgres!
  const store = await spawnStore(env)
  onExit(() => store.stop('SIGKILL'))
  await waitUntilReady(store)

  let phase: Phase = 'before'
  const problems: string[] = []
  const slowest: Record<Phase, number> = { before: 0, outage: 0, after: 0 }
  const counts: Record<Phase, Map<string, number>> = {
    before: new Map(),
    outage: new Map(),
    after: new Map(),
  }
  const observe = (what: string, answer: Answer | Error) => {
    const key =
      answer instanceof Error ? (isTimeout(answer) ? 'timeout' : 'connection error') : String(answer.status)
    counts[phase].set(key, (counts[phase].get(key) ?? 0) + 1)
    if (answer instanceof Error) {
      problems.push(`${phase}: ${what}: ${key} (${answer.message})`)
      return
    }
    slowest[phase] = Math.max(slowest[phase], answer.ms)
    if (answer.status >= 500 && answer.status !== 503)
      problems.push(`${phase}: ${what} answered ${answer.status}: ${answer.text.slice(0, 200)}`)
    if (phase === 'outage' && answer.ms > OUTAGE_ANSWER_MS)
      problems.push(`outage: ${what} took ${Math.round(answer.ms)} ms`)
  }

  const figures = newFigures()
  let done = false
  const common = {
    baseUrl: () => store.url,
    figures,
    whenUp: () => sleep(250),
    until: () => done,
    observe,
    timeoutMs: REQUEST_TIMEOUT_MS,
  }
  const queue = [...buyers]
  const viewerCookie = buyers.at(-1)!.cookie
  const load = Promise.all([
    ...Array.from({ length: settings.concurrency }, async () => {
      for (let buyer = queue.shift(); buyer; buyer = queue.shift())
        await runBuyer(buyer, { ...common, books }).catch(
          (error: unknown) => void problems.push(String(error)),
        )
    }),
    ...Array.from({ length: settings.viewers }, () =>
      runViewer(viewerCookie, books, { ...common, pauseMs: 50 }),
    ),
  ])

  /** During the outage: what readiness, a page and a resource route answer. */
  const probe = async () => {
    const cookie = buyers[0]!.cookie
    const probes = [
      { what: 'GET /readyz', path: '/readyz', accept: 'application/json', want: 'json' },
      { what: 'GET /account/orders', path: '/account/orders', accept: 'text/html', want: 'html' },
      { what: 'GET /cart', path: '/cart', accept: 'text/html', want: 'html' },
      { what: 'GET /search/suggest', path: '/search/suggest?q=re', accept: '*/*', want: 'json' },
      { what: 'GET /account/export.json', path: '/account/export.json', accept: '*/*', want: 'json' },
      // A client-side navigation (JavaScript on): React Router's own encoding of the root's 503.
      { what: 'GET /account/orders.data', path: '/account/orders.data', accept: '*/*', want: 'data' },
    ] as const
    let probed = 0
    while (phase === 'outage') {
      for (const { what, path, accept, want } of probes) {
        let answer: Answer
        try {
          answer = await request(`${store.url}${path}`, {
            headers: { Cookie: cookie, Accept: accept },
            timeoutMs: REQUEST_TIMEOUT_MS,
          })
        } catch (error) {
          observe(`probe ${what}`, error as Error)
          continue
        }
        if (phase !== 'outage') break
        probed++
        observe(`probe ${what}`, answer)
        const type = answer.headers.get('content-type') ?? ''
        const fault = (why: string) => problems.push(`outage: ${what}: ${why} (${answer.status}, ${type})`)
        if (answer.status !== 503) fault('not a 503')
        else if (want === 'json' && !type.startsWith('application/json')) fault('not JSON')
        else if (want === 'html') {
          if (!type.startsWith('text/html')) fault('not HTML')
          if (!/temporarily unavailable/i.test(answer.text) || !/try again/i.test(answer.text))
            fault('no "temporarily unavailable … try again" message')
          if (!answer.headers.get('retry-after')) fault('no Retry-After')
        }
      }
      await sleep(100)
    }
    return probed
  }

  const recoveries: Array<{ readyMs: number; pageMs: number; probes: number }> = []
  await sleep(settings.warmMs)
  for (let restart = 0; restart < settings.restarts; restart++) {
    server.stop()
    phase = 'outage'
    const probing = probe()
    await sleep(settings.outageMs)
    // Answers from here on may still be 503s (the store reconnecting), never a 500.
    phase = 'after'
    server.start()
    // pg_ctl start -w returns once the server accepts connections.
    const backAt = performance.now()
    const firstOk = async (path: string) => {
      while (performance.now() - backAt < 30_000) {
        const answer = await request(`${store.url}${path}`, {
          headers: { Cookie: buyers[0]!.cookie, Accept: 'text/html' },
          timeoutMs: REQUEST_TIMEOUT_MS,
        }).catch(() => undefined)
        if (answer?.status === 200) return performance.now() - backAt
        await sleep(50)
      }
      return Infinity
    }
    const [readyMs, pageMs] = await Promise.all([firstOk('/readyz'), firstOk('/account/orders')])
    const probes = await probing
    recoveries.push({ readyMs, pageMs, probes })
    console.log(
      `restart ${restart + 1}: ${probes} probes during the outage; back → /readyz 200 in ${Math.round(readyMs)} ms, → page 200 in ${Math.round(pageMs)} ms (load ${loadAverage()})`,
    )
    if (readyMs > RECOVERY_MS || pageMs > RECOVERY_MS)
      problems.push(`restart ${restart + 1}: recovered in ${Math.round(Math.max(readyMs, pageMs))} ms`)
    if (probes === 0) problems.push(`restart ${restart + 1}: no probe answered during the outage`)
    if (store.child.exitCode !== null || store.child.signalCode !== null)
      problems.push(
        `the store exited (${store.child.exitCode ?? store.child.signalCode}):\n${store.output().slice(-3000)}`,
      )
    await sleep(settings.afterMs)
  }
  done = true
  await load
  if (store.child.exitCode !== null || store.child.signalCode !== null)
    problems.push(
      `the store exited (${store.child.exitCode ?? store.child.signalCode}):\n${store.output().slice(-3000)}`,
    )
  await store.stop('SIGTERM')

  const database = await openDrillDatabase('postgres', where)
  const check = await checkOrders(database, buyers).finally(() => database.close())
  problems.push(...check.problems)

  const show = (map: Map<string, number>) =>
    [...map]
      .sort()
      .map(([status, n]) => `${status} × ${n}`)
      .join(', ') || 'none'
  console.log(`
drill:pg-restart (postgres${quick ? ', quick' : ''}) — ${Math.round((performance.now() - started) / 1000)} s, load average ${loadAverage()}
  restarts:                        ${recoveries.length} (outage ${settings.outageMs} ms each)
  answers before / during / after: ${show(counts.before)} / ${show(counts.outage)} / ${show(counts.after)}
  slowest answer before / during / after: ${Math.round(slowest.before)} / ${Math.round(slowest.outage)} / ${Math.round(slowest.after)} ms
  back → /readyz 200:              ${recoveries.map((r) => Math.round(r.readyMs)).join(', ')} ms (median ${Math.round(
    percentile(
      recoveries.map((r) => r.readyMs),
      50,
    ),
  )})
  back → page 200:                 ${recoveries.map((r) => Math.round(r.pageMs)).join(', ')} ms
  checkouts attempted:             ${figures.checkoutsAttempted}; answered ${check.redirected}; confirmed ${check.confirmed}; found paid ${check.found}
  paid but never shown:            ${check.paidUnseen}
  page views:                      ${figures.pageViews}
  problems:                        ${problems.length === 0 ? 'none' : problems.length}`)
  for (const problem of [...new Set(problems)].slice(0, 30)) console.log(`    - ${problem}`)
  return problems.length === 0 && check.redirected > 0
})
