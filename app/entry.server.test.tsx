import { Writable } from 'node:stream'
import pino from 'pino'
import { RouterContextProvider, UNSAFE_ErrorResponseImpl as ErrorResponse } from 'react-router'
import { expect, test } from 'vitest'
import { appContext, type AppContext } from '#app/server/context.server.ts'
import { handleError, mayRemember } from './entry.server.tsx'

/** React Router's arguments to handleError, with a store context whose logger writes JSON lines into `lines`. */
function argsLoggingTo(lines: Record<string, unknown>[], init?: RequestInit) {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  const context = new RouterContextProvider()
  // handleError reads only the logger of the store's context.
  context.set(appContext, { logger: pino({ level: 'info' }, stream) } as AppContext)
  const request = new Request('http://localhost/admin/orders/export.csv.data?to=9999-12-31', init)
  return { request, context, params: {}, url: new URL(request.url), pattern: '' }
}

test('an error a loader threw is logged at error level with the method and path, without the query', () => {
  const lines: Record<string, unknown>[] = []
  handleError(new Error('time zone displacement out of range'), argsLoggingTo(lines))
  expect(lines).toHaveLength(1)
  expect(lines[0]).toMatchObject({
    level: 50,
    msg: 'request failed',
    method: 'GET',
    path: '/admin/orders/export.csv.data',
    err: { message: 'time zone displacement out of range' },
  })
})

test('a visitor who left, or a 4xx route error, is not logged', () => {
  const lines: Record<string, unknown>[] = []
  const controller = new AbortController()
  controller.abort()
  handleError(new Error('aborted'), argsLoggingTo(lines, { signal: controller.signal }))
  // What React Router hands over for a URL no route matches.
  handleError(new ErrorResponse(404, 'Not Found', null, true), argsLoggingTo(lines))
  expect(lines).toEqual([])
})

test('a page whose route marks it no-store (a URL holding a mailed token) is not kept by the render memo', async () => {
  const { headers: resetPasswordHeaders } = await import('#app/routes/reset-password.tsx')
  const { headers: verifyEmailHeaders } = await import('#app/routes/account-verify-email.tsx')
  const get = new Request('http://localhost/reset-password?token=a-mailed-token')
  const rendered = { errors: null, actionData: null }
  expect(mayRemember(get, 200, new Headers(), rendered)).toBe(true)
  for (const routeHeaders of [resetPasswordHeaders, verifyEmailHeaders]) {
    const headers = new Headers(
      routeHeaders({
        actionHeaders: new Headers(),
        parentHeaders: new Headers(),
        loaderHeaders: new Headers(),
        errorHeaders: undefined,
      } as Parameters<typeof routeHeaders>[0]),
    )
    expect(headers.get('Cache-Control')).toBe('no-store')
    expect(headers.get('Referrer-Policy')).toBe('no-referrer')
    expect(mayRemember(get, 200, headers, rendered)).toBe(false)
  }
})
