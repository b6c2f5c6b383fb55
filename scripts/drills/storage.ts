/**
 * `npm run drill:storage -- [--quick] [--db pglite|postgres] [--outage S]` (issue 32): a store on an S3 bucket
 * (s3rver on 127.0.0.1, harness/s3-server.ts) under steady load — paid customers downloading their stamped PDFs
 * and EPUBs, the online reader fetching its EPUB (as one range), an admin uploading covers and fetching every
 * variant, and visitors (anonymous and signed in) on pages that need no file: `/`, `/AllBooks`, books' pages,
 * the library, `/readyz` — while the object store stops for 10 s (its port closed) and comes back. The rule
 * (outage.ts): during the outage file requests answer 503 with Retry-After (never a 500, never a hang), pages
 * stay 200, and within 5 s of its return every kind of file request succeeds again with no restart; every file
 * served is whole (its length as announced, a whole PDF, EPUB or image; a cover the same bytes as the bucket
 * holds), and so is every stamped copy and cover in the bucket afterwards. Prints the figures: requests in each
 * phase, the 503s and their Retry-After, the pages' p99, the time to the first success after the return.
 * `--quick` (or DRILL_QUICK=1): 6 s of load before the outage and 8 s after it, for CI.
 */
import { createHash } from 'node:crypto'
import sharp from 'sharp'
import { COVER_FORMATS, COVER_WIDTHS } from '#app/features/catalog/cover-image.ts'
import { listBooks } from '#app/features/catalog/catalog.server.ts'
import { createAdmin } from '#harness/factories/admins.ts'
import { createBuyer } from '#harness/factories/buyers.ts'
import { freePort, spawnStore, waitUntilReady } from '#harness/store-process.ts'
import { brokenStoredFiles, readStoredFiles, startDrillStorage, wholeFileProblem } from './files.ts'
import {
  ensureBuild,
  loadAverage,
  onExit,
  openDrillDatabase,
  parseDrillOptions,
  prepareDrillStore,
  runDrill,
  sleep,
  type Book,
} from './lib.ts'
import {
  FILE_KINDS,
  judgeOutage,
  SUCCESS,
  type Outcome,
  type OutageWindow,
  type RequestKind,
} from './outage.ts'

const options = parseDrillOptions({
  name: 'storage',
  summary:
    'A store on an S3 bucket under load while the object store stops for 10 s: file requests answer 503 with Retry-After (no 500, no hang), pages stay 200, everything recovers by itself, no half file is ever served.',
  options: {
    outage: { type: 'number', value: 'S', help: 'how long the object store is stopped (default 10)' },
  },
})
const { quick, db: kind, build } = options
const OUTAGE_MS = (options.outage ?? 10) * 1000
const BEFORE_MS = quick ? 6_000 : 20_000
const AFTER_MS = quick ? 8_000 : 20_000
/**
 * An answer slower than this is a hang: the store's S3 client gives up on a store that does not connect within
 * 3 s, twice (app/server/s3-storage.server.ts), and its probe pings for 1 s (server/unavailable.ts).
 */
const SLOW_MS = 10_000
/** Every kind of file request must succeed again within this of the store's return (Retry-After is 10 s). */
const RECOVERY_MS = 5_000
const BUYERS = quick ? 3 : 4
const BOOKS = 6
const COVER_BOOKS = 3

await runDrill(async () => {
  ensureBuild(build)
  const started = performance.now()
  const prepared = await prepareDrillStore('storage', kind, 0)
  const database = await openDrillDatabase(kind, prepared.where)
  let buyers: { cookie: string }[]
  let admin: { cookie: string }
  let candidates: Book[]
  try {
    const listed = await listBooks(database.db)
    // One order each, so the books share the first one's currency.
    candidates = listed
      .filter((book) => book.currency === listed[0]!.currency)
      .slice(0, BOOKS)
      .map((book) => ({ id: book.id, slug: book.slug }))
    buyers = []
    for (let index = 0; index < BUYERS; index++)
      buyers.push(
        await createBuyer(
          database.db,
          candidates.map((book) => book.id),
          { email: `drill-storage-${index}-${crypto.randomUUID().slice(0, 8)}@example.com` },
        ),
      )
    admin = await createAdmin(database.db)
  } finally {
    await database.close()
  }

  const storage = await startDrillStorage('s3')
  onExit(() => storage.stop())
  const s3 = storage.s3!
  const store = await spawnStore({ ...prepared.env, ...storage.env, PORT: String(await freePort()) })
  onExit(() => store.stop('SIGKILL'))
  await waitUntilReady(store, 120_000)

  const t0 = performance.now()
  const now = () => performance.now() - t0
  const outcomes: Outcome[] = []
  /** Each cover variant served whole, by its path: the bytes' sha256, compared with the bucket's at the end. */
  const coverBytes = new Map<string, string>()
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

  /**
   * One request, bounded in time (`SLOW_MS` and then some: a hang is seen as slow, not cut), recorded with how
   * it was answered; a file's success is checked whole by `check` (not counted in its time).
   */
  async function call(
    kind: RequestKind,
    path: string,
    init: { cookie?: string; headers?: Record<string, string>; method?: string; body?: FormData } = {},
    check?: (bytes: Uint8Array, headers: Headers) => Promise<string | null>,
  ): Promise<{ status: number; bytes: Uint8Array; headers: Headers } | null> {
    const startedMs = now()
    try {
      const response = await fetch(`${store.url}${path}`, {
        method: init.method ?? 'GET',
        body: init.body,
        redirect: 'manual',
        headers: { ...(init.cookie ? { Cookie: init.cookie } : {}), ...init.headers },
        signal: AbortSignal.timeout(SLOW_MS + 5_000),
      })
      const bytes = new Uint8Array(await response.arrayBuffer())
      const outcome: Outcome = {
        kind,
        path,
        startedMs,
        ms: now() - startedMs,
        status: response.status,
        retryAfter: response.headers.get('Retry-After'),
      }
      const fileKind = FILE_KINDS.find((file) => file === kind)
      if (fileKind && response.status === SUCCESS[fileKind] && check)
        outcome.problem = await check(bytes, response.headers)
      outcomes.push(outcome)
      return { status: response.status, bytes, headers: response.headers }
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string } }).cause?.code
      outcomes.push({
        kind,
        path,
        startedMs,
        ms: now() - startedMs,
        status: null,
        retryAfter: null,
        error: cause ?? (error as Error).message,
      })
      return null
    }
  }
  const lengthOf = (headers: Headers) => Number(headers.get('Content-Length') ?? Number.NaN)
  const download = (cookie: string, book: Book, format: 'pdf' | 'epub') =>
    call('download', `/library/${book.slug}/download.${format}`, { cookie }, (bytes, headers) =>
      wholeFileProblem(bytes, format, lengthOf(headers)),
    )

  // The books with both files (a HEAD stamps and counts nothing), and a first cover on the admin's books.
  const books: Book[] = []
  for (const book of candidates) {
    const statuses = await Promise.all(
      (['pdf', 'epub'] as const).map(
        async (format) =>
          (
            await fetch(`${store.url}/library/${book.slug}/download.${format}`, {
              method: 'HEAD',
              headers: { Cookie: buyers[0]!.cookie },
            })
          ).status,
      ),
    )
    if (statuses.every((status) => status === 200)) books.push(book)
  }
  if (books.length < COVER_BOOKS) throw new Error(`only ${books.length} books with files to download`)
  const coverBooks = books.slice(0, COVER_BOOKS)
  /** Each cover book's variants as its last successful upload made them. */
  const currentCovers = new Map<string, string[]>()
  let uploads = 0
  async function uploadCover(book: Book) {
    const png = await sharp({
      create: {
        width: 400,
        height: 600,
        channels: 3,
        background: { r: (uploads * 37) % 256, g: (uploads * 91) % 256, b: 120 + (uploads % 100) },
      },
    })
      .png()
      .toBuffer()
    uploads++
    const form = new FormData()
    form.set('cover', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'cover.png')
    const answer = await call(
      'upload',
      `/admin/books/${book.id}/cover`,
      { cookie: admin.cookie, method: 'POST', body: form, headers: { Accept: 'application/json' } },
      async (bytes) => {
        const outcome = JSON.parse(new TextDecoder().decode(bytes)) as { ok: boolean; message: string }
        return outcome.ok ? null : `answered ${JSON.stringify(outcome)}`
      },
    )
    if (answer?.status !== SUCCESS.upload) return
    // covers/<book id>-<upload's sha256, 16>-<width>.<format>, each width at most the image's (decision 012).
    const name = `${book.id}-${sha256(png).slice(0, 16)}`
    const widths = [...new Set(COVER_WIDTHS.map((width) => Math.min(width, 400)))]
    currentCovers.set(
      book.id,
      widths.flatMap((width) => COVER_FORMATS.map((format) => `/media/covers/${name}-${width}.${format}`)),
    )
  }
  async function fetchCovers(book: Book) {
    for (const path of currentCovers.get(book.id) ?? [])
      await call('cover', path, {}, async (bytes, headers) => {
        const problem = await wholeFileProblem(bytes, 'image', lengthOf(headers))
        if (!problem) coverBytes.set(path, sha256(bytes))
        return problem
      })
  }
  for (const book of coverBooks) await uploadCover(book)
  const warmUpProblems = outcomes.filter((outcome) => outcome.status !== SUCCESS.upload || outcome.problem)
  if (warmUpProblems.length > 0)
    throw new Error(`the first cover uploads failed: ${JSON.stringify(warmUpProblems)}`)
  outcomes.length = 0
  const setUpSeconds = (performance.now() - started) / 1000
  console.log(
    `drill:storage (${kind}${quick ? ', quick' : ''}): store ready on an S3 bucket in ${setUpSeconds.toFixed(1)} s; ${buyers.length} customers × ${books.length} books, ${coverBooks.length} books getting covers; load for ${BEFORE_MS / 1000} s, then the object store stops for ${OUTAGE_MS / 1000} s, then ${AFTER_MS / 1000} s more`,
  )

  // The load, until `done`: each loop waits a little between its requests, so that the machine (2 cores, the
  // store, the S3 server and this process) is busy but not saturated.
  let done = false
  const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!
  const loops = [
    ...[0, 1].map(async () => {
      while (!done) {
        await download(pick(buyers).cookie, pick(books), pick(['pdf', 'epub'] as const))
        await sleep(30)
      }
    }),
    (async () => {
      // The reader asks for the EPUB as one open range (not counted among the day's opens).
      while (!done) {
        const book = pick(books)
        await call(
          'reader',
          `/read/${book.slug}/book.epub`,
          { cookie: pick(buyers).cookie, headers: { Range: 'bytes=0-' } },
          async (bytes, headers) => {
            const size = /^bytes 0-(\d+)\/(\d+)$/.exec(headers.get('Content-Range') ?? '')
            if (!size || Number(size[1]) + 1 !== Number(size[2]))
              return `Content-Range ${headers.get('Content-Range')} is not the whole file`
            return wholeFileProblem(bytes, 'epub', Number(size[2]))
          },
        )
        await sleep(60)
      }
    })(),
    (async () => {
      for (let round = 0; !done; round++) {
        const book = coverBooks[round % coverBooks.length]!
        await uploadCover(book)
        await fetchCovers(book)
        await sleep(300)
      }
    })(),
    ...[0, 1].map(async (viewer) => {
      const cookie = viewer === 1 ? buyers[0]!.cookie : undefined
      const pages = [
        '/',
        '/AllBooks',
        ...books.map((book) => `/books/${book.slug}`),
        ...(cookie ? ['/account/library'] : []),
      ]
      for (let request = 0; !done; request++) {
        if (request % 8 === 7) await call('readyz', '/readyz')
        else await call('page', pick(pages), { cookie, headers: { Accept: 'text/html' } })
        await sleep(40)
      }
    }),
  ]

  await sleep(BEFORE_MS)
  const window: OutageWindow = { pausedAt: now(), paused: 0, resumedAt: 0 }
  await s3.pause()
  window.paused = now()
  console.log(
    `${(window.pausedAt / 1000).toFixed(1)} s: the object store stopped (load average ${loadAverage()})`,
  )
  await sleep(OUTAGE_MS - (now() - window.pausedAt))
  await s3.resume()
  window.resumedAt = now()
  console.log(
    `${(window.resumedAt / 1000).toFixed(1)} s: the object store is back (load average ${loadAverage()})`,
  )
  await sleep(AFTER_MS)
  done = true
  await Promise.all(loops)

  const verdict = judgeOutage(outcomes, window, { slowMs: SLOW_MS, recoveryMs: RECOVERY_MS })
  const problems = [...verdict.problems]
  // The bucket afterwards: every stamped copy and cover variant whole, and every cover as it was served.
  const stamped = await brokenStoredFiles(storage, '', 'stamped/')
  const covers = await brokenStoredFiles(storage, '', 'covers/')
  problems.push(...stamped.problems, ...covers.problems)
  const stored = new Map(
    (await readStoredFiles(storage, '', 'covers/')).map((file) => [`/media/${file.key}`, sha256(file.bytes)]),
  )
  let sameAsStored = 0
  for (const [path, served] of coverBytes) {
    const held = stored.get(path)
    if (held === undefined) continue // replaced by a later upload, and removed
    if (held === served) sameAsStored++
    else problems.push(`${path}: served bytes differ from the bucket's`)
  }
  const exited = store.child.exitCode !== null || store.child.signalCode !== null
  if (exited) problems.push('the store exited during the drill')

  const byKind = (counts: Record<string, number>) =>
    FILE_KINDS.map((file) => `${counts[file]} ${file === 'reader' ? 'reader EPUBs' : `${file}s`}`).join(', ')
  const seconds = (ms: number | null) => (ms === null ? 'none' : `${(ms / 1000).toFixed(2)} s`)
  const total = verdict.counts.before + verdict.counts.outage + verdict.counts.after
  console.log(`
drill:storage (${kind}, S3 bucket on s3rver${quick ? ', quick' : ''}) — ${Math.round((performance.now() - started) / 1000)} s, load average ${loadAverage()}
  outage:                        the object store stopped at ${(window.pausedAt / 1000).toFixed(1)} s for ${((window.resumedAt - window.pausedAt) / 1000).toFixed(1)} s (its port closed), the store not restarted${exited ? ' (IT EXITED)' : ''}
  requests:                      ${total} (${verdict.counts.before} before, ${verdict.counts.outage} during the outage, ${verdict.counts.after} after)
  file requests in the outage:   ${verdict.outage.files} (${byKind(verdict.outage.byKind)})
    503 with Retry-After:        ${verdict.outage.unavailable} (Retry-After: ${verdict.outage.retryAfter.join(', ') || 'none'} s); succeeded (under way as it stopped, or done after it was back): ${verdict.outage.succeeded}; slowest ${Math.round(verdict.outage.slowestMs)} ms
  pages needing no file:         ${verdict.pages.outage} during the outage, all 200: ${!verdict.problems.some((problem) => problem.includes('page needing no file'))}; p99 ${Math.round(verdict.pages.outageP99)} ms (before: ${Math.round(verdict.pages.beforeP99)} ms, after: ${Math.round(verdict.pages.afterP99)} ms), slowest ${Math.round(verdict.pages.outageSlowestMs)} ms
  recovery (no restart):         first success after the return: ${FILE_KINDS.map((file) => `${file} ${seconds(verdict.recovery.firstSuccessMs[file])}`).join(', ')}; last 503 ${verdict.recovery.lastUnavailableMs === null ? 'none after the return' : `sent ${seconds(verdict.recovery.lastUnavailableMs)} after it`} (limit ${RECOVERY_MS / 1000} s)
  files served whole:            ${verdict.whole.checked} (${byKind(verdict.whole.byKind)}); covers the same bytes as the bucket: ${sameAsStored} of ${coverBytes.size} (the rest replaced since)
  bucket afterwards, whole:      ${stamped.checked} stamped copies, ${covers.checked} cover variants
  problems:                      ${problems.length === 0 ? 'none' : problems.length}`)
  for (const problem of problems.slice(0, 30)) console.log(`    - ${problem}`)
  if (problems.length > 30) console.log(`    … and ${problems.length - 30} more`)
  if (problems.length > 0) {
    // The store's log lines of the requests that failed the rule (their path), else its last errors.
    const paths = outcomes
      .filter((outcome) => problems.some((problem) => problem.startsWith(`${outcome.kind} ${outcome.path} `)))
      .map((outcome) => `"path":"${outcome.path.split('?')[0]}"`)
    const lines = store.output().split('\n')
    const related = lines.filter((line) => paths.some((path) => line.includes(path)))
    const shown = related.length > 0 ? related : lines.filter((line) => /"level":(50|60)/.test(line))
    if (shown.length > 0) console.log(`the store's log (last 20):\n${shown.slice(-20).join('\n')}`)
  }
  return problems.length === 0
})
