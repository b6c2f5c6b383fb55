import { Writable } from 'node:stream'
import { renderToPipeableStream } from 'react-dom/server'
import { ServerRouter, type EntryContext, type RouterContextProvider } from 'react-router'
import { NonceProvider } from '#app/components/nonce.tsx'
import { cspNonceContext } from '#app/server/context.server.ts'

export const streamTimeout = 5_000

/**
 * Renders the whole document before answering. The store's pages load all their data up front (no deferred
 * data), so streaming would bring no earlier paint, and one buffer is much cheaper to send, compress and
 * cache than React's many small chunks through web streams (measured: see docs/decisions/004).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  const nonce = loadContext.get(cspNonceContext)
  return new Promise<Response>((resolve, reject) => {
    const chunks: Buffer[] = []
    const document = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk)
        callback()
      },
      final(callback) {
        responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
        resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status: responseStatusCode }))
        callback()
      },
    })
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          pipe(document)
        },
        onShellError(error: unknown) {
          reject(error)
        },
        onError(error: unknown) {
          responseStatusCode = 500
          console.error(error)
        },
      },
    )
    setTimeout(abort, streamTimeout + 1_000).unref()
  })
}
