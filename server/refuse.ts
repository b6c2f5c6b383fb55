import type express from 'express'

/** The methods that change nothing: no body is read, no cross-site check applies. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

/** An answer to a request the store will not read: plain text, or JSON for a client that asks for it. */
export function refuse(req: express.Request, res: express.Response, status: number, message: string) {
  // Whatever of the body was sent is not read; the connection is not reused for another request.
  res.set('Connection', 'close').status(status)
  if (req.accepts(['html', 'json']) === 'json') res.json({ error: message })
  else res.type('text/plain').send(message)
}
