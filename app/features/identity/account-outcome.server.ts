import { data, type RouterContextProvider } from 'react-router'
import { getAppContext, type AppContext } from '#app/server/context.server.ts'
import {
  hitRateLimit,
  ipSubject,
  tooManyAttemptsMessage,
  type RateLimitRule,
} from '#app/server/rate-limit.server.ts'
import { AUTH_POSTS_PER_IP } from './account.server.ts'
import type { AccountFormData } from './account-forms.ts'
import { identityMessages } from './credentials.ts'

/** A loader's or action's arguments: the request and React Router's context, where the app's services are. */
export type Visit = { request: Request; context: Readonly<RouterContextProvider> }

/** What an account action comes to: done (with cookies to set), or refused with its status and messages. */
export type AccountOutcome =
  | { ok: true; notice?: string; setCookies?: string[] }
  | ({ ok: false; status: 400 | 409 | 429 | 503; retryAfterSeconds?: number } & Pick<
      AccountFormData,
      'fieldErrors' | 'formError'
    >)

export type Refusal = Extract<AccountOutcome, { ok: false }>

export function tooMany(retryAfterSeconds: number): Refusal {
  return { ok: false, status: 429, formError: tooManyAttemptsMessage(retryAfterSeconds), retryAfterSeconds }
}

/** Counts a hit on each rule (in order) and refuses at the first one used up. */
export async function limit(
  app: AppContext,
  rules: Array<[RateLimitRule, string]>,
): Promise<Refusal | undefined> {
  for (const [rule, subject] of [[AUTH_POSTS_PER_IP, ipSubject(app.clientIp)] as const, ...rules]) {
    const state = await hitRateLimit(app.db, rule, subject)
    if (!state.allowed) return tooMany(state.retryAfterSeconds)
  }
  return undefined
}

/** A failure of the database or of Better Auth: the visitor is told nothing changed; the operator, why. */
export async function orServiceDown(
  visit: Visit,
  what: string,
  attempt: () => Promise<AccountOutcome>,
): Promise<AccountOutcome> {
  try {
    return await attempt()
  } catch (error) {
    getAppContext(visit.context).logger.error({ err: error }, `${what} failed`)
    return { ok: false, status: 503, formError: identityMessages.serviceDown }
  }
}

/** A refused form: the page again with its messages, its status and any Retry-After. */
export function refused(outcome: Refusal, extra: Pick<AccountFormData, 'intent' | 'email'> = {}) {
  const body: AccountFormData = { ...extra, fieldErrors: outcome.fieldErrors, formError: outcome.formError }
  const headers = outcome.retryAfterSeconds ? { 'Retry-After': String(outcome.retryAfterSeconds) } : undefined
  return data(body, { status: outcome.status, headers })
}
