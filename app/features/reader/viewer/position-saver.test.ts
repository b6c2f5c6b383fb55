import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { createPositionSaver } from './position-saver.ts'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

test('pages turned in a row are saved once, the last one, a second after the reader stops', async () => {
  const saved: [string, boolean][] = []
  const saver = createPositionSaver<string>({
    delayMs: 1000,
    save: async (position, keepalive) => void saved.push([position, keepalive]),
    onError: () => {},
  })
  saver.push('page 1')
  await vi.advanceTimersByTimeAsync(600)
  saver.push('page 2')
  await vi.advanceTimersByTimeAsync(600)
  saver.push('page 3')
  expect(saved).toEqual([])
  await vi.advanceTimersByTimeAsync(1000)
  expect(saved).toEqual([['page 3', false]])
  await vi.advanceTimersByTimeAsync(5000)
  expect(saved).toHaveLength(1)
})

test('leaving the page sends what waits at once, as a keepalive request; nothing twice', async () => {
  const saved: [string, boolean][] = []
  const saver = createPositionSaver<string>({
    delayMs: 1000,
    save: async (position, keepalive) => void saved.push([position, keepalive]),
    onError: () => {},
  })
  saver.push('page 7')
  saver.flush()
  expect(saved).toEqual([['page 7', true]])
  saver.flush()
  await vi.advanceTimersByTimeAsync(2000)
  expect(saved).toHaveLength(1)
})

test('a failed save is reported, not swallowed', async () => {
  const errors: unknown[] = []
  const saver = createPositionSaver<string>({
    delayMs: 10,
    save: () => Promise.reject(new Error('503')),
    onError: (error) => errors.push(error),
  })
  saver.push('page 2')
  await vi.advanceTimersByTimeAsync(20)
  expect(errors).toHaveLength(1)
})
