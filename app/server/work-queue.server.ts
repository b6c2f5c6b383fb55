/**
 * Heavy work (resizing a cover) run at most `concurrency` at a time per process, with at most `maxWaiting`
 * jobs waiting their turn; one more is refused at once with WorkQueueFullError instead of piling up memory and
 * CPU behind the others (issue 28: two admins uploading large covers together stacked their costs). Jobs run
 * in the order they came. p-limit has no bound on its waiting list (a caller would check `pendingCount` itself,
 * this same code plus a dependency); see decision 012.
 */
export type WorkQueue = {
  /** Runs the job when its turn comes; rejects with WorkQueueFullError when too many are already waiting. */
  run<T>(job: () => Promise<T>): Promise<T>
  /** Jobs running now. */
  readonly running: number
  /** Jobs waiting their turn. */
  readonly waiting: number
}

export class WorkQueueFullError extends Error {
  override name = 'WorkQueueFullError'
}

export function createWorkQueue({
  concurrency,
  maxWaiting,
}: {
  concurrency: number
  maxWaiting: number
}): WorkQueue {
  if (!(Number.isInteger(concurrency) && concurrency >= 1))
    throw new RangeError(`concurrency must be an integer ≥ 1, not ${concurrency}`)
  if (!(Number.isInteger(maxWaiting) && maxWaiting >= 0))
    throw new RangeError(`maxWaiting must be an integer ≥ 0, not ${maxWaiting}`)
  let running = 0
  const turns: (() => void)[] = []

  function finished() {
    const next = turns.shift()
    if (next) next()
    else running -= 1
  }

  return {
    async run<T>(job: () => Promise<T>): Promise<T> {
      if (running < concurrency) running += 1
      else if (turns.length < maxWaiting) await new Promise<void>((resolve) => turns.push(resolve))
      else throw new WorkQueueFullError(`${running} jobs running and ${turns.length} waiting`)
      // The finished job's slot passes straight to the next one (running stays as it is).
      try {
        return await job()
      } finally {
        finished()
      }
    },
    get running() {
      return running
    },
    get waiting() {
      return turns.length
    },
  }
}
