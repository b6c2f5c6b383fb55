/**
 * `npm run trace:load [-- /path …]`: where a page's main-thread time goes while it loads on a phone-like CPU
 * (issue 35). Chromium (Debian's, through playwright-core) opens each page of the production build at 390×844
 * with its CPU throttled 4× (what Lighthouse's mobile runs simulate), records a performance trace from the
 * navigation until the page has hydrated and gone quiet, and prints every main-thread task over 50 ms with
 * what it spent its time on: a script's evaluation (by file), compiling, React's scheduled work (rendering
 * and hydrating), microtasks, style and layout, parsing, garbage collection. Prints numbers; asserts nothing.
 * With each task, the functions its JavaScript spent most of its time in (V8's sampling profiler, inclusive:
 * a function counts for the samples in which it is on the stack) — readable names when the build is not
 * minified (`TRACE_UNMINIFIED=1 npx react-router build`, vite.config.ts). TRACE_RUNS (default 3) runs per page;
 * TRACE_KEEP=<folder> keeps each trace as JSON for Chromium's Performance panel.
 */
import fs from 'node:fs'
import os from 'node:os'
import { chromium } from 'playwright-core'
import { chromiumFlags, chromiumPath } from '#harness/chromium.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { startStoreWithAdmin } from '#harness/store-process.ts'
import { ensureBuild } from './drills/lib.ts'

const pages = process.argv.slice(2).filter((argument) => argument.startsWith('/'))
const paths = pages.length ? pages : ['/', '/AllBooks', '/books/django-framework']
const runs = Number(process.env.TRACE_RUNS ?? 3)
const LONG_TASK_MS = 50

type TraceEvent = {
  name: string
  cat: string
  ph: string
  ts: number
  dur?: number
  pid: number
  tid: number
  args?: { name?: string; data?: Record<string, unknown> }
}

ensureBuild(process.argv.includes('--build'))

const { store } = await startStoreWithAdmin({}, (db) => seedCatalog(db))
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags })
console.log(
  `load average before: ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}`,
)
try {
  for (const path of paths) {
    for (let run = 1; run <= runs; run++) {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true })
      const page = await context.newPage()
      const devtools = await context.newCDPSession(page)
      await devtools.send('Emulation.setCPUThrottlingRate', { rate: 4 })
      await browser.startTracing(page, {
        categories: [
          'devtools.timeline',
          'disabled-by-default-devtools.timeline',
          'v8.execute',
          'v8',
          'blink.user_timing',
          'loading',
          'disabled-by-default-v8.cpu_profiler',
        ],
      })
      await page.goto(`${store.url}${path}`)
      // Asked through the DevTools protocol, not Playwright's waitForFunction: that injects Playwright's own
      // scripts into the page, whose evaluation would show up in the trace as the page's work.
      for (let waited = 0; ; waited += 100) {
        const { result } = await devtools.send('Runtime.evaluate', {
          expression: 'document.documentElement.dataset.hydrated',
        })
        if (result.value === 'true') break
        if (waited > 30_000) throw new Error(`${path} did not hydrate within 30 s`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // What React and React Router do just after hydrating (effects, route discovery) belongs to the load.
      await page.waitForTimeout(1_500)
      const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] }
      if (process.env.TRACE_KEEP) {
        fs.mkdirSync(process.env.TRACE_KEEP, { recursive: true })
        const name = `${path.replace(/[^a-z0-9]+/gi, '_')}-${run}.json`
        fs.writeFileSync(`${process.env.TRACE_KEEP}/${name}`, JSON.stringify(trace))
      }
      printLongTasks(`${path} run ${run}`, trace.traceEvents, cpuSamples(trace.traceEvents))
      await context.close()
    }
  }
} finally {
  await browser.close()
  await store.stop()
}
console.log(
  `load average after: ${os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')}`,
)

/** The renderer's main thread: the thread named CrRendererMain of the process that loaded the page. */
function mainThread(events: TraceEvent[]): { pid: number; tid: number } | undefined {
  const candidates = events.filter(
    (event) => event.ph === 'M' && event.name === 'thread_name' && event.args?.name === 'CrRendererMain',
  )
  // The page's renderer is the one with the most work on its main thread.
  let best: { pid: number; tid: number; work: number } | undefined
  for (const { pid, tid } of candidates) {
    const work = events
      .filter((event) => event.pid === pid && event.tid === tid && event.name === 'RunTask')
      .reduce((total, event) => total + (event.dur ?? 0), 0)
    if (!best || work > best.work) best = { pid, tid, work }
  }
  return best
}

/** What one event inside a task was doing, in the words of issue 35's table. */
function kindOf(event: TraceEvent): string | undefined {
  const data = event.args?.data ?? {}
  const file = typeof data.url === 'string' ? data.url.replace(/^https?:\/\/[^/]+/, '') || '/' : ''
  switch (event.name) {
    case 'v8.compile':
    case 'v8.compileModule':
    case 'V8.CompileCode':
      return `compile ${file}`
    case 'EvaluateScript':
    case 'v8.evaluateModule':
      return `evaluate ${file || 'inline script'}`
    case 'FunctionCall': {
      const functionName = typeof data.functionName === 'string' ? data.functionName : ''
      return `call ${file}${functionName ? ` ${functionName}` : ''}`
    }
    case 'RunMicrotasks':
    case 'V8.RunMicrotasks':
      return 'microtasks'
    case 'UpdateLayoutTree':
    case 'RecalculateStyles':
      return 'style'
    case 'Layout':
      return 'layout'
    case 'ParseHTML':
      return 'parse HTML'
    case 'ParseAuthorStyleSheet':
      return 'parse CSS'
    case 'MinorGC':
    case 'MajorGC':
    case 'V8.GC_SCAVENGER':
    case 'BlinkGC.AtomicPhase':
      return 'garbage collection'
    case 'Paint':
    case 'PrePaint':
    case 'Layerize':
      return 'paint'
    case 'EventDispatch':
      return `event ${String(data.type ?? '')}`
    case 'TimerFire':
      return 'timer'
    case 'FireAnimationFrame':
      return 'animation frame'
    default:
      return undefined
  }
}

/**
 * Every task over LONG_TASK_MS (as measured on the throttled CPU) and its time by kind. Nested events are
 * counted at the deepest kind known: a script's function call that recalculates style counts as style.
 */
function printLongTasks(label: string, events: TraceEvent[], samples: Sample[]) {
  const thread = mainThread(events)
  if (!thread) return console.log(`${label}: no renderer main thread in the trace`)
  const onThread = events
    .filter((event) => event.pid === thread.pid && event.tid === thread.tid && event.ph === 'X')
    .sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0))
  const navigationStart =
    events.find((event) => event.name === 'navigationStart' && event.pid === thread.pid)?.ts ??
    onThread[0]?.ts ??
    0
  const tasks = onThread.filter((event) => event.name === 'RunTask' && (event.dur ?? 0) / 1000 > LONG_TASK_MS)
  const rows = tasks.map((task) => {
    const end = task.ts + (task.dur ?? 0)
    const inside = onThread.filter((event) => event !== task && event.ts >= task.ts && event.ts < end)
    // Self time per kind: an event's duration less that of the known kinds nested in it.
    const self = new Map<string, number>()
    const stack: Array<{ event: TraceEvent; kind: string }> = []
    for (const event of inside) {
      // An event of no kind above that took 10 ms or more is named as the trace names it.
      const kind = kindOf(event) ?? ((event.dur ?? 0) >= 10_000 ? event.name : undefined)
      if (!kind) continue
      while (stack.length && stack.at(-1)!.event.ts + (stack.at(-1)!.event.dur ?? 0) <= event.ts) stack.pop()
      const parent = stack.at(-1)
      if (parent) self.set(parent.kind, (self.get(parent.kind) ?? 0) - (event.dur ?? 0))
      self.set(kind, (self.get(kind) ?? 0) + (event.dur ?? 0))
      stack.push({ event, kind })
    }
    const top = [...self.entries()]
      .filter(([, us]) => us >= 2_000)
      .sort((a, b) => b[1] - a[1])
      .map(([kind, us]) => `${kind} ${Math.round(us / 1000)}`)
      .join('; ')
    return {
      'start ms': Math.round((task.ts - navigationStart) / 1000),
      'ms (4× CPU)': Math.round((task.dur ?? 0) / 1000),
      'spent on (ms)': top || 'other',
      'in functions (share of samples)': topFunctions(
        samples.filter((sample) => sample.pid === thread.pid),
        task.ts,
        end,
      ),
    }
  })
  const blocking = tasks.reduce(
    (total, task) => total + Math.max(0, (task.dur ?? 0) / 1000 - LONG_TASK_MS),
    0,
  )
  console.log(
    `\n${label}: ${tasks.length} task(s) over ${LONG_TASK_MS} ms, ${Math.round(blocking)} ms blocking`,
  )
  if (rows.length) console.table(rows)
}

type Sample = { pid: number; tid: number; ts: number; stack: string[] }

/** V8's CPU samples in the trace, each with its stack (leaf first) as `function (file)` names. */
function cpuSamples(events: TraceEvent[]): Sample[] {
  const samples: Sample[] = []
  type Node = { id: number; parent?: number; callFrame: { functionName: string; url: string } }
  const nodes = new Map<string, Map<number, Node>>()
  const clock = new Map<string, number>()
  for (const event of events) {
    const id = `${event.pid}:${(event as { id?: string }).id ?? ''}`
    const data = event.args?.data as
      | {
          startTime?: number
          cpuProfile?: { nodes?: Node[]; samples?: number[] }
          timeDeltas?: number[]
        }
      | undefined
    if (event.name === 'Profile' && data?.startTime !== undefined) clock.set(id, data.startTime)
    if (event.name !== 'ProfileChunk' || !data) continue
    const known = nodes.get(id) ?? new Map<number, Node>()
    nodes.set(id, known)
    for (const node of data.cpuProfile?.nodes ?? []) known.set(node.id, node)
    let time = clock.get(id) ?? 0
    const deltas = data.timeDeltas ?? []
    ;(data.cpuProfile?.samples ?? []).forEach((nodeId, index) => {
      time += deltas[index] ?? 0
      const stack: string[] = []
      for (let node = known.get(nodeId); node; node = node.parent ? known.get(node.parent) : undefined) {
        const { functionName, url } = node.callFrame
        // '(program)', '(idle)', '(garbage collector)', '(root)': not a function of the page's.
        if (functionName.startsWith('(')) continue
        stack.push(
          `${functionName || 'top level'} (${(url ?? '').replace(/^https?:\/\/[^/]+/, '').replace(/^\/assets\//, '') || '/'})`,
        )
      }
      if (stack.length) samples.push({ pid: event.pid, tid: event.tid, ts: time, stack })
    })
    clock.set(id, time)
  }
  return samples
}

/** The functions on the stack most often between `start` and `end`, with their share of the samples. */
function topFunctions(samples: Sample[], start: number, end: number): string {
  const inside = samples.filter((sample) => sample.ts >= start && sample.ts < end)
  if (inside.length === 0) return ''
  const counts = new Map<string, number>()
  for (const sample of inside)
    for (const name of new Set(sample.stack)) counts.set(name, (counts.get(name) ?? 0) + 1)
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([name, count]) => `${name} ${Math.round((100 * count) / inside.length)}%`)
    .join('; ')
}
