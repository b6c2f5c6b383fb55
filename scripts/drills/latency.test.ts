import { describe, expect, test } from 'vitest'
import { abba, driftAgainstFresh, steadyMachine, typicalP99, type DurationsIn } from './latency.ts'
import { percentile } from './lib.ts'

/** A seeded generator (mulberry32): the same synthetic run every time. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Sample = { at: number; ms: number }

/**
 * Three minutes (or `seconds`) at 250 requests a second, latencies shaped like the soak's: most a few
 * milliseconds, a long tail. `slowdown(at)` multiplies each request's duration.
 */
function run(seed: number, slowdown: (at: number) => number = () => 1, seconds = 180): Sample[] {
  const next = random(seed)
  return Array.from({ length: seconds * 250 }, (_, i) => {
    const at = i * 4
    const ms = (2 + 3 * -Math.log(1 - next()) + (next() < 0.03 ? 30 * next() : 0)) * slowdown(at)
    return { at, ms }
  })
}

const durationsIn =
  (samples: Sample[]): DurationsIn =>
  (from, to) =>
    samples.filter((sample) => sample.at >= from && sample.at < to).map((sample) => sample.ms)

const pooledP99 = (samples: Sample[]) =>
  percentile(
    samples.map((sample) => sample.ms),
    99,
  )

describe('typicalP99', () => {
  test('two runs of the same store agree within a few percent', () => {
    const [a, b] = [run(1), run(2)]
    const ratio =
      typicalP99(durationsIn(b), 0, 180_000, 10_000).p99 / typicalP99(durationsIn(a), 0, 180_000, 10_000).p99
    expect(Math.abs(ratio - 1)).toBeLessThan(0.05)
  })

  test('a store 30 % slower is 30 % slower', () => {
    const [before, after] = [run(1), run(2, () => 1.3)]
    const ratio =
      typicalP99(durationsIn(after), 0, 180_000, 10_000).p99 /
      typicalP99(durationsIn(before), 0, 180_000, 10_000).p99
    expect(ratio).toBeGreaterThan(1.25)
    expect(ratio).toBeLessThan(1.35)
  })

  test('a stall of a few seconds moves the pooled p99 and not the typical one', () => {
    // Every request started in 3 s of the 180 (1.7 % of them) takes a hundred times longer, as in a stall of
    // the machine.
    const [steady, stalled] = [run(1), run(1, (at) => (at >= 50_000 && at < 53_000 ? 100 : 1))]
    expect(pooledP99(stalled) / pooledP99(steady)).toBeGreaterThan(1.5)
    const ratio =
      typicalP99(durationsIn(stalled), 0, 180_000, 10_000).p99 /
      typicalP99(durationsIn(steady), 0, 180_000, 10_000).p99
    expect(ratio).toBeLessThan(1.05)
  })

  test('stalls in every window are the store’s p99, and count', () => {
    // 2 % of every window's requests 20× slower: a store whose tail grew everywhere.
    const [steady, bursty] = [run(1), run(1, (at) => (at % 1_000 < 20 ? 20 : 1))]
    const ratio =
      typicalP99(durationsIn(bursty), 0, 180_000, 10_000).p99 /
      typicalP99(durationsIn(steady), 0, 180_000, 10_000).p99
    expect(ratio).toBeGreaterThan(2)
  })

  test('a stretch without requests has no p99', () => {
    expect(typicalP99(() => [], 0, 60_000, 10_000)).toEqual({ p99: 0, windows: 0, counted: 0 })
  })
})

describe('typicalP99 on a machine that slows down for minutes', () => {
  /** The load generator's CPU per request: 0.3 ms, ×1.3 in [slowFrom, slowTo), ±5 % from window to window. */
  const probe = (slowFrom: number, slowTo: number) => {
    const next = random(7)
    return (from: number) => 0.3 * (from >= slowFrom && from < slowTo ? 1.3 : 1) * (0.95 + 0.1 * next())
  }
  // Two minutes of the three on a machine a quarter slower: every request there takes twice as long.
  const slowMachine = (at: number) => (at >= 40_000 && at < 160_000 ? 2 : 1)

  test('its slow windows are left out, and the rest is the store’s p99', () => {
    const [steadyRun, slowedRun] = [run(1), run(1, slowMachine)]
    const steady = steadyMachine(probe(40_000, 160_000), 0.3, 1.15)
    expect(typicalP99(durationsIn(slowedRun), 0, 180_000, 10_000).p99).toBeGreaterThan(
      1.5 * typicalP99(durationsIn(steadyRun), 0, 180_000, 10_000).p99,
    )
    const judged = typicalP99(durationsIn(slowedRun), 0, 180_000, 10_000, steady)
    expect(judged).toMatchObject({ windows: 18, counted: 6 })
    // Six windows against eighteen: the same store within sampling noise, far from the ×1.5 above.
    const ratio = judged.p99 / typicalP99(durationsIn(steadyRun), 0, 180_000, 10_000).p99
    expect(Math.abs(ratio - 1)).toBeLessThan(0.1)
  })

  test('a store 30 % slower on a steady machine is still 30 % slower', () => {
    const steady = steadyMachine(probe(0, 0), 0.3, 1.15)
    const ratio =
      typicalP99(durationsIn(run(2, () => 1.3)), 0, 180_000, 10_000, steady).p99 /
      typicalP99(durationsIn(run(1)), 0, 180_000, 10_000, steady).p99
    expect(ratio).toBeGreaterThan(1.25)
    expect(ratio).toBeLessThan(1.35)
  })

  test('its fast windows are left out too', () => {
    // The last minute on a machine a quarter faster, every request there 30 % quicker: counted, it would hide a
    // store that got slower.
    const steady = steadyMachine((from) => (from >= 120_000 ? 0.3 / 1.3 : 0.3), 0.3, 1.15)
    const fasterEnd = run(1, (at) => (at >= 120_000 ? 0.7 : 1))
    expect(typicalP99(durationsIn(fasterEnd), 0, 180_000, 10_000, steady)).toMatchObject({
      windows: 18,
      counted: 12,
    })
  })

  test('a machine slow all along leaves nothing to judge', () => {
    const steady = steadyMachine(probe(0, 180_000), 0.3, 1.15)
    expect(typicalP99(durationsIn(run(1)), 0, 180_000, 10_000, steady)).toMatchObject({
      windows: 18,
      counted: 0,
    })
  })
})

describe('driftAgainstFresh', () => {
  /**
   * Sixteen 15-second slots at 250 requests a second, in turns (abba), on a machine that gets steadily slower
   * through them (`machine(at)` multiplies every request's duration); the soaked store's requests also take
   * `soakedFactor` times as long. The slots' p99s as the soak measures them.
   */
  function slots(seed: number, machine: (at: number) => number, soakedFactor: number) {
    const sides = abba(16)
    const samples = run(
      seed,
      (at) => machine(at) * (sides[Math.floor(at / 15_000)] === 'soaked' ? soakedFactor : 1),
      16 * 15,
    )
    return sides.map((side, slot) => ({
      side,
      p99: percentile(durationsIn(samples)(slot * 15_000, (slot + 1) * 15_000), 99),
    }))
  }
  // Over the four minutes the machine slows down by half: a first-against-last rule would read about +35 %.
  const slowingMachine = (at: number) => 1 + (0.5 * at) / 240_000
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1)

  test('takes turns: soaked, fresh, fresh, soaked, …', () => {
    expect(abba(8)).toEqual(['soaked', 'fresh', 'fresh', 'soaked', 'soaked', 'fresh', 'fresh', 'soaked'])
  })

  // A slot's p99 comes from its ~40 slowest requests: the same store reads a few percent apart from run to run,
  // well inside the 20 % the soak allows and apart from a store 30 % slower.
  test('the same store on a machine slowing down: no drift', () => {
    for (const seed of seeds)
      expect(Math.abs(driftAgainstFresh(slots(seed, slowingMachine, 1)).drift)).toBeLessThan(0.1)
  })

  test('a stall of the machine in one of the soaked store’s slots does not decide it', () => {
    const stalled = (at: number) => (at >= 5_000 && at < 8_000 ? 100 : 1)
    for (const seed of seeds)
      expect(Math.abs(driftAgainstFresh(slots(seed, stalled, 1)).drift)).toBeLessThan(0.1)
  })

  test('a soaked store 30 % slower on a machine slowing down: 30 % slower', () => {
    for (const seed of seeds) {
      const { drift } = driftAgainstFresh(slots(seed, slowingMachine, 1.3))
      expect(drift).toBeGreaterThan(0.2)
      expect(drift).toBeLessThan(0.45)
    }
  })
})
