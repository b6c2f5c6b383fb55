import { expect, test } from 'vitest'
import { createWorkQueue, WorkQueueFullError } from './work-queue.server.ts'

/** A job that records when it starts and ends, and ends when the test says so. */
function controlledJob(name: string, log: string[]) {
  let finish!: () => void
  const done = new Promise<void>((resolve) => (finish = resolve))
  return {
    finish: () => finish(),
    job: async () => {
      log.push(`start ${name}`)
      await done
      log.push(`end ${name}`)
      return name
    },
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

test('one at a time: the next job starts only when the previous one ended, in the order they came', async () => {
  const queue = createWorkQueue({ concurrency: 1, maxWaiting: 2 })
  const log: string[] = []
  const [a, b, c] = ['a', 'b', 'c'].map((name) => controlledJob(name, log))
  const results = [a!, b!, c!].map(({ job }) => queue.run(job))
  await tick()
  expect(log).toEqual(['start a'])
  expect({ running: queue.running, waiting: queue.waiting }).toEqual({ running: 1, waiting: 2 })
  c!.finish()
  b!.finish()
  await tick()
  expect(log).toEqual(['start a'])
  a!.finish()
  expect(await Promise.all(results)).toEqual(['a', 'b', 'c'])
  expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c'])
  expect({ running: queue.running, waiting: queue.waiting }).toEqual({ running: 0, waiting: 0 })
})

test('beyond the waiting bound a job is refused at once, and never run', async () => {
  const queue = createWorkQueue({ concurrency: 1, maxWaiting: 1 })
  const log: string[] = []
  const first = controlledJob('first', log)
  const second = controlledJob('second', log)
  const running = queue.run(first.job)
  const waiting = queue.run(second.job)
  let ranThird = false
  await expect(queue.run(async () => (ranThird = true))).rejects.toBeInstanceOf(WorkQueueFullError)
  first.finish()
  second.finish()
  await Promise.all([running, waiting])
  expect(ranThird).toBe(false)
  // Room again once the others are done.
  expect(await queue.run(async () => 'later')).toBe('later')
})

test('a job that fails passes its turn on and its error to its caller', async () => {
  const queue = createWorkQueue({ concurrency: 1, maxWaiting: 1 })
  const failing = queue.run(() => Promise.reject(new Error('damaged image')))
  const next = queue.run(async () => 'next')
  await expect(failing).rejects.toThrow('damaged image')
  expect(await next).toBe('next')
  expect(queue.running).toBe(0)
})

test('two at a time when asked', async () => {
  const queue = createWorkQueue({ concurrency: 2, maxWaiting: 0 })
  const log: string[] = []
  const [a, b] = ['a', 'b'].map((name) => controlledJob(name, log))
  const both = [queue.run(a!.job), queue.run(b!.job)]
  await tick()
  expect(log).toEqual(['start a', 'start b'])
  await expect(queue.run(async () => 'c')).rejects.toBeInstanceOf(WorkQueueFullError)
  a!.finish()
  b!.finish()
  await Promise.all(both)
})
