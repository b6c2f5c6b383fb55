/**
 * `npm run bench:reader`: the online reader's budget (issue 29) — the first page of a 300-page book readable
 * ≤ 1.5 s after navigation on Lighthouse's mobile profile, and a page turned ≤ 50 ms.
 *
 * A store of its own: the back office publishes a generated ~300-page manuscript as a new edition of Django
 * Framework (through the manuscript form, as an owner does), and a reader who owns it opens `/read/<slug>`.
 *
 * - **First page readable**: Chromium as Lighthouse's mobile run emulates it — a 412×823 phone, the CPU slowed
 *   4×, slow 4G (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up) — from the navigation until the book's
 *   first page is laid out with its text (foliate-js's first `relocate`, then a painted frame), read as
 *   `performance.now()` in the page, i.e. from the navigation's start. The sample reader of the same book
 *   (`/read/<slug>/sample`, a small file) is measured in the same run as the baseline.
 * - **Lighthouse** on the same page (mobile, its simulated throttling): performance, LCP (the main frame's: the
 *   reader's chrome), LCP over all frames (observed: the book's text is in foliate-js's frame) and TBT.
 * - **Page turns**: on the same phone (CPU 4×), READER_TURNS (120) presses of → then READER_TURNS_BACK (40) of ←,
 *   the reader staying READER_TURN_PAUSE_MS (1000) on each page, each from the key's event to the frame after the
 *   one that painted the place foliate-js reported; a turn from a section's last page (or, going back, its first)
 *   is timed until the place is in the next (previous) section. Turns within a section, into the next and into the
 *   previous one are reported apart (median, p95, max; READER_TURN_LOG=1 prints each turn).
 *
 * READER_RUNS (default 5) runs of each; medians reported, every run printed with the machine's load. `-- --turns`
 * measures the page turns only; `-- --compare` measures them with foliate-js's paginator as published too.
 */
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { eq } from 'drizzle-orm'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { books } from '#app/server/db/schema/index.server.ts'
import { chromiumFlags, chromiumPath } from '#harness/chromium.ts'
import { cookieFromForm } from '#harness/cookie-jar.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { startStoreWithAdmin } from '#harness/store-process.ts'
import { ensureBuild } from './drills/lib.ts'
import { longManuscript } from './long-manuscript.ts'
import { guardFoliatePaginator } from './vite/foliate-guards.ts'

const slug = 'django-framework'
const runs = Number(process.env.READER_RUNS ?? 5)
const turns = Number(process.env.READER_TURNS ?? 120)
const turnsBack = Number(process.env.READER_TURNS_BACK ?? 40)
/**
 * How long the reader stays on each page before turning the next (ms): a page a second, faster than anyone
 * reads. 120 is as fast as a key can turn them (foliate-js takes no turn for 100 ms after one).
 */
const pauseMs = Number(process.env.READER_TURN_PAUSE_MS ?? 1000)
/** `-- --turns`: the book's page turns only (no sample, no Lighthouse). */
const turnsOnly = process.argv.includes('--turns')
/**
 * `-- --compare`: the page turns also with foliate-js's paginator as published (with only the guards of
 * scripts/vite/foliate-guards.ts), served in place of the built one, in alternate order each run: the change's
 * baseline measured in the same run, on the same machine load.
 */
const compare = process.argv.includes('--compare')
type Variant = 'published' | 'built'
const variants: Variant[] = compare ? ['published', 'built'] : ['built']
/** How many times the published paginator was served in place of the built one (a check the route applies). */
let publishedServed = 0
const publishedPaginator = guardFoliatePaginator(
  fs.readFileSync(createRequire(import.meta.url).resolve('foliate-js/paginator.js'), 'utf8'),
)
const budgets = { readableMs: 1500, turnMs: 50 }
const load = () =>
  os
    .loadavg()
    .map((average) => average.toFixed(2))
    .join(' ')
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!

ensureBuild(process.argv.includes('--build'))
console.log(`load average before: ${load()} (${os.cpus().length} cores)`)

let bookId = ''
let readerEmail = ''
const { store, admin } = await startStoreWithAdmin({}, async (db) => {
  await seedCatalog(db)
  const [book] = await db.select({ id: books.id }).from(books).where(eq(books.slug, slug))
  if (!book) throw new Error(`the seed has no ${slug}`)
  bookId = book.id
  readerEmail = (await createBuyer(db, [bookId])).email
})

/** The session cookie of `email` (the factories' password), from the login form. */
const logIn = (email: string) =>
  cookieFromForm(store.url, '/login', new URLSearchParams({ email, password: testPassword }))

// The back office publishes the long edition, as the manuscript page's form does.
const manuscript = longManuscript()
const publishStarted = performance.now()
const published = await fetch(`${store.url}/admin/books/${bookId}/manuscript`, {
  method: 'POST',
  body: new URLSearchParams({
    intent: 'publish',
    manuscript,
    changelog: 'The long edition for bench:reader.',
  }),
  redirect: 'manual',
  headers: { Origin: store.url, Cookie: await logIn(admin.email) },
})
if (published.status !== 303)
  throw new Error(`publishing answered ${published.status}: ${await published.text()}`)
console.log(
  `published edition ${published.headers.get('location')?.split('published=')[1]}: ` +
    `${manuscript.split(/\s+/).length} words, ${(Buffer.byteLength(manuscript) / 1024).toFixed(0)} KiB of Markdown ` +
    `in ${((performance.now() - publishStarted) / 1000).toFixed(1)} s`,
)
const readerCookie = await logIn(readerEmail)

const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags })
/** Lighthouse's mobile profile (Moto G Power), as a browser context and throttling through the DevTools protocol. */
async function phone(variant: Variant = 'built'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: 412, height: 823 },
    deviceScaleFactor: 1.75,
    isMobile: true,
    hasTouch: true,
  })
  await context.addCookies(
    readerCookie.split('; ').map((pair) => {
      const [name, ...value] = pair.split('=')
      return { name: name!, value: value.join('='), url: store.url }
    }),
  )
  if (variant === 'published')
    await context.route('**/assets/paginator-*.js', (route) => {
      publishedServed++
      return route.fulfill({ contentType: 'text/javascript', body: publishedPaginator })
    })
  const page = await context.newPage()
  const devtools = await context.newCDPSession(page)
  await devtools.send('Emulation.setCPUThrottlingRate', { rate: 4 })
  await devtools.send('Network.enable')
  await devtools.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  })
  return { context, page }
}

/**
 * From the navigation's start: `ms`, until the book's first page is readable — its text painted, whichever comes
 * first of the server-rendered first screen (decision 041: its Element Timing `renderTime`) and foliate-js's own
 * page; `foliateMs`, until foliate-js's page is laid out and painted (its first `relocate`, then a frame: the
 * reader turns pages from then on). The server's first screen must begin with the words foliate-js's page begins
 * with, or the run fails.
 */
async function firstPageReadable(
  page: Page,
  path: string,
): Promise<{ ms: number; foliateMs: number; serverMs: number | null; pages: number }> {
  await page.goto(`${store.url}${path}`, { waitUntil: 'commit' })
  await page.evaluate(() => {
    const state = window as unknown as { firstPagePainted?: number }
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as Array<
        PerformanceEntry & { identifier?: string; renderTime?: number }
      >)
        if (entry.identifier === 'reader-first-page' && state.firstPagePainted === undefined)
          state.firstPagePainted = entry.renderTime || entry.startTime
    }).observe({ type: 'element', buffered: true })
  })
  const handle = await page.waitForFunction(
    () => {
      type View = Element & {
        lastLocation?: { range?: Range }
        book?: { pageList?: unknown[] }
      }
      const view = document.querySelector('foliate-view') as View | null
      const text = view?.lastLocation?.range?.toString().trim() ?? ''
      if (text.length < 20) return null
      const served = document.querySelector('.first-page-text')?.textContent ?? null
      return new Promise<{
        ms: number
        pages: number
        text: string
        served: string | null
        painted: number | null
      }>((resolve) =>
        requestAnimationFrame(() =>
          resolve({
            ms: performance.now(),
            pages: view?.book?.pageList?.length ?? 0,
            text,
            served,
            painted: (window as unknown as { firstPagePainted?: number }).firstPagePainted ?? null,
          }),
        ),
      )
    },
    undefined,
    { polling: 'raf', timeout: 120_000 },
  )
  const first = (await handle.jsonValue())!
  // The server's first screen is gone once foliate-js's page is here: its text was read as it stood.
  const words = (text: string) => text.replace(/\s+/g, '').slice(0, 50)
  if (
    first.painted !== null &&
    words(first.served ?? '') &&
    !words(first.text).startsWith(words(first.served ?? ''))
  )
    throw new Error(
      `the server's first screen begins '${words(first.served ?? '')}', foliate-js's page '${words(first.text)}'`,
    )
  return {
    ms: Math.min(first.ms, first.painted ?? Infinity),
    foliateMs: first.ms,
    serverMs: first.painted,
    pages: first.pages,
  }
}

type TurnKind = 'within' | 'next' | 'previous'
type Turn = { ms: number; kind: TurnKind }

/**
 * Presses `key` `count` times, each once the last turn has painted and the reader has paused `pauseMs` on its
 * page; the time of each turn, by kind. A turn from a section's last page (→) or first page (←) crosses into the
 * next or previous section: it is timed until foliate-js reports a place in that section, not until its first
 * report (it used to report the blank page after the section's last one first).
 */
async function pageTurns(page: Page, key: 'ArrowRight' | 'ArrowLeft', count: number): Promise<Turn[]> {
  await page.evaluate(() => {
    type Detail = { index: number; fraction?: number; size?: number }
    type Reported = { index: number; keyAt: number; paintedAt: number }
    const state = window as unknown as {
      bench?: { keyAt: number; keys: number; last: Detail; reports: Reported[] }
    }
    if (state.bench) return
    const view = document.querySelector('foliate-view') as unknown as {
      renderer: EventTarget
      lastLocation?: { section?: { current: number } }
    }
    const bench = {
      keyAt: 0,
      keys: 0,
      last: { index: view.lastLocation?.section?.current ?? -1 } as Detail,
      reports: [] as Reported[],
    }
    state.bench = bench
    addEventListener(
      'keydown',
      (event) => {
        bench.keyAt = event.timeStamp
        bench.keys++
      },
      true,
    )
    // The paginator's own report: the section's index, and the page as a fraction of the section.
    view.renderer.addEventListener('relocate', (event) => {
      const detail = (event as CustomEvent<Detail>).detail
      bench.last = { index: detail.index, fraction: detail.fraction, size: detail.size }
      const reported = { index: detail.index, keyAt: bench.keyAt, paintedAt: 0, at: performance.now() }
      bench.reports.push(reported)
      // The frame after the one that paints the new page has begun: the page is on screen.
      requestAnimationFrame(() => requestAnimationFrame(() => (reported.paintedAt = performance.now())))
    })
  })
  const forward = key === 'ArrowRight'
  const times: Turn[] = []
  for (let turn = 1; turn <= count; turn++) {
    const before = await page.evaluate(() => {
      const { bench } = window as unknown as {
        bench: { keys: number; last: { index: number; fraction?: number; size?: number }; reports: unknown[] }
      }
      return { ...bench.last, keys: bench.keys, reports: bench.reports.length }
    })
    const fraction = before.fraction ?? 0
    const crossing = forward ? fraction + (before.size ?? 0) > 0.999 : fraction < 0.001
    await page.keyboard.press(key)
    const handle = await page.waitForFunction(
      ({ reports, index, crossing }) => {
        const { bench } = window as unknown as {
          bench: { reports: Array<{ index: number; keyAt: number; paintedAt: number; at: number }> }
        }
        const turned = bench.reports
          .slice(reports)
          .find((report) => (crossing ? report.index !== index : true) && report.paintedAt > 0)
        return turned
          ? { ms: turned.paintedAt - turned.keyAt, index: turned.index, toRelocate: turned.at - turned.keyAt }
          : null
      },
      { reports: before.reports, index: before.index, crossing },
      { timeout: 30_000, polling: 50 },
    )
    const turned = (await handle.jsonValue())!
    if (process.env.READER_TURN_LOG)
      console.log(
        `${key} from section ${before.index} at ${fraction.toFixed(3)}: ${turned.ms.toFixed(1)} ms ` +
          `(${turned.toRelocate.toFixed(1)} ms to foliate-js's report)`,
      )
    const keys = await page.evaluate(() => (window as unknown as { bench: { keys: number } }).bench.keys)
    if (keys !== before.keys + 1) throw new Error('the key did not reach the reader’s page')
    if (crossing && turned.index === before.index) throw new Error('a crossing turn stayed in its section')
    times.push({ ms: turned.ms, kind: crossing ? (forward ? 'next' : 'previous') : 'within' })
    // The reader on the new page; foliate-js also takes no turn for 100 ms after one.
    await page.waitForTimeout(pauseMs)
  }
  return times
}

/**
 * `-- --waterfall`: one throttled opening of the book, each request with when it started, when its response
 * began and ended (ms from the navigation's start) and its bytes on the wire, and the main thread's time: where
 * the first page's time goes. READER_WATERFALL_PATH opens another path (the sample's, say).
 */
async function waterfall(path: string) {
  const { context, page } = await phone()
  const devtools = await context.newCDPSession(page)
  await devtools.send('Network.enable')
  type Request = { url: string; type: string; start: number; response?: number; end?: number; bytes?: number }
  const requests = new Map<string, Request>()
  let origin = 0
  devtools.on('Network.requestWillBeSent', (event) => {
    if (!origin) origin = event.timestamp
    requests.set(event.requestId, {
      url: event.request.url,
      type: `${event.type ?? ''} (${event.initiator.type}, ${event.request.initialPriority})`,
      start: event.timestamp,
    })
  })
  devtools.on('Network.responseReceived', (event) => {
    const request = requests.get(event.requestId)
    if (request) request.response = event.timestamp
  })
  devtools.on('Network.loadingFinished', (event) => {
    const request = requests.get(event.requestId)
    if (request) Object.assign(request, { end: event.timestamp, bytes: event.encodedDataLength })
  })
  await devtools.send('Performance.enable')
  const first = await firstPageReadable(page, path)
  const { metrics } = await devtools.send('Performance.getMetrics')
  const metric = (name: string) =>
    Math.round((metrics.find((entry) => entry.name === name)?.value ?? 0) * 1000)
  const at = (time?: number) => (time ? Math.round((time - origin) * 1000) : '')
  console.table(
    [...requests.values()]
      .filter((request) => !request.url.startsWith('data:'))
      .map((request) => ({
        request: request.url.replace(store.url, '').slice(0, 60),
        type: request.type,
        start: at(request.start),
        response: at(request.response),
        end: at(request.end),
        bytes: request.bytes ?? '',
      })),
  )
  console.log(
    `readable at ${Math.round(first.ms)} ms (server's first screen painted at ${first.serverMs === null ? '–' : Math.round(first.serverMs)} ms), ` +
      `foliate-js's page at ${Math.round(first.foliateMs)} ms; main thread since the navigation: ` +
      `scripts ${metric('ScriptDuration')} ms, layout ${metric('LayoutDuration')} ms, style ${metric('RecalcStyleDuration')} ms, ` +
      `tasks ${metric('TaskDuration')} ms (load ${load()})`,
  )
  await page.screenshot({ path: process.env.READER_WATERFALL_SCREENSHOT ?? 'reader-waterfall.png' })
  await context.close()
}

const turnLabels: Record<TurnKind, string> = {
  within: 'within a section',
  next: 'into the next section',
  previous: 'into the previous section',
}
/** Thrown to skip the rest of the measures (`--turns`). */
class Done extends Error {}

const readable: Record<'book' | 'sample', number[]> = { book: [], sample: [] }
const foliate: Record<'book' | 'sample', number[]> = { book: [], sample: [] }
const turnTimes: Record<Variant, Record<TurnKind, number[]>> = {
  published: { within: [], next: [], previous: [] },
  built: { within: [], next: [], previous: [] },
}
let pageCount = 0
const lighthouseRuns: Array<{ performance: number; lcp: number; lcpAllFrames: number; tbt: number }> = []
const brief = (values: number[]) =>
  values.length
    ? `${values.length} × median ${Math.round(median(values))} max ${Math.round(Math.max(...values))}`
    : '–'
try {
  if (process.argv.includes('--waterfall')) {
    await waterfall(process.env.READER_WATERFALL_PATH ?? `/read/${slug}`)
    throw new Done()
  }
  for (let run = 1; run <= runs; run++) {
    if (!turnsOnly) {
      const { context, page } = await phone()
      const first = await firstPageReadable(page, `/read/${slug}/sample`)
      readable.sample.push(first.ms)
      foliate.sample.push(first.foliateMs)
      console.log(
        `run ${run}: the sample's first page readable in ${Math.round(first.ms)} ms (foliate-js's page at ` +
          `${Math.round(first.foliateMs)} ms)`,
      )
      await context.close()
    }
    // The baseline first in odd runs, second in even ones.
    for (const variant of run % 2 ? variants : [...variants].reverse()) {
      const { context, page } = await phone(variant)
      const served = publishedServed
      const first = await firstPageReadable(page, `/read/${slug}`)
      if (variant === 'published' && publishedServed === served)
        throw new Error(
          'the published paginator was not served: is the built chunk still assets/paginator-*.js?',
        )
      // The published paginator is served by the test, not over the throttled network: its first page is not
      // comparable.
      if (variant === 'built') {
        readable.book.push(first.ms)
        foliate.book.push(first.foliateMs)
      }
      pageCount = first.pages
      const times = [
        ...(await pageTurns(page, 'ArrowRight', turns)),
        ...(await pageTurns(page, 'ArrowLeft', turnsBack)),
      ]
      for (const { kind, ms } of times) turnTimes[variant][kind].push(ms)
      const of = (kind: TurnKind) => times.filter((time) => time.kind === kind).map((time) => time.ms)
      console.log(
        `run ${run}${compare ? ` (${variant} paginator)` : ''}: the book's first page readable in ` +
          `${Math.round(first.ms)} ms (foliate-js's page at ${Math.round(first.foliateMs)} ms); turns within a section ${brief(of('within'))} ms, into the next ` +
          `${brief(of('next'))} ms, into the previous ${brief(of('previous'))} ms (load ${load()})`,
      )
      await context.close()
    }
  }

  // Lighthouse's own mobile run of the reader's page, signed in.
  if (turnsOnly) throw new Done()
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath,
    chromeFlags: ['--headless=new', ...chromiumFlags],
  })
  try {
    for (let run = 1; run <= runs; run++) {
      const result = await lighthouse(`${store.url}/read/${slug}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance'],
        extraHeaders: { Cookie: readerCookie },
      })
      const lhr = result?.lhr
      if (!lhr || lhr.runtimeError) {
        console.warn(`Lighthouse run ${run} failed (${lhr?.runtimeError?.code ?? 'no result'})`)
        continue
      }
      const metrics = (lhr.audits.metrics?.details as { items?: Array<Record<string, number>> } | undefined)
        ?.items?.[0]
      const measured = {
        performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
        lcp: Math.round(lhr.audits['largest-contentful-paint']?.numericValue ?? NaN),
        lcpAllFrames: Math.round(metrics?.observedLargestContentfulPaintAllFrames ?? NaN),
        tbt: Math.round(lhr.audits['total-blocking-time']?.numericValue ?? NaN),
      }
      lighthouseRuns.push(measured)
      console.log(
        `Lighthouse run ${run}: performance ${measured.performance}, LCP ${measured.lcp} ms (all frames, observed: ` +
          `${measured.lcpAllFrames} ms), TBT ${measured.tbt} ms (load ${load()})`,
      )
    }
  } finally {
    await chrome.kill()
  }
} catch (error) {
  if (!(error instanceof Done)) throw error
} finally {
  await browser.close()
  await store.stop()
}

console.log(`load average after: ${load()}`)
const book = median(readable.book)
const turnRows = variants.flatMap((variant) =>
  (['within', 'next', 'previous'] as const).map((kind) => {
    const values = turnTimes[variant][kind]
    return {
      measure: `${compare ? `${variant} paginator: ` : ''}page turn ${turnLabels[kind]} (ms, ${values.length} turns)`,
      runs: values.length
        ? `p95 ${Math.round(percentile(values, 95))}, max ${Math.round(Math.max(...values))}`
        : '',
      median: values.length ? Math.round(median(values)) : '',
      budget: budgets.turnMs,
    }
  }),
)
console.table([
  {
    measure: `first page readable, the ${pageCount}-page book (ms)`,
    runs: readable.book.map(Math.round).join(' '),
    median: Math.round(book),
    budget: budgets.readableMs,
  },
  ...(readable.book.length
    ? [
        {
          measure: `foliate-js's first page laid out, the book (ms)`,
          runs: foliate.book.map(Math.round).join(' '),
          median: Math.round(median(foliate.book)),
          budget: '',
        },
      ]
    : []),
  ...(readable.sample.length
    ? [
        {
          measure: 'first page readable, its sample: baseline (ms)',
          runs: readable.sample.map(Math.round).join(' '),
          median: Math.round(median(readable.sample)),
          budget: '',
        },
        {
          measure: `foliate-js's first page laid out, its sample (ms)`,
          runs: foliate.sample.map(Math.round).join(' '),
          median: Math.round(median(foliate.sample)),
          budget: '',
        },
      ]
    : []),
  ...turnRows,
  ...(lighthouseRuns.length
    ? [
        {
          measure: 'Lighthouse mobile: performance',
          runs: lighthouseRuns.map((run) => run.performance).join(' '),
          median: median(lighthouseRuns.map((run) => run.performance)),
          budget: '',
        },
        {
          measure: 'Lighthouse mobile: LCP, main frame (ms)',
          runs: lighthouseRuns.map((run) => run.lcp).join(' '),
          median: median(lighthouseRuns.map((run) => run.lcp)),
          budget: budgets.readableMs,
        },
        {
          measure: 'Lighthouse mobile: LCP, all frames, observed (ms)',
          runs: lighthouseRuns.map((run) => run.lcpAllFrames).join(' '),
          median: median(lighthouseRuns.map((run) => run.lcpAllFrames)),
          budget: budgets.readableMs,
        },
        {
          measure: 'Lighthouse mobile: TBT (ms)',
          runs: lighthouseRuns.map((run) => run.tbt).join(' '),
          median: median(lighthouseRuns.map((run) => run.tbt)),
          budget: '',
        },
      ]
    : []),
])
const misses = [
  book > budgets.readableMs && `the first page readable in ${Math.round(book)} ms > ${budgets.readableMs}`,
  ...(['within', 'next', 'previous'] as const).map((kind) => {
    const values = turnTimes.built[kind]
    const typical = values.length ? median(values) : 0
    return (
      typical > budgets.turnMs &&
      `a page turn ${turnLabels[kind]} in ${Math.round(typical)} ms (median) > ${budgets.turnMs}`
    )
  }),
].filter(Boolean)
for (const miss of misses) console.warn(`over budget: ${miss}`)
if (pageCount < 250)
  console.warn(`the book has ${pageCount} pages in its page list, fewer than the 300 meant`)
console.log(misses.length ? `${misses.length} budget(s) missed` : 'within budget')
