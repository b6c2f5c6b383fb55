import { describe, expect, test } from 'vitest'
import { resolveRange } from './range.ts'

const today = '2025-06-30'
const resolve = (query: string) => resolveRange(new URLSearchParams(query), today)

describe('resolveRange', () => {
  test('a preset ends today and is compared with the days just before', () => {
    expect(resolve('range=7')).toEqual({
      ok: true,
      range: {
        choice: '7',
        from: '2025-06-24',
        to: today,
        days: 7,
        previous: { from: '2025-06-17', to: '2025-06-23', days: 7 },
      },
    })
    expect(resolve('')).toMatchObject({ ok: true, range: { choice: '30', days: 30 } })
  })

  test('each field with a problem gets its first message, and no other field is named', () => {
    expect(resolve('range=custom')).toStrictEqual({
      ok: false,
      errors: { from: 'Enter the first day.', to: 'Enter the last day.' },
    })
    expect(resolve('range=custom&from=2025-02-30&to=2025-03-01')).toStrictEqual({
      ok: false,
      errors: { from: 'That day does not exist.' },
    })
    expect(resolve('range=custom&from=2025-06-10&to=2025-06-01')).toStrictEqual({
      ok: false,
      errors: { to: 'The last day must not be before the first.' },
    })
    expect(resolve('range=12')).toStrictEqual({
      ok: false,
      errors: { range: 'Choose 7, 30 or 90 days, or a custom range.' },
    })
  })

  test('a custom range ends by today and spans at most a year and a day', () => {
    expect(resolve('range=custom&from=2025-06-01&to=2025-07-01')).toStrictEqual({
      ok: false,
      errors: { to: 'The last day cannot be after today (2025-06-30, UTC).' },
    })
    expect(resolve('range=custom&from=2024-01-01&to=2025-06-01')).toStrictEqual({
      ok: false,
      errors: { from: 'Choose at most 366 days.' },
    })
  })
})
