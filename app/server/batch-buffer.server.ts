import type { Logger } from './logger.server.ts'

/** Items pushed from request handlers, written later in batches; pushing never waits and never throws. */
export type BatchBuffer<T> = {
  push(item: T): void
  /** Writes everything queued so far (tests; the timer does it otherwise). */
  flush(): Promise<void>
  /** Stops the timer and writes what is left (graceful shutdown). */
  stop(): Promise<void>
}

/**
 * An in-process queue written by `write` at most every `intervalMs`, or as soon as `maxBatch` items wait.
 * A batch that fails is logged and dropped: these are statistics, and a request must never wait for them or
 * fail because of them. Past `maxQueued` (the database down for long) new items are dropped, counted in
 * the log, so memory stays bounded.
 */
export function createBatchBuffer<T>(options: {
  write: (items: T[]) => Promise<void>
  logger: Logger
  /** What the items are, for the log. */
  what: string
  maxBatch?: number
  intervalMs?: number
  maxQueued?: number
}): BatchBuffer<T> {
  const { write, logger, what, maxBatch = 500, intervalMs = 1_000, maxQueued = 50_000 } = options
  let queue: T[] = []
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()
  let dropped = 0
  let stopped = false

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer)
    timer = undefined
    running = running.then(async () => {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch)
        queue = queue.slice(batch.length)
        try {
          await write(batch)
        } catch (error) {
          logger.error({ err: error, count: batch.length }, `could not write ${what}; dropped`)
        }
      }
      if (dropped > 0) {
        logger.warn({ dropped }, `${what} dropped: too many waiting to be written`)
        dropped = 0
      }
    })
    return running
  }

  return {
    push(item) {
      if (queue.length >= maxQueued) {
        dropped++
        return
      }
      queue.push(item)
      if (stopped) return
      if (queue.length >= maxBatch) void flush()
      else timer ??= setTimeout(() => void flush(), intervalMs).unref()
    },
    flush,
    async stop() {
      stopped = true
      await flush()
    },
  }
}
