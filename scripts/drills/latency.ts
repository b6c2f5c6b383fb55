/**
 * How the soak drill (soak.ts) judges latency drift: its rule on its own, so that a test can show it catches a
 * store that slows down and is not decided by one bad moment of a shared machine.
 */
import { percentile } from './lib.ts'

/** The durations (ms) of the requests that started in [from, to) ms of the run, in any order. */
export type DurationsIn = (from: number, to: number) => number[]

/**
 * The p99 latency typical of a stretch of the run: the median of the p99s of its `windowMs`-long windows.
 *
 * Why not the stretch's requests pooled: on a 2-core machine shared with the database, the load generator and
 * other tenants, the slowest 1 % of a stretch come in bursts (dozens of requests slow together for a few
 * hundred milliseconds, of every kind, cached pages included), a few a minute; one stall of the whole machine
 * put a minute's p99 at 894 ms against 40–80 ms for its neighbours (docs/decisions/022). Pooled, a third's p99
 * is decided by its few worst bursts. The median over windows is the p99 most of the stretch had: a store
 * that gets slower moves every window's p99, and so the median; one stalled window does not.
 */
export function typicalP99(durationsIn: DurationsIn, from: number, to: number, windowMs: number): number {
  const p99s: number[] = []
  for (let start = from; start < to; start += windowMs) {
    const durations = durationsIn(start, Math.min(to, start + windowMs))
    if (durations.length > 0) p99s.push(percentile(durations, 99))
  }
  return percentile(p99s, 50)
}
