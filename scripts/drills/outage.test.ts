import { expect, test } from 'vitest'
import { judgeOutage, SUCCESS, type FileKind, type Outcome } from './outage.ts'

// The store stopped at 10 s (pause() returned at 10.05 s) and was back at 20 s.
const window = { pausedAt: 10_000, paused: 10_050, resumedAt: 20_000 }
const limits = { slowMs: 10_000, recoveryMs: 5_000 }
const kinds: FileKind[] = ['download', 'reader', 'cover', 'upload']

function file(kind: FileKind, startedMs: number, status: number, extra: Partial<Outcome> = {}): Outcome {
  return {
    kind,
    path: `/${kind}`,
    startedMs,
    ms: 40,
    status,
    retryAfter: status === 503 ? '10' : null,
    problem: status === SUCCESS[kind] ? null : undefined,
    ...extra,
  }
}
const page = (startedMs: number, status = 200, ms = 30): Outcome => ({
  kind: 'page',
  path: '/',
  startedMs,
  ms,
  status,
  retryAfter: status === 503 ? '10' : null,
})

/** A run as it should be: each kind succeeds before, meets the outage with 503s, and succeeds after. */
function goodRun(): Outcome[] {
  return [
    ...kinds.flatMap((kind) => [
      file(kind, 5_000, SUCCESS[kind]),
      file(kind, 12_000, 503),
      file(kind, 19_000, 503),
      file(kind, 20_100, 503),
      file(kind, 20_500, SUCCESS[kind]),
      file(kind, 30_000, SUCCESS[kind]),
    ]),
    page(5_000, 200, 20),
    page(12_000, 200, 80),
    page(25_000),
  ]
}

test('a run as it should be passes, with its figures', () => {
  const verdict = judgeOutage(goodRun(), window, limits)
  expect(verdict.problems).toEqual([])
  expect(verdict.counts).toEqual({ before: 5, outage: 9, after: 13 })
  expect(verdict.outage).toMatchObject({ files: 8, unavailable: 8, succeeded: 0, retryAfter: ['10'] })
  expect(verdict.pages).toMatchObject({ outage: 1, outageP99: 80, beforeP99: 20 })
  // The first success after the resume: started 500 ms after it, 40 ms long.
  expect(verdict.recovery.firstSuccessMs.download).toBe(540)
  expect(verdict.recovery.lastUnavailableMs).toBe(100)
  expect(verdict.whole.checked).toBe(12)
})

test('a request under way as the store stopped, or finishing after it was back, may succeed', () => {
  const run = [
    ...goodRun(),
    file('download', 9_990, 200, { ms: 200 }),
    file('reader', 10_020, 206),
    file('cover', 19_990, 200, { ms: 30 }),
  ]
  expect(judgeOutage(run, window, limits).problems).toEqual([])
})

test('a 500, a hang, no answer, a 503 without Retry-After or a page not 200 fail at any time', () => {
  const cases: Outcome[] = [
    file('download', 12_000, 500),
    file('reader', 12_000, 503, { ms: 12_000 }),
    file('cover', 12_000, 503, { retryAfter: null }),
    { ...file('upload', 25_000, 200), status: null, error: 'ECONNRESET' },
    page(12_000, 503),
    { ...page(15_000), kind: 'readyz', status: 503, retryAfter: '10' },
  ]
  for (const outcome of cases) {
    const problems = judgeOutage([...goodRun(), outcome], window, limits).problems
    expect(problems, JSON.stringify(outcome)).toHaveLength(1)
  }
})

test('a 503 outside the outage and its recovery, or another answer during it, fails', () => {
  for (const outcome of [
    file('download', 5_000, 503),
    file('download', 26_000, 503),
    file('cover', 12_000, 404),
    file('download', 12_000, 429),
    file('reader', 12_000, 200),
  ]) {
    const problems = judgeOutage([...goodRun(), outcome], window, limits).problems
    expect(problems, JSON.stringify(outcome)).toHaveLength(1)
  }
})

test('a half file fails, as does a run where a kind never met the outage or never came back', () => {
  const half = file('download', 30_000, 200, { problem: '1000 bytes where 2000 were announced' })
  expect(judgeOutage([...goodRun(), half], window, limits).problems).toEqual([
    expect.stringContaining('not whole: 1000 bytes where 2000 were announced'),
  ])
  const neverMet = goodRun().filter((outcome) => !(outcome.kind === 'upload' && outcome.status === 503))
  expect(judgeOutage(neverMet, window, limits).problems).toEqual([
    'no upload request met the outage (answered 503)',
  ])
  const neverBack = goodRun().filter(
    (outcome) => !(outcome.kind === 'cover' && outcome.startedMs > 20_000 && outcome.status === 200),
  )
  expect(judgeOutage(neverBack, window, limits).problems).toEqual([
    'no cover request succeeded after the store was back',
  ])
})
