/**
 * Whether a VAT number is registered for trade between member states, asked of the EU's VIES service (issue
 * 31; decision 036). Only a 'valid' answer gives reverse charge. Anything short of a yes or a no from VIES —
 * a member state's service down, VIES busy, a timeout, a network error, a 5xx, an answer that does not parse —
 * is 'unavailable', never thrown: the checkout then charges VAT and says why.
 *
 * What could not be checked against the live service (no network where this was written): the shapes below
 * follow the REST API's published OpenAPI (CheckVatResponse, CommonResponse) and client libraries. They
 * disagree on the HTTP status that comes with an error body (200 and 4xx/5xx are both reported), so an error
 * body is read whatever the status. `requestIdentifier`, the consultation number, comes only when the request
 * names a requester.
 */
import { LRUCache } from 'lru-cache'
import { z } from 'zod'
import { parseVatNumber } from './vat-number.ts'

export type VatCheck =
  | {
      status: 'valid'
      /** The trader's name and address as the member state gives them; null when it does not share them. */
      name: string | null
      address: string | null
      /** VIES's consultation number, the evidence of this check; only when a requester was named. */
      consultationNumber: string | null
      checkedAt: Date
    }
  | { status: 'invalid'; checkedAt: Date }
  /** No answer about the number; `reason` is for the log (a VIES error code, `HTTP 500`, a timeout…). */
  | { status: 'unavailable'; reason: string }

export type VatNumberChecker = {
  /**
   * `countryCode` is the VAT prefix ('EL' for Greece, 'XI') and `number` what follows it, as `parseVatNumber`
   * gives them. Rejects only when the caller's `signal` aborts.
   */
  check(countryCode: string, number: string, options?: { signal?: AbortSignal }): Promise<VatCheck>
}

export const VIES_REST_API = 'https://ec.europa.eu/taxation_customs/vies/rest-api'

export type ViesCheckerOptions = {
  baseUrl?: string
  /** How long to wait for the whole answer; VIES waits on the member state's own service. */
  timeoutMs?: number
  /**
   * The store's own VAT number ('DE123456789'). When given, VIES answers with a consultation number, which
   * proves to a tax authority that the check was made.
   */
  requesterVatNumber?: string
}

/** A member state's answer; every field is optional in the OpenAPI, so only `valid` is required here. */
const ViesAnswerSchema = z.object({
  valid: z.boolean(),
  name: z.string().nullish(),
  address: z.string().nullish(),
  requestDate: z.string().nullish(),
  requestIdentifier: z.string().nullish(),
})

/** `{ "actionSucceed": false, "errorWrappers": [{ "error": "MS_UNAVAILABLE" }] }` and the like. */
const ViesFailureSchema = z.object({
  actionSucceed: z.literal(false),
  errorWrappers: z.array(z.object({ error: z.string() })).nullish(),
})

/** The VIES REST API's check. Throws at once for a `requesterVatNumber` that is not a valid EU VAT number. */
export function createViesChecker({
  baseUrl = VIES_REST_API,
  timeoutMs = 5000,
  requesterVatNumber,
}: ViesCheckerOptions = {}): VatNumberChecker {
  const requester = requesterVatNumber === undefined ? undefined : parseVatNumber(requesterVatNumber)
  if (requester && !requester.ok) {
    throw new Error(`The requester VAT number "${requesterVatNumber}" is not usable: ${requester.message}`)
  }
  const url = `${baseUrl.replace(/\/+$/, '')}/check-vat-number`

  return {
    async check(countryCode, number, options = {}) {
      const body = {
        countryCode,
        vatNumber: number,
        ...(requester?.ok && {
          requesterMemberStateCode: requester.countryCode,
          requesterNumber: requester.number,
        }),
      }
      const timeout = AbortSignal.timeout(timeoutMs)
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
      let status: number
      let text: string
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
          signal,
        })
        status = response.status
        text = await response.text()
      } catch (error) {
        // The caller gave up (the buyer left): theirs to handle, not an outage.
        options.signal?.throwIfAborted()
        if (timeout.aborted) return unavailable(`no answer within ${timeoutMs} ms`)
        return unavailable(`network error: ${describeError(error)}`)
      }
      return readAnswer(status, text)
    },
  }
}

function readAnswer(status: number, text: string): VatCheck {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return unavailable(status >= 300 ? `HTTP ${status}` : 'malformed answer: not JSON')
  }
  const failure = ViesFailureSchema.safeParse(json)
  if (failure.success) {
    // INVALID_INPUT lands here too: the format was checked before asking, so VIES refusing it says nothing
    // about the registration (or is a mistake of ours to find in the log), and it is not kept.
    const codes = (failure.data.errorWrappers ?? []).map((wrapper) => wrapper.error)
    return unavailable(codes.length > 0 ? codes.join(', ') : `HTTP ${status}`)
  }
  if (status < 200 || status >= 300) return unavailable(`HTTP ${status}`)
  const answer = ViesAnswerSchema.safeParse(json)
  if (!answer.success) {
    return unavailable(
      `malformed answer: ${answer.error.issues.map((issue) => issue.path.join('.')).join(', ')}`,
    )
  }
  const checkedAt = timeOf(answer.data.requestDate)
  if (!answer.data.valid) return { status: 'invalid', checkedAt }
  return {
    status: 'valid',
    name: shared(answer.data.name),
    address: shared(answer.data.address),
    consultationNumber: shared(answer.data.requestIdentifier),
    checkedAt,
  }
}

/** VIES's own time of the check when it gives a date and time, else ours (a bare date would say midnight). */
function timeOf(requestDate: string | null | undefined): Date {
  const time = requestDate?.includes('T') ? Date.parse(requestDate) : NaN
  return Number.isNaN(time) ? new Date() : new Date(time)
}

/** A member state that does not share a field answers '---'. */
function shared(value: string | null | undefined): string | null {
  const trimmed = value?.trim()
  return trimmed && trimmed !== '---' ? trimmed : null
}

function unavailable(reason: string): VatCheck {
  return { status: 'unavailable', reason }
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause
  if (typeof cause?.code === 'string') return cause.code
  return error instanceof Error ? error.message : String(error)
}

export type CachedVatCheckerOptions = {
  /** How long a yes or a no is kept (24 h by default): registrations change rarely, VIES is slow and busy. */
  ttlMs?: number
  /** How many numbers are kept at most (10,000 by default), the least recently used going first. */
  max?: number
}

/**
 * Remembers VIES's yes and no per number, so that a buyer who comes back to the checkout is not asked about
 * again. 'unavailable' is never kept: the next checkout asks again. A kept answer keeps its `checkedAt` and
 * consultation number: the evidence is of the check that was made.
 */
export function cachedVatChecker(
  inner: VatNumberChecker,
  { ttlMs = 24 * 60 * 60 * 1000, max = 10_000 }: CachedVatCheckerOptions = {},
): VatNumberChecker {
  const answers = new LRUCache<string, VatCheck>({ max, ttl: ttlMs })
  return {
    async check(countryCode, number, options) {
      const key = `${countryCode}:${number}`
      const known = answers.get(key)
      if (known) return known
      const answer = await inner.check(countryCode, number, options)
      if (answer.status !== 'unavailable') answers.set(key, answer)
      return answer
    },
  }
}
