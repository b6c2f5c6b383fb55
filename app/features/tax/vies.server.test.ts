import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startViesDouble, VIES_DOUBLE_HANGS, type ViesDouble } from '#harness/vies-double.ts'
import { cachedVatChecker, createViesChecker, type VatCheck } from './vies.server.ts'

/**
 * The real client over real HTTP, against a local server replaying the answers in tests/fixtures/vies/ (each
 * file names the number it answers).
 */
let vies: ViesDouble
beforeAll(async () => {
  vies = await startViesDouble()
})
afterAll(async () => {
  await vies?.stop()
})

/** The requests the double received while `work` ran. */
async function sentDuring(work: () => Promise<unknown>) {
  const before = vies.requests.length
  await work()
  return vies.requests.slice(before)
}

describe('VIES answers', () => {
  test('valid, with the name and address the member state shares and a consultation number', async () => {
    const checker = createViesChecker({ baseUrl: vies.url, requesterVatNumber: 'DE 111 111 125' })
    let answer: VatCheck | undefined
    const sent = await sentDuring(async () => (answer = await checker.check('AT', 'U12011204')))
    expect(answer).toEqual({
      status: 'valid',
      name: 'Beispiel Fachbuch GmbH',
      address: 'Musterstrasse 1\n1010 Wien',
      consultationNumber: 'WAPIAAAAZ4Tq9Xk2',
      checkedAt: new Date('2026-03-02T10:15:30.123Z'),
    })
    // The store names itself as the requester, which is what makes VIES give a consultation number.
    expect(sent).toEqual([
      {
        countryCode: 'AT',
        vatNumber: 'U12011204',
        requesterMemberStateCode: 'DE',
        requesterNumber: '111111125',
      },
    ])
  })

  test("valid, the name and address withheld ('---') and no requester: nulls", async () => {
    const checker = createViesChecker({ baseUrl: vies.url })
    const sent = await sentDuring(async () =>
      expect(await checker.check('DE', '111111125')).toEqual({
        status: 'valid',
        name: null,
        address: null,
        consultationNumber: null,
        checkedAt: new Date('2026-03-02T10:16:02.481Z'),
      }),
    )
    expect(sent).toEqual([{ countryCode: 'DE', vatNumber: '111111125' }])
  })

  test('invalid: not registered for trade between member states', async () => {
    const checker = createViesChecker({ baseUrl: vies.url })
    expect(await checker.check('FR', '40303265045')).toEqual({
      status: 'invalid',
      checkedAt: new Date('2026-03-02T10:17:44.009Z'),
    })
  })

  test.each([
    ['the member state’s service is down', 'IT', '00000010215', 'MS_UNAVAILABLE'],
    ['the member state did not answer VIES in time (an error body on a 500)', 'ES', 'B12398087', 'TIMEOUT'],
    ['VIES refused the input, which says nothing of the registration', 'BE', '0411905847', 'INVALID_INPUT'],
    ['a 500 with an HTML page', 'NL', '010000446B01', 'HTTP 500'],
    ['a body cut short', 'IE', '8Z49289F', 'malformed answer: not JSON'],
    ['JSON of another shape ("valid": "true")', 'CY', '10000314J', 'malformed answer: valid'],
  ])('unavailable, not thrown: %s', async (_case, countryCode, number, reason) => {
    const checker = createViesChecker({ baseUrl: vies.url })
    expect(await checker.check(countryCode, number)).toEqual({ status: 'unavailable', reason })
  })

  test('no answer within the timeout: unavailable, in about that time', async () => {
    const checker = createViesChecker({ baseUrl: vies.url, timeoutMs: 200 })
    const started = performance.now()
    const answer = await checker.check(VIES_DOUBLE_HANGS.countryCode, VIES_DOUBLE_HANGS.vatNumber)
    expect(answer).toEqual({ status: 'unavailable', reason: 'no answer within 200 ms' })
    expect(performance.now() - started).toBeLessThan(2000)
  })

  test('nothing listening: unavailable', async () => {
    const gone = await startViesDouble()
    await gone.stop()
    const checker = createViesChecker({ baseUrl: gone.url })
    expect(await checker.check('DE', '111111125')).toEqual({
      status: 'unavailable',
      reason: 'network error: ECONNREFUSED',
    })
  })

  test('the caller giving up rejects with its reason, rather than passing for an outage', async () => {
    const checker = createViesChecker({ baseUrl: vies.url, timeoutMs: 5000 })
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('the buyer left')), 50)
    await expect(
      checker.check(VIES_DOUBLE_HANGS.countryCode, VIES_DOUBLE_HANGS.vatNumber, {
        signal: controller.signal,
      }),
    ).rejects.toThrow('the buyer left')
  })

  test('a requester VAT number that is not a valid EU one stops the store at start-up', () => {
    expect(() => createViesChecker({ requesterVatNumber: 'DE111111126' })).toThrow(/check digits/)
    expect(() => createViesChecker({ requesterVatNumber: 'GB000472631' })).toThrow(/EU member states/)
  })
})

describe('the cache', () => {
  const viesChecker = () => createViesChecker({ baseUrl: vies.url, timeoutMs: 200 })

  test('a yes or a no is asked once, and kept as it was checked', async () => {
    const checker = cachedVatChecker(viesChecker())
    const first = await checker.check('AT', 'U12011204')
    const sent = await sentDuring(async () => {
      expect(await checker.check('AT', 'U12011204')).toEqual(first)
      expect((await checker.check('FR', '40303265045')).status).toBe('invalid')
      expect((await checker.check('FR', '40303265045')).status).toBe('invalid')
    })
    expect(sent).toEqual([{ countryCode: 'FR', vatNumber: '40303265045' }])
  })

  test('unavailable is never kept: the next checkout asks again', async () => {
    const checker = cachedVatChecker(viesChecker())
    const sent = await sentDuring(async () => {
      expect((await checker.check('IT', '00000010215')).status).toBe('unavailable')
      expect((await checker.check(VIES_DOUBLE_HANGS.countryCode, VIES_DOUBLE_HANGS.vatNumber)).status).toBe(
        'unavailable',
      )
      expect((await checker.check('IT', '00000010215')).status).toBe('unavailable')
      expect((await checker.check(VIES_DOUBLE_HANGS.countryCode, VIES_DOUBLE_HANGS.vatNumber)).status).toBe(
        'unavailable',
      )
    })
    expect(sent.map((request) => request.countryCode)).toEqual(['IT', 'EL', 'IT', 'EL'])
  })

  test('an answer is asked again once its time is up', async () => {
    const checker = cachedVatChecker(viesChecker(), { ttlMs: 50 })
    const sent = await sentDuring(async () => {
      await checker.check('DE', '111111125')
      await checker.check('DE', '111111125')
      await new Promise((resolve) => setTimeout(resolve, 100))
      await checker.check('DE', '111111125')
    })
    expect(sent).toHaveLength(2)
  })

  test('bounded: beyond `max` numbers, the least recently used is asked again', async () => {
    const checker = cachedVatChecker(viesChecker(), { max: 1 })
    const sent = await sentDuring(async () => {
      await checker.check('DE', '111111125')
      await checker.check('FR', '40303265045')
      await checker.check('DE', '111111125')
    })
    expect(sent.map((request) => request.countryCode)).toEqual(['DE', 'FR', 'DE'])
  })
})
