import { describe, expect, test } from 'vitest'
import { issueDateIn } from './issue-date.ts'

describe('the date of issue, in the seller’s time zone', () => {
  test('a new year starts at local midnight, not at UTC’s', () => {
    const lateOnNewYearsEve = new Date('2026-12-31T23:30:00Z')
    expect(issueDateIn(lateOnNewYearsEve, 'UTC')).toEqual({ year: 2026, isoDate: '2026-12-31' })
    expect(issueDateIn(lateOnNewYearsEve, 'Europe/Berlin')).toEqual({ year: 2027, isoDate: '2027-01-01' })
    expect(issueDateIn(new Date('2027-01-01T03:00:00Z'), 'America/New_York')).toEqual({
      year: 2026,
      isoDate: '2026-12-31',
    })
  })

  test('an unknown time zone is refused, not guessed', () => {
    expect(() => issueDateIn(new Date(), 'Mars/Olympus_Mons')).toThrow(RangeError)
  })
})
