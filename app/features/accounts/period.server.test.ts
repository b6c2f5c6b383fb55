import { describe, expect, test } from 'vitest'
import { dayIn, periodForm, resolvePeriod } from './period.server.ts'

const resolve = (query: string, today = '2026-03-15') =>
  resolvePeriod(periodForm(new URLSearchParams(query), today), 'UTC')

describe('resolvePeriod', () => {
  test('a month, a quarter and a year are their calendar days, leap days included', () => {
    expect(resolve('period=month&month=2024-02')).toMatchObject({
      ok: true,
      period: { from: '2024-02-01', to: '2024-02-29', label: 'February 2024', slug: '2024-02' },
    })
    expect(resolve('period=quarter&quarter=2025-Q4')).toMatchObject({
      ok: true,
      period: { from: '2025-10-01', to: '2025-12-31', label: 'Q4 2025', slug: '2025-Q4' },
    })
    expect(resolve('period=year&year=2025')).toMatchObject({
      ok: true,
      period: { from: '2025-01-01', to: '2025-12-31', label: '2025' },
    })
  })

  test('no period is this month; only the chosen kind’s field is read', () => {
    expect(resolve('')).toMatchObject({
      ok: true,
      period: { kind: 'month', from: '2026-03-01', to: '2026-03-31' },
    })
    expect(resolve('period=year&year=2024&month=nonsense&from=x')).toMatchObject({ ok: true })
  })

  test('a custom period of up to five years; longer, reversed or unreal ones are refused beside their field', () => {
    expect(resolve('period=custom&from=2024-02-29&to=2029-02-28')).toMatchObject({ ok: true })
    expect(resolve('period=custom&from=2024-02-29&to=2029-03-01')).toEqual({
      ok: false,
      errors: { to: 'Choose a period of at most 5 years.' },
    })
    expect(resolve('period=custom&from=2025-01-02&to=2025-01-01')).toMatchObject({
      ok: false,
      errors: { to: expect.any(String) },
    })
    expect(resolve('period=custom&from=2025-02-29&to=2025-03-01')).toMatchObject({
      ok: false,
      errors: { from: 'That day does not exist.' },
    })
    expect(resolve('period=custom&from=9999-12-31&to=9999-12-31')).toMatchObject({
      ok: false,
      errors: { from: 'Choose a year from 2000 to 2999.', to: 'Choose a year from 2000 to 2999.' },
    })
  })
})

test('dayIn: a moment’s calendar day in a time zone', () => {
  const moment = new Date('2025-12-31T23:30:00Z')
  expect(dayIn(moment, 'UTC')).toBe('2025-12-31')
  expect(dayIn(moment, 'Europe/Berlin')).toBe('2026-01-01')
})
