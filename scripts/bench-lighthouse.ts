/**
 * `npm run bench:lighthouse [-- --cpu-stress N]`: Lighthouse 12 in Debian's Chromium, mobile and desktop, on
 * every public page of the production build (on a fresh embedded database) — `/`, `/AllBooks` (plain and
 * filtered), a book, the topics and a topic, an author, the search, a guest's `/cart` with a book in it, the
 * account forms and the site pages — and a signed-in reader's `/account/library`, plus the gzipped JS and CSS
 * `/` loads.
 * Each page is audited LIGHTHOUSE_RUNS times (default 5); every run is printed, with the machine's load average
 * when it ended, and the median run is reported (Lighthouse's own `computeMedianRun`): on this 2-core machine
 * one run's mobile score swings by ±5, so a single run says little. `--cpu-stress N` runs N busy loops (one
 * process each) beside Chromium for the whole measurement, so the budget is checked on a busy machine on
 * purpose (issue 35). LIGHTHOUSE_FORMS=mobile skips the desktop runs; LIGHTHOUSE_REPORTS=<folder> keeps each
 * median report as JSON (open it in the Lighthouse viewer to see what the LCP waited on); LIGHTHOUSE_PAGES=/,/cart
 * audits only those. `--tasks` prints, for each mobile page's median run, its long tasks (over 50 ms on the
 * simulated phone) with the script Lighthouse attributes each to, the main thread's work by kind and each
 * script's evaluation and compile time (issue 35's table). Prints numbers; asserts nothing. Budgets (issues 2, 13, 17 and 35), mobile: performance
 * ≥ 98 as the median **and** no run below 95, TBT ≤ 50 ms (median), LCP ≤ 1.5 s, CLS 0, accessibility, best
 * practices and SEO 100 — except SEO's `is-crawlable` on the pages that are noindex by design (the search
 * results, the cart, the library, the account forms: decision 020), which the report names as such.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse, { type Flags } from 'lighthouse'
import desktopConfig from 'lighthouse/core/config/desktop-config.js'
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js'
import { chromiumFlags, chromiumPath } from '#harness/chromium.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { seedCatalog } from '#app/features/catalog/seed-catalog.server.ts'
import { cookieFromForm } from '#harness/cookie-jar.ts'
import { createBuyer, testPassword } from '#harness/factories/buyers.ts'
import { startStoreWithAdmin } from '#harness/store-process.ts'
import { ensureBuild } from './drills/lib.ts'
import { startBaselines, type Baselines } from './lighthouse-baseline/serve.ts'

type Visitor = 'anonymous' | 'guest with a cart' | 'signed-in reader'
/** Who serves the page: the store, or one of the `--baseline` servers (scripts/lighthouse-baseline/serve.ts). */
type Origin = 'store' | keyof Omit<Baselines, 'stop'>
// Issue 13: the home page, All eBooks with filters and a sort, a book page and a topic page. Issue 17: the
// search, a cart with a book in it, and a reader's library. `noindex`: kept out of search engines on purpose.
// Issue 34: the topics, an author, the account forms and the site pages. Issue 35: every public page.
const withBaselines = process.argv.includes('--baseline')
const pages: Array<{ path: string; visitor: Visitor; noindex?: true; origin?: Origin }> = [
  { path: '/', visitor: 'anonymous' },
  // `--baseline`: measured right after the store's `/`, so the three are read at the same load.
  ...(withBaselines
    ? [
        { path: '/', visitor: 'anonymous' as const, origin: 'noScripts' as const },
        { path: '/', visitor: 'anonymous' as const, origin: 'bare' as const },
      ]
    : []),
  { path: '/AllBooks', visitor: 'anonymous' },
  { path: '/AllBooks?topic=javascript&rating=4&sort=price-asc', visitor: 'anonymous' },
  { path: '/books/django-framework', visitor: 'anonymous' },
  { path: '/topics', visitor: 'anonymous' },
  { path: '/topics/databases', visitor: 'anonymous' },
  { path: '/authors/lucia-ferreira', visitor: 'anonymous' },
  { path: '/search?q=react', visitor: 'anonymous', noindex: true },
  { path: '/cart', visitor: 'guest with a cart', noindex: true },
  { path: '/login', visitor: 'anonymous', noindex: true },
  { path: '/Register', visitor: 'anonymous', noindex: true },
  { path: '/about', visitor: 'anonymous' },
  { path: '/terms', visitor: 'anonymous' },
  { path: '/account/library', visitor: 'signed-in reader', noindex: true },
]
const budgets = { performance: 98, accessibility: 100, 'best-practices': 100, seo: 100 }
/** Issue 35: the median may be 98 only if no single run fell under this. */
const worstRunBudget = 95
const timingBudgets = { 'LCP ms': 1500, 'TBT ms': 50, CLS: 0 }
const runs = Number(process.env.LIGHTHOUSE_RUNS ?? 5)
const stressArgument = process.argv.indexOf('--cpu-stress')
const stressLoops = stressArgument === -1 ? 0 : Number(process.argv[stressArgument + 1])
if (!Number.isInteger(stressLoops) || stressLoops < 0)
  throw new Error('--cpu-stress takes a count: --cpu-stress 1')
const printTasks = process.argv.includes('--tasks')
const formFactors =
  process.env.LIGHTHOUSE_FORMS === 'mobile' ? ['mobile' as const] : (['mobile', 'desktop'] as const)
const load = () =>
  os
    .loadavg()
    .map((average) => average.toFixed(2))
    .join(' ')

ensureBuild(process.argv.includes('--build'))

// A reader who owns Django Framework, made in the database before the store starts (it signs in below).
let reader: { email: string } | undefined
const { store } = await startStoreWithAdmin({}, async (db) => {
  await seedCatalog(db)
  const django = (await listBooks(db)).find((book) => book.slug === 'django-framework')
  if (!django) throw new Error('the seed has no django-framework')
  reader = await createBuyer(db, [django.id])
})
const cookies: Record<Visitor, string> = {
  anonymous: '',
  'guest with a cart': await cookieFromForm(
    store.url,
    '/cart',
    new URLSearchParams({ intent: 'add', bookId: await bookId('the-future-of-design-systems') }),
  ),
  'signed-in reader': await cookieFromForm(
    store.url,
    '/login',
    new URLSearchParams({ email: reader!.email, password: testPassword }),
  ),
}

async function bookId(slug: string): Promise<string> {
  const html = await (await fetch(`${store.url}/books/${slug}`)).text()
  const id = /name="bookId" value="([0-9a-f-]{36})"/.exec(html)?.[1]
  if (!id) throw new Error(`no add-to-cart form on /books/${slug}`)
  return id
}

const baselines = withBaselines
  ? await startBaselines(store.url, process.argv.includes('--build'))
  : undefined
const originUrl = (origin: Origin = 'store') => (origin === 'store' ? store.url : baselines![origin])
const label = (page: string, origin: Origin = 'store') =>
  origin === 'store'
    ? page
    : `${page} (${origin === 'bare' ? 'bare React Router' : 'the store without scripts'})`

console.log(`load average before: ${load()} (${os.cpus().length} cores)`)
// The busy loops: separate processes, so they compete with Chromium and the store as another program would.
const stress: ChildProcess[] = Array.from({ length: stressLoops }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
)
if (stressLoops) console.log(`${stressLoops} busy loop(s) running beside Chromium (--cpu-stress)`)
const chrome = await chromeLauncher.launch({
  chromePath: chromiumPath,
  chromeFlags: ['--headless=new', ...chromiumFlags],
})

type Row = Record<string, string | number>
const rows: Row[] = []
let misses = 0
let homeBytes: { js: number; css: number } | undefined
try {
  for (const formFactor of formFactors) {
    for (const { path, visitor, noindex, origin } of pages.filter(
      ({ path }) => !process.env.LIGHTHOUSE_PAGES || process.env.LIGHTHOUSE_PAGES.split(',').includes(path),
    )) {
      const page = label(path, origin)
      const flags: Flags = {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        ...(cookies[visitor] ? { extraHeaders: { Cookie: cookies[visitor] } } : {}),
      }
      const results = []
      // On a loaded machine a run can time out before the first paint: it is retried (twice per page at most).
      for (let attempt = 0; results.length < runs && attempt < runs + 2; attempt++) {
        const result = await lighthouse(
          `${originUrl(origin)}${path}`,
          flags,
          formFactor === 'desktop' ? desktopConfig : undefined,
        )
        if (!result) throw new Error(`Lighthouse returned nothing for ${page}`)
        const fcp = result.lhr.audits['first-contentful-paint']?.numericValue
        if (result.lhr.runtimeError || fcp === undefined) {
          console.warn(
            `${formFactor} ${page}: a run failed (${result.lhr.runtimeError?.code ?? 'no FCP'}), retried`,
          )
          continue
        }
        results.push(result.lhr)
        const lhr = result.lhr
        console.log(
          `${formFactor} ${page} run ${results.length}: performance ${Math.round((lhr.categories.performance?.score ?? 0) * 100)}, ` +
            `TBT ${Math.round(lhr.audits['total-blocking-time']?.numericValue ?? NaN)} ms, ` +
            `LCP ${Math.round(lhr.audits['largest-contentful-paint']?.numericValue ?? NaN)} ms (load ${load()})`,
        )
      }
      if (results.length === 0) throw new Error(`every Lighthouse run of ${page} failed`)
      // Its .d.ts names the global LH.Result, which this project does not declare: it returns one of `results`.
      const median = computeMedianRun(results) as (typeof results)[number]
      const { categories, audits } = median
      if (process.env.LIGHTHOUSE_REPORTS) {
        fs.mkdirSync(process.env.LIGHTHOUSE_REPORTS, { recursive: true })
        const name = `${formFactor}-${page.replace(/[^a-z0-9]+/gi, '_')}.json`
        fs.writeFileSync(`${process.env.LIGHTHOUSE_REPORTS}/${name}`, JSON.stringify(median))
      }
      const score = (id: keyof typeof budgets) => Math.round((categories[id]?.score ?? 0) * 100)
      const failingSeo = (categories.seo?.auditRefs ?? [])
        .map((ref) => audits[ref.id])
        .filter(
          (audit) => audit && audit.score !== null && audit.score < 1 && audit.scoreDisplayMode === 'binary',
        )
        .map((audit) => audit!.id)
      const row: Row = {
        form: formFactor,
        page,
        visitor,
        'performance (all runs)': results
          .map((lhr) => Math.round((lhr.categories.performance?.score ?? 0) * 100))
          .join(' '),
        'TBT ms (all runs)': results
          .map((lhr) => Math.round(lhr.audits['total-blocking-time']?.numericValue ?? NaN))
          .join(' '),
        performance: score('performance'),
        accessibility: score('accessibility'),
        'best-practices': score('best-practices'),
        seo: score('seo'),
        'LCP ms': Math.round(audits['largest-contentful-paint']?.numericValue ?? NaN),
        'TBT ms': Math.round(audits['total-blocking-time']?.numericValue ?? NaN),
        CLS: Number((audits['cumulative-layout-shift']?.numericValue ?? NaN).toFixed(3)),
      }
      rows.push(row)
      // Decision 020: these pages are noindex (and disallowed in robots.txt), so Lighthouse's `is-crawlable`
      // fails there by design; any other failing SEO audit is a real miss.
      const noindexOnly = noindex && failingSeo.length === 1 && failingSeo[0] === 'is-crawlable'
      if (failingSeo.length) {
        console.log(
          noindexOnly
            ? `${formFactor} ${page}: SEO ${row.seo}, only is-crawlable fails: noindex by design (decision 020)`
            : `${formFactor} ${page}: SEO ${row.seo}, failing: ${failingSeo.join(', ')}`,
        )
      }
      // The baselines are read against the store, not held to its budgets.
      if (formFactor === 'mobile' && !origin) {
        const worst = Math.min(
          ...results.map((lhr) => Math.round((lhr.categories.performance?.score ?? 0) * 100)),
        )
        if (worst < worstRunBudget) {
          misses++
          console.warn(`over budget: mobile ${page} a run scored ${worst} < ${worstRunBudget}`)
        }
        for (const [id, max] of Object.entries(timingBudgets)) {
          if (Number(row[id]) > max) {
            misses++
            console.warn(`over budget: mobile ${page} ${id} ${row[id]} > ${max}`)
          }
        }
        for (const [id, min] of Object.entries(budgets)) {
          if (id === 'seo' && noindexOnly) continue
          if (Number(row[id]) < min) {
            misses++
            const failing = Object.values(audits)
              .filter(
                (audit) =>
                  audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative',
              )
              .map((audit) => audit.id)
            console.warn(
              `over budget: mobile ${page} ${id} ${row[id]} < ${min} (audits below 1: ${failing.join(', ')})`,
            )
          }
        }
      }
      if (formFactor === 'mobile' && printTasks) printMainThreadWork(page, audits)
      if (formFactor === 'mobile' && page === '/' && !origin) {
        const requests =
          (audits['network-requests']?.details as { items?: Array<Record<string, unknown>> })?.items ?? []
        const sum = (type: string) =>
          requests
            .filter((request) => request.resourceType === type)
            .reduce((total, request) => total + Number(request.transferSize ?? 0), 0)
        homeBytes = { js: sum('Script'), css: sum('Stylesheet') }
      }
    }
  }
} finally {
  for (const loop of stress) loop.kill()
  chrome.kill()
  await baselines?.stop()
  await store.stop()
}

console.log(`load average after: ${load()}`)
console.table(rows)
if (homeBytes) {
  console.log(
    `/ loads ${(homeBytes.js / 1024).toFixed(1)} KiB of JavaScript and ${(homeBytes.css / 1024).toFixed(1)} KiB of CSS (gzipped, as transferred)`,
  )
}
console.log(misses ? `${misses} mobile budget(s) missed` : 'every mobile budget met')

type Audits = Record<string, { details?: unknown } | undefined>
type Items = Array<Record<string, unknown>>

/** The median run's long tasks, main-thread work by kind and per-script cost (`--tasks`). */
function printMainThreadWork(page: string, audits: Audits) {
  const items = (id: string): Items => (audits[id]?.details as { items?: Items } | undefined)?.items ?? []
  const shortUrl = (url: unknown) =>
    typeof url === 'string' ? url.replace(/^https?:\/\/[^/]+/, '') || '/' : String(url)
  const round = (value: unknown) => Math.round(Number(value ?? 0))
  console.log(`\n${page}: long tasks (simulated mobile CPU)`)
  console.table(
    items('long-tasks').map((task) => ({
      'start ms': round(task.startTime),
      'duration ms': round(task.duration),
      'attributed to': shortUrl(task.url),
    })),
  )
  console.log(`${page}: main-thread work by kind (ms)`)
  console.table(
    items('mainthread-work-breakdown').map((group) => ({
      kind: group.groupLabel,
      ms: round(group.duration),
    })),
  )
  console.log(`${page}: JavaScript per script (ms)`)
  console.table(
    items('bootup-time').map((script) => ({
      script: shortUrl(script.url),
      total: round(script.total),
      evaluation: round(script.scripting),
      'parse and compile': round(script.scriptParseCompile),
    })),
  )
}
