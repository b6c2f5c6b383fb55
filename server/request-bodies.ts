import type { RequestHandler } from 'express'
import type { ServerBuild } from 'react-router'
import { z } from 'zod'
import { refuse, SAFE_METHODS } from './refuse.ts'
import { routeMatcher } from './route-template.ts'

/** Every form the store shows is a few hundred bytes. */
const FORM_BODY_LIMIT = 64 * 1024
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data']

/**
 * What a route takes beyond an ordinary form, declared in its module beside its action, e.g.
 * `export const handle = { requestBody: { maxBytes: 1024 * 1024, anyContentType: true } }`:
 * - `maxBytes`: the largest body it reads;
 * - `anyContentType`: it reads other bodies than forms (Stripe's JSON events);
 * - `tooLarge`: the message for a body over `maxBytes`, when the route has a better one than the size.
 */
const RequestBodySchema = z.strictObject({
  maxBytes: z.number().int().positive(),
  anyContentType: z.boolean().optional(),
  tooLarge: z.string().optional(),
})
export type RequestBody = z.infer<typeof RequestBodySchema>

/** What a route module's `handle` declares of request bodies; a declaration of the wrong shape throws. */
export function requestBodyOf(handle: unknown): RequestBody | undefined {
  if (typeof handle !== 'object' || handle === null || !('requestBody' in handle)) return undefined
  return RequestBodySchema.parse(handle.requestBody)
}

/**
 * Bounds what a request may make the store read, before any route buffers it (`request.formData()` reads
 * the whole body, and the login action does so before its rate limits). A body must state its length
 * (browsers and fetch always do; Node then reads exactly that many bytes) and stay under the limit of the
 * route it is posted to (64 KiB unless the route declares more), and a post to a page must be a form:
 * anything else would make React Router's form parsing throw, a 500. `.data` is the same post made by React
 * Router's client.
 */
export function limitRequestBodies(build: ServerBuild | (() => Promise<ServerBuild>)): RequestHandler {
  const matchRoute = routeMatcher(build)
  return async (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next()
    const declared = requestBodyOf((await matchRoute(req.path.replace(/\.data$/, '')))?.handle)
    const limit = declared?.maxBytes ?? FORM_BODY_LIMIT
    const length = Number(req.get('Content-Length') ?? 0)
    const type = (req.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase()
    if (req.get('Transfer-Encoding')) {
      refuse(req, res, 411, 'Length required: send the body with a Content-Length.')
    } else if (!Number.isSafeInteger(length) || length > limit) {
      refuse(req, res, 413, declared?.tooLarge ?? `Request too large: at most ${limit / 1024} KiB.`)
    } else if (!declared?.anyContentType && !FORM_TYPES.includes(type)) {
      refuse(req, res, 415, 'Unsupported content type: send a form (application/x-www-form-urlencoded).')
    } else {
      next()
    }
  }
}
