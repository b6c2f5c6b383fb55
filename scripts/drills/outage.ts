/**
 * drill:storage's rule (storage.ts), apart from the drill so that it can be tested: what every answer must
 * have been, given when the object store stopped and came back.
 *
 * - Nothing fails outright at any time: every request is answered (not refused, cut or timed out), within
 *   `slowMs`, never a 5xx other than 503, never a 503 without Retry-After.
 * - Pages that need no file (and /readyz) answer 200 throughout.
 * - A file request (a download, the reader's EPUB, a cover, a cover upload) answers its success before the
 *   outage; started during it, 503 with Retry-After — or its success, when it was already under way as the
 *   store stopped (started before `pause()` returned) or finished after it was back; started within
 *   `recoveryMs` of the store coming back, its success or that 503; after that, its success again: the store
 *   recovered by itself. Each kind of file request met the outage at least once (the drill saw one).
 * - Every file answered with success is whole (`problem` null: its length as announced, a whole PDF, EPUB or
 *   image).
 */
import { percentile } from './lib.ts'

export const FILE_KINDS = ['download', 'reader', 'cover', 'upload'] as const
export type FileKind = (typeof FILE_KINDS)[number]
export type RequestKind = FileKind | 'page' | 'readyz'

/** What a file request answers when all is well. */
export const SUCCESS: Record<FileKind, number> = { download: 200, reader: 206, cover: 200, upload: 200 }

export type Outcome = {
  kind: RequestKind
  path: string
  /** When it was sent (ms, on the drill's clock). */
  startedMs: number
  /** How long until its whole answer arrived, or until it failed. */
  ms: number
  /** Null: no answer (refused, cut, timed out). */
  status: number | null
  retryAfter: string | null
  /** For a file answered with success: why its bytes are not a whole file, or null when they are. */
  problem?: string | null
  error?: string
}

/** On the drill's clock: `pause()` called and returned, `resume()` returned (the store answers again). */
export type OutageWindow = { pausedAt: number; paused: number; resumedAt: number }

export type Limits = { slowMs: number; recoveryMs: number }

export type Verdict = {
  problems: string[]
  counts: { before: number; outage: number; after: number }
  outage: {
    files: number
    byKind: Record<FileKind, number>
    unavailable: number
    retryAfter: string[]
    /** Successes of requests under way as it stopped, or that finished after it was back. */
    succeeded: number
    slowestMs: number
  }
  pages: { outage: number; outageP99: number; beforeP99: number; afterP99: number; outageSlowestMs: number }
  recovery: {
    /**
     * From `resume()` returning to the end of the first success of each kind started after it (how soon depends on
     * each loop's pace too: the rule is that nothing sent `recoveryMs` after it fails).
     */
    firstSuccessMs: Record<FileKind, number | null>
    /** The last 503 among requests started after `resume()`, from it (null: none). */
    lastUnavailableMs: number | null
  }
  whole: { checked: number; byKind: Record<FileKind, number> }
}

const fileKind = (kind: RequestKind): kind is FileKind => (FILE_KINDS as readonly string[]).includes(kind)
const emptyByKind = <T>(value: T) =>
  Object.fromEntries(FILE_KINDS.map((kind) => [kind, value])) as Record<FileKind, T>

export function judgeOutage(outcomes: Outcome[], window: OutageWindow, limits: Limits): Verdict {
  const problems: string[] = []
  const name = (outcome: Outcome) =>
    `${outcome.kind} ${outcome.path} at ${(outcome.startedMs / 1000).toFixed(2)} s`
  const phase = (outcome: Outcome) =>
    outcome.startedMs < window.pausedAt ? 'before' : outcome.startedMs < window.resumedAt ? 'outage' : 'after'
  const verdict: Verdict = {
    problems,
    counts: { before: 0, outage: 0, after: 0 },
    outage: { files: 0, byKind: emptyByKind(0), unavailable: 0, retryAfter: [], succeeded: 0, slowestMs: 0 },
    pages: { outage: 0, outageP99: 0, beforeP99: 0, afterP99: 0, outageSlowestMs: 0 },
    recovery: { firstSuccessMs: emptyByKind<number | null>(null), lastUnavailableMs: null },
    whole: { checked: 0, byKind: emptyByKind(0) },
  }
  const pageMs = { before: [] as number[], outage: [] as number[], after: [] as number[] }
  const retryAfter = new Set<string>()
  const metOutage = emptyByKind(0)

  for (const outcome of outcomes) {
    const when = phase(outcome)
    verdict.counts[when]++
    const endedMs = outcome.startedMs + outcome.ms
    if (outcome.status === null) {
      problems.push(
        `${name(outcome)}: no answer (${outcome.error ?? 'failed'}) after ${Math.round(outcome.ms)} ms`,
      )
      continue
    }
    if (outcome.ms > limits.slowMs)
      problems.push(`${name(outcome)}: answered ${outcome.status} after ${Math.round(outcome.ms)} ms`)
    const unavailable = outcome.status === 503
    if (unavailable && !(Number(outcome.retryAfter) > 0))
      problems.push(`${name(outcome)}: 503 without Retry-After`)
    if (outcome.status >= 500 && !unavailable) problems.push(`${name(outcome)}: answered ${outcome.status}`)

    if (!fileKind(outcome.kind)) {
      pageMs[when].push(outcome.ms)
      if (when === 'outage') {
        verdict.pages.outage++
        verdict.pages.outageSlowestMs = Math.max(verdict.pages.outageSlowestMs, outcome.ms)
      }
      if (outcome.status !== 200)
        problems.push(`${name(outcome)}: a page needing no file answered ${outcome.status}`)
      continue
    }

    const kind = outcome.kind
    const succeeded = outcome.status === SUCCESS[kind]
    if (succeeded) {
      verdict.whole.checked++
      verdict.whole.byKind[kind]++
      if (outcome.problem !== null)
        problems.push(`${name(outcome)}: not whole: ${outcome.problem ?? 'not checked'}`)
    }
    if (unavailable && endedMs >= window.pausedAt) metOutage[kind]++
    if (unavailable) retryAfter.add(outcome.retryAfter ?? '')
    // Under way when the store stopped: its success or the 503, whichever it met.
    const underWay = outcome.startedMs < window.paused && endedMs >= window.pausedAt
    const sinceResume = outcome.startedMs - window.resumedAt
    const allowed =
      succeeded ||
      (outcome.status >= 500 && !unavailable) ||
      (unavailable &&
        (underWay || when === 'outage' || (when === 'after' && sinceResume < limits.recoveryMs)))
    // (A 5xx other than 503 is reported above.)
    if (!allowed)
      problems.push(
        `${name(outcome)}: answered ${outcome.status} ${when === 'outage' ? 'during the outage' : when === 'before' ? 'before the outage' : `${Math.round(sinceResume)} ms after the store was back`} (expected ${SUCCESS[kind]}${when === 'outage' ? ' or 503' : ''})`,
      )
    if (when === 'outage') {
      verdict.outage.files++
      verdict.outage.byKind[kind]++
      verdict.outage.slowestMs = Math.max(verdict.outage.slowestMs, outcome.ms)
      if (unavailable) verdict.outage.unavailable++
      else if (succeeded) verdict.outage.succeeded++
    }
    if (when === 'after') {
      if (succeeded) {
        const first = verdict.recovery.firstSuccessMs[kind]
        const ms = endedMs - window.resumedAt
        if (first === null || ms < first) verdict.recovery.firstSuccessMs[kind] = ms
      }
      if (unavailable)
        verdict.recovery.lastUnavailableMs = Math.max(verdict.recovery.lastUnavailableMs ?? 0, sinceResume)
    }
  }

  for (const kind of FILE_KINDS) {
    if (metOutage[kind] === 0) problems.push(`no ${kind} request met the outage (answered 503)`)
    if (verdict.recovery.firstSuccessMs[kind] === null)
      problems.push(`no ${kind} request succeeded after the store was back`)
  }
  verdict.outage.retryAfter = [...retryAfter].sort()
  verdict.pages.beforeP99 = percentile(pageMs.before, 99)
  verdict.pages.outageP99 = percentile(pageMs.outage, 99)
  verdict.pages.afterP99 = percentile(pageMs.after, 99)
  return verdict
}
