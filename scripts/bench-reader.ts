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
 * - **Page turns**: READER_TURNS presses of → on the same phone (CPU 4×), from the key's event to the next painted
 *   frame after foliate-js reports the new place; turns within a section and into the next one reported apart.
 *
 * READER_RUNS (default 5) runs of each; medians reported, every run printed with the machine's load.
 */
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

const slug = 'django-framework'
const runs = Number(process.env.READER_RUNS ?? 5)
const turns = Number(process.env.READER_TURNS ?? 40)
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
async function phone(): Promise<{ context: BrowserContext; page: Page }> {
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

/** Milliseconds from the navigation's start until the book's first page is laid out and painted. */
async function firstPageReadable(page: Page, path: string): Promise<{ ms: number; pages: number }> {
  await page.goto(`${store.url}${path}`, { waitUntil: 'commit' })
  const handle = await page.waitForFunction(
    () => {
      type View = Element & {
        lastLocation?: { range?: Range }
        book?: { pageList?: unknown[] }
      }
      const view = document.querySelector('foliate-view') as View | null
      const text = view?.lastLocation?.range?.toString().trim() ?? ''
      if (text.length < 20) return null
      return new Promise<{ ms: number; pages: number }>((resolve) =>
        requestAnimationFrame(() =>
          resolve({ ms: performance.now(), pages: view?.book?.pageList?.length ?? 0 }),
        ),
      )
    },
    undefined,
    { polling: 'raf', timeout: 120_000 },
  )
  return (await handle.jsonValue())!
}

type TurnTimes = { withinSection: number[]; nextSection: number[] }
/** Presses → `turns` times, each once the last turn has painted; the time of each, by kind. */
async function pageTurns(page: Page): Promise<TurnTimes> {
  await page.evaluate(() => {
    type Detail = { section?: { current: number } }
    const state = window as unknown as { turnTimes: Array<[number, boolean]>; keyAt: number; section: number }
    const view = document.querySelector('foliate-view')!
    state.turnTimes = []
    state.section = (view as unknown as { lastLocation?: Detail }).lastLocation?.section?.current ?? -1
    addEventListener('keydown', (event) => (state.keyAt = event.timeStamp), true)
    view.addEventListener('relocate', (event) => {
      const section = (event as CustomEvent<Detail>).detail.section?.current ?? -1
      const crossed = section !== state.section
      state.section = section
      requestAnimationFrame(() =>
        requestAnimationFrame(() => state.turnTimes.push([performance.now() - state.keyAt, crossed])),
      )
    })
  })
  for (let turn = 1; turn <= turns; turn++) {
    await page.keyboard.press('ArrowRight')
    await page.waitForFunction(
      (count) => (window as unknown as { turnTimes: unknown[] }).turnTimes.length >= count,
      turn,
      { timeout: 30_000 },
    )
    // foliate-js takes no turn for 100 ms after one (a held key turns pages at that pace).
    await page.waitForTimeout(120)
  }
  const times = await page.evaluate(
    () => (window as unknown as { turnTimes: Array<[number, boolean]> }).turnTimes,
  )
  return {
    withinSection: times.filter(([, crossed]) => !crossed).map(([ms]) => ms),
    nextSection: times.filter(([, crossed]) => crossed).map(([ms]) => ms),
  }
}

const readable: Record<'book' | 'sample', number[]> = { book: [], sample: [] }
const turnTimes: TurnTimes = { withinSection: [], nextSection: [] }
let pageCount = 0
const lighthouseRuns: Array<{ performance: number; lcp: number; lcpAllFrames: number; tbt: number }> = []
try {
  for (let run = 1; run <= runs; run++) {
    for (const [kind, path] of [
      ['sample', `/read/${slug}/sample`],
      ['book', `/read/${slug}`],
    ] as const) {
      const { context, page } = await phone()
      const first = await firstPageReadable(page, path)
      readable[kind].push(first.ms)
      if (kind === 'book') {
        pageCount = first.pages
        const times = await pageTurns(page)
        turnTimes.withinSection.push(...times.withinSection)
        turnTimes.nextSection.push(...times.nextSection)
        console.log(
          `run ${run}: the book's first page readable in ${Math.round(first.ms)} ms; ${turns} turns: median ` +
            `${Math.round(median(times.withinSection))} ms within a section, ` +
            `${times.nextSection.length ? Math.round(median(times.nextSection)) : '–'} ms into the next (load ${load()})`,
        )
      } else console.log(`run ${run}: the sample's first page readable in ${Math.round(first.ms)} ms`)
      await context.close()
    }
  }

  // Lighthouse's own mobile run of the reader's page, signed in.
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
} finally {
  await browser.close()
  await store.stop()
}

console.log(`load average after: ${load()}`)
const book = median(readable.book)
const within = median(turnTimes.withinSection)
console.table([
  {
    measure: `first page readable, the ${pageCount}-page book (ms)`,
    runs: readable.book.map(Math.round).join(' '),
    median: Math.round(book),
    budget: budgets.readableMs,
  },
  {
    measure: 'first page readable, its sample: baseline (ms)',
    runs: readable.sample.map(Math.round).join(' '),
    median: Math.round(median(readable.sample)),
    budget: '',
  },
  {
    measure: `page turn within a section (ms, ${turnTimes.withinSection.length} turns)`,
    runs: `p95 ${Math.round(percentile(turnTimes.withinSection, 95))}`,
    median: Math.round(within),
    budget: budgets.turnMs,
  },
  {
    measure: `page turn into the next section (ms, ${turnTimes.nextSection.length} turns)`,
    runs: turnTimes.nextSection.length ? `p95 ${Math.round(percentile(turnTimes.nextSection, 95))}` : '',
    median: turnTimes.nextSection.length ? Math.round(median(turnTimes.nextSection)) : '',
    budget: budgets.turnMs,
  },
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
  within > budgets.turnMs && `a page turn in ${Math.round(within)} ms > ${budgets.turnMs}`,
].filter(Boolean)
for (const miss of misses) console.warn(`over budget: ${miss}`)
if (pageCount < 250)
  console.warn(`the book has ${pageCount} pages in its page list, fewer than the 300 meant`)
console.log(misses.length ? `${misses.length} budget(s) missed` : 'within budget')
