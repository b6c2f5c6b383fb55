/**
 * Saves where the reader is, at most once per `delayMs` of stillness: turning ten pages in a row is one save,
 * of the last one. Each position carries the time the reader was there (`at`), so the server keeps the newest
 * of two devices' writes whatever order they arrive in. `flush` sends what is waiting now (the page is being
 * left: the request is a keepalive one, which outlives the page).
 */
export function createPositionSaver<Position>(options: {
  delayMs: number
  save: (position: Position, keepalive: boolean) => Promise<void>
  onError: (error: unknown) => void
}) {
  let waiting: Position | null = null
  let timer: ReturnType<typeof setTimeout> | undefined
  const send = (keepalive: boolean) => {
    clearTimeout(timer)
    timer = undefined
    if (waiting === null) return
    const position = waiting
    waiting = null
    options.save(position, keepalive).catch(options.onError)
  }
  return {
    push(position: Position) {
      waiting = position
      clearTimeout(timer)
      timer = setTimeout(() => send(false), options.delayMs)
    },
    flush: () => send(true),
    /** Forgets what waits (the reader closed without a place worth keeping). */
    cancel() {
      clearTimeout(timer)
      waiting = null
    },
  }
}
