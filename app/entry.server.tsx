import { Writable } from 'node:stream'
import { renderToPipeableStream } from 'react-dom/server'
import { ServerRouter, type EntryContext, type RouterContextProvider } from 'react-router'
import { NonceProvider } from '#app/components/nonce.tsx'
import { appContext, cspNonceContext } from '#app/server/context.server.ts'
import { RenderMemo } from '#app/server/render-memo.server.ts'

export const streamTimeout = 5_000

/** The footer's year is the only clock a page shows: a remembered page is at most this old. */
const RENDER_MEMO_TTL_MS = 60_000
let memo: RenderMemo | undefined

/**
 * Renders the whole document before answering. The store's pages load all their data up front (no deferred
 * data), so streaming would bring no earlier paint, and one buffer is much cheaper to send, compress and
 * cache than React's many small chunks through web streams (measured: see docs/decisions/004).
 *
 * A GET whose URL and freshly loaded data equal those of a page rendered in the last minute is answered with
 * that page's HTML and this response's nonce, without rendering it again (app/server/render-memo.server.ts,
 * decision 021).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  const nonce = loadContext.get(cspNonceContext)
  memo ??= new RenderMemo({
    maxEntries: loadContext.get(appContext).env.RENDER_MEMO_ENTRIES,
    ttlMs: RENDER_MEMO_TTL_MS,
  })
  const state = routerContext.staticHandlerContext
  const key =
    request.method === 'GET' && responseStatusCode === 200 && !state.errors && !state.actionData
      ? memo.keyFor({ url: request.url, status: responseStatusCode, data: state.loaderData })
      : undefined
  const remembered = key ? memo.get(key, nonce) : undefined
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
  if (remembered) {
    // The route data's stream for the browser is already in the remembered page.
    void routerContext.serverHandoffStream?.cancel().catch(() => {})
    return new Response(remembered, { headers: responseHeaders, status: responseStatusCode })
  }
  return new Promise<Response>((resolve, reject) => {
    const chunks: Buffer[] = []
    const document = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk)
        callback()
      },
      final(callback) {
        const html = loadScriptsAfterPage(Buffer.concat(chunks).toString())
        if (key && responseStatusCode === 200) memo!.set(key, html, nonce)
        resolve(new Response(html, { headers: responseHeaders, status: responseStatusCode }))
        callback()
      },
    })
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        // The whole document is sent at once (above), so every Suspense boundary is written in place. With
        // React's default (12.8 KB) a boundary of over 500 bytes past that point was moved to the end of the
        // page behind a script, as if streamed: the header's lazily hydrated menus were missing from pages
        // seen without JavaScript.
        progressiveChunkSize: Number.POSITIVE_INFINITY,
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

/**
 * React Router preloads every module the page needs (`<link rel="modulepreload">`) and imports the routes'
 * modules from its inline module script as the page is parsed: ~120 KB of JavaScript on the wire while the
 * stylesheet and the first cover (the LCP) are still coming, sharing a slow mobile connection with them. The
 * page is whole without it (server-rendered, forms that post without JavaScript), so its scripts start once
 * the page has loaded: the preload links move into that script, which adds them (all modules fetched at once,
 * as before) and then imports the routes' modules and the client entry as React Router wrote them.
 * Nothing here changes what runs, only when: the script keeps its nonce and is hashed like any other by the
 * page cache.
 */
function loadScriptsAfterPage(html: string): string {
  const preloads: string[] = []
  const withoutPreloads = html.replace(
    /<link rel="modulepreload" href="([^"]+)"[^>]*\/>/g,
    (_, href: string) => {
      preloads.push(href)
      return ''
    },
  )
  const opening = /<script[^>]* type="module"[^>]*>/.exec(withoutPreloads)
  if (!opening || preloads.length === 0) return html
  const start = opening.index
  const end = withoutPreloads.indexOf('</script>', start)
  const script = withoutPreloads.slice(start, end)
  const imports = [...script.matchAll(/^import \* as (route\d+) from ("[^"]+");$/gm)]
  if (imports.length === 0) return html
  let body = script.slice(opening[0].length)
  for (const [line] of imports) body = body.replace(line, '')
  const deferred =
    opening[0] +
    'if (document.readyState !== "complete") await new Promise((loaded) => addEventListener("load", loaded, { once: true }));' +
    `for (const href of ${JSON.stringify(preloads)}) document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href }));` +
    imports.map(([, name, url]) => `const ${name} = await import(${url});`).join('') +
    body
  return withoutPreloads.slice(0, start) + deferred + withoutPreloads.slice(end)
}
