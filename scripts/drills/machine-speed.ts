/**
 * How fast this machine runs right now, seen from the soak drill's own process (soak.ts): its CPU time per
 * request it sends. The machine's two cores are shared, and for a minute or two at a time the same work costs
 * every process on it about a quarter more CPU time (one PostgreSQL soak's minutes 9–10: the store 1.62 → 2.04
 * ms a request, PostgreSQL 0.50 → 0.62, this process 0.31 → 0.42, all back at the next run's start;
 * docs/measurements/022-soak.md). The load generator's work per request is fixed: it sends the same mix
 * whatever the store does, and reads the answers without decompressing them. Measured in CPU time, not the
 * clock: waiting for a core held by the store or PostgreSQL is not counted, so a store that costs more does not
 * read as a slower machine (a process burning half a core beside a soak left this figure where it was:
 * 0.34–0.48 ms against 0.32–0.49 without it).
 *
 * Tried first and not kept: compressing a fixed page with gzip every 500 ms rose only 6–18 % in those minutes
 * (it runs from the core's cache; the store's, PostgreSQL's and this process's work is network and memory).
 */
export type MachineMeter = {
  /** This process's CPU ms per request answered in [from, to) of `performance.now()`; undefined if none. */
  cpuPerRequest(from: number, to: number): number | undefined
  stop(): void
}

export function startMachineMeter(answered: () => number, everyMs = 500): MachineMeter {
  const at: number[] = []
  const cpuMs: number[] = []
  const requests: number[] = []
  const read = () => {
    const used = process.cpuUsage()
    at.push(performance.now())
    cpuMs.push((used.user + used.system) / 1000)
    requests.push(answered())
  }
  read()
  const timer = setInterval(read, everyMs)
  timer.unref()
  return {
    cpuPerRequest(from, to) {
      const first = at.findIndex((time) => time >= from)
      const last = at.findLastIndex((time) => time < to)
      if (first < 0 || last <= first || requests[last]! === requests[first]!) return undefined
      return (cpuMs[last]! - cpuMs[first]!) / (requests[last]! - requests[first]!)
    },
    stop: () => clearInterval(timer),
  }
}
