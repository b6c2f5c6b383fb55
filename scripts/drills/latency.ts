/**
 * How the soak drill (soak.ts) judges latency drift: its rule on its own, so that a test can show it catches a
 * store that slows down and is not decided by one bad moment of a shared machine.
 */
import { percentile } from './lib.ts'

/** The durations (ms) of the requests that started in [from, to) ms of the run, in any order. */
export type DurationsIn = (from: number, to: number) => number[]

export type TypicalP99 = {
  /** The median of the counted windows' p99s (ms); 0 when no window was counted. */
  p99: number
  /** Windows with requests in the stretch. */
  windows: number
  /** Of those, the windows counted: the machine ran at its usual speed. */
  counted: number
}

/**
 * The p99 latency typical of a stretch of the run: the median of the p99s of its `windowMs`-long windows,
 * counting only the windows in which `steady(from, to)` says the machine ran at its usual speed.
 *
 * Why not the stretch's requests pooled: on a 2-core machine shared with the database, the load generator and
 * other tenants, the slowest 1 % of a stretch come in bursts (dozens of requests slow together for a few
 * hundred milliseconds, of every kind, cached pages included), a few a minute; one stall of the whole machine
 * put a minute's p99 at 894 ms against 40–80 ms for its neighbours (docs/measurements/022-soak.md). Pooled, a
 * third's p99 is decided by its few worst bursts. The median over windows is the p99 most of the stretch had: a
 * store that gets slower moves every window's p99, and so the median; one stalled window does not.
 *
 * Why `steady`: the machine also slows down for minutes at a time, every process on it alike, and two such
 * minutes in a third of three move its median. A window in which a fixed piece of work (machine-speed.ts) cost
 * clearly more (or less) than usual says nothing about the store, and is left out; the caller decides what too few
 * counted windows mean.
 */
export function typicalP99(
  durationsIn: DurationsIn,
  from: number,
  to: number,
  windowMs: number,
  steady: (from: number, to: number) => boolean = () => true,
): TypicalP99 {
  const p99s: number[] = []
  let windows = 0
  for (let start = from; start < to; start += windowMs) {
    const end = Math.min(to, start + windowMs)
    const durations = durationsIn(start, end)
    if (durations.length === 0) continue
    windows++
    if (steady(start, end)) p99s.push(percentile(durations, 99))
  }
  return { p99: p99s.length > 0 ? percentile(p99s, 50) : 0, windows, counted: p99s.length }
}

/**
 * Whether the machine ran at its usual speed in a window: what a fixed piece of work cost in it (the load
 * generator's CPU per request, machine-speed.ts) is within `limit` × `usual` either way. Faster windows are left
 * out too: a third that ran on a faster machine would hide a store that got slower. A window without a reading
 * counts as steady.
 */
export function steadyMachine(
  costIn: (from: number, to: number) => number | undefined,
  usual: number,
  limit: number,
): (from: number, to: number) => boolean {
  return (from, to) => {
    const cost = costIn(from, to)
    return cost === undefined || (cost <= usual * limit && cost >= usual / limit)
  }
}

/** The two stores the soak's control compares: the one soaked for the whole run, and a fresh one. */
export type Side = 'soaked' | 'fresh'

/**
 * Which store each of `slots` consecutive slots loads: soaked, fresh, fresh, soaked, soaked, fresh, … (ABBA).
 * A machine whose speed drifts steadily across the slots weighs on both stores alike, which alternating
 * (ABAB) does not quite: there the second store of every pair always runs a little later.
 */
export function abba(slots: number): Side[] {
  return Array.from({ length: slots }, (_, slot) => ((slot + 1) % 4 < 2 ? 'soaked' : 'fresh'))
}

/**
 * How much slower the soaked store's p99 is than a fresh store's, measured in turns on the same machine: the
 * typical p99 of the soaked store's slots over the fresh store's, minus one. The machine's speed then cancels
 * out (both stores ran in the same minutes); what is left is what the soak did to the store: the data it added,
 * the memory and the caches its process grew.
 *
 * A side's typical p99 is the mean of its slots' p99s without the highest and the lowest: a stall of the machine
 * in one slot is dropped, as the median would drop it, at half the median's noise. A slot's p99 comes from its
 * few dozen slowest requests; in 60 synthetic runs of 16 slots shaped as latency.test.ts's (the machine slowing
 * by half through them), the same store read −7 to +9 % against itself with this mean, −13 to +15 % with the
 * median, and a store 30 % slower +21 to +41 %.
 */
export function driftAgainstFresh(slots: { side: Side; p99: number }[]): {
  soaked: number
  fresh: number
  drift: number
} {
  const typicalOf = (side: Side) => {
    const p99s = slots
      .filter((slot) => slot.side === side)
      .map((slot) => slot.p99)
      .sort((a, b) => a - b)
    const kept = p99s.length > 2 ? p99s.slice(1, -1) : p99s
    return kept.reduce((sum, p99) => sum + p99, 0) / Math.max(1, kept.length)
  }
  const [soaked, fresh] = [typicalOf('soaked'), typicalOf('fresh')]
  return { soaked, fresh, drift: soaked / fresh - 1 }
}
