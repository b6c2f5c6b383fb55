import {
  type AppPasswordUser,
  basicCredentials,
  verifyAppPassword,
} from '#app/features/identity/app-passwords.server.ts'
import type { Db } from '#app/server/db/database.server.ts'
import { hitRateLimit, ipSubject, peekRateLimit, type RateLimitRule } from '#app/server/rate-limit.server.ts'

/*
 * How a reading app signs in (issue 33): HTTP Basic with the reader's email and an app password, described by
 * the OPDS Authentication 1.0 document apps discover from a 401. Wrong credentials are counted per client
 * address (and per address and email), never per account alone, so nobody can lock a reader out of their
 * library from elsewhere.
 */

export const OPDS_AUTH_PATH = '/opds/auth.json'
export const opdsAuthType = 'application/opds-authentication+json'

/** Wrong credentials a client address may send before it waits. */
export const appSignInFailures: RateLimitRule = {
  name: 'opds-sign-in-failures',
  limit: 20,
  windowMs: 15 * 60_000,
}

export type AppSignIn =
  { ok: true; user: AppPasswordUser } | { ok: false; status: 401 | 429; retryAfterSeconds?: number }

export async function signInApp(db: Db, request: Request, clientIp: string): Promise<AppSignIn> {
  const credentials = basicCredentials(request.headers.get('Authorization'))
  if (!credentials) return { ok: false, status: 401 }
  const subject = ipSubject(clientIp)
  const waiting = await peekRateLimit(db, appSignInFailures, subject)
  if (!waiting.allowed) return { ok: false, status: 429, retryAfterSeconds: waiting.retryAfterSeconds }
  const user = await verifyAppPassword(db, credentials.email, credentials.password)
  if (user) return { ok: true, user }
  const counted = await hitRateLimit(db, appSignInFailures, subject)
  return counted.allowed
    ? { ok: false, status: 401 }
    : { ok: false, status: 429, retryAfterSeconds: counted.retryAfterSeconds }
}

/** The answer to a refused sign-in: a 401 that says how to sign in (Basic, and the OPDS document), or a 429. */
export function refusedSignIn(refusal: Extract<AppSignIn, { ok: false }>, origin: string): Response {
  if (refusal.status === 429) {
    return new Response('Too many wrong app passwords from your address: try again later.', {
      status: 429,
      headers: {
        'Content-Type': 'text/plain; charset=utf-8',
        'Retry-After': String(refusal.retryAfterSeconds ?? 60),
      },
    })
  }
  return new Response(
    JSON.stringify({
      type: 'about:blank',
      title: 'Sign in with an app password',
      status: 401,
      detail:
        'Your library needs your email and an app password (HTTP Basic). Create one on your account page.',
    }),
    {
      status: 401,
      headers: {
        'Content-Type': 'application/problem+json',
        'WWW-Authenticate': 'Basic realm="CodeBook library", charset="UTF-8"',
        Link: `<${origin}${OPDS_AUTH_PATH}>; rel="http://opds-spec.org/auth/document"; type="${opdsAuthType}"`,
      },
    },
  )
}

/** OPDS Authentication 1.0: how apps learn to ask for the email and app password. */
export function authenticationDocument(origin: string) {
  return {
    id: `${origin}${OPDS_AUTH_PATH}`,
    title: 'CodeBook',
    description: 'Sign in with your email and an app password from your account page.',
    links: [
      { rel: 'logo', href: `${origin}/favicon.svg`, type: 'image/svg+xml' },
      { rel: 'help', href: `${origin}/account#app-passwords`, type: 'text/html' },
      { rel: 'register', href: `${origin}/Register`, type: 'text/html' },
    ],
    authentication: [
      {
        type: 'http://opds-spec.org/auth/basic',
        labels: { login: 'Email', password: 'App password' },
      },
    ],
  }
}
