/**
 * PostgreSQL rolls back one of two transactions that wait on each other (deadlock_detected, 40P01) or whose
 * serializable reads conflicted (serialization_failure, 40001), and says to run it again: nothing of it was
 * written. Found by the fuzz drill: an admin's save 500'd once in 10,000 under concurrent requests
 * (decision 022).
 */
const RETRYABLE_CODES = new Set(['40P01', '40001'])

/** True when the error (or one it wraps, as Drizzle does) is PostgreSQL asking for the transaction again. */
export function isRetryableConflict(error: unknown): boolean {
  for (let cause = error; cause; cause = (cause as { cause?: unknown }).cause)
    if (RETRYABLE_CODES.has(String((cause as { code?: unknown }).code))) return true
  return false
}

/**
 * Runs a whole transaction (`work` must start it, so a retry starts afresh) and runs it again, up to
 * `attempts` times in all, when PostgreSQL rolled it back for a deadlock or a serialization conflict.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error
      // A little random wait, so that the two transactions do not meet again in the same step.
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt))
    }
  }
}
