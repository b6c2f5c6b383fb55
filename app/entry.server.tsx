import { Writable } from 'node:stream'
import { renderToPipeableStream } from 'react-dom/server'
import {
  isRouteErrorResponse,
  ServerRouter,
  type EntryContext,
  type HandleErrorFunction,
  type RouterContextProvider,
} from 'react-router'
import { NonceProvider } from '#app/components/nonce.tsx'
import { appContext, cspNonceContext, renderedScriptsContext } from '#app/server/context.server.ts'
import { nonceScriptHashes } from '#app/server/script-hashes.server.ts'
import { PAGE_VISITOR_HEADERS } from '#app/visitor-key.server.ts'

export const streamTimeout = 5_000

/**
 * Renders the whole document before answering. The store's pages load all their data up front (no deferred
 * data), so streaming would bring no earlier paint, and one buffer is much cheaper to send, compress and
 * cache than React's many small chunks through web streams (measured: see docs/decisions/004).
 *
 * A GET whose URL and freshly loaded data equal those of a page rendered in the last minute is answered with
 * that page's HTML and this response's nonce, without rendering it again (the services' render memo:
 * app/server/render-memo.server.ts, decision 021).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  const nonce = loadContext.get(cspNonceContext)
  const memo = loadContext.get(appContext).renderMemo
  const state = routerContext.staticHandlerContext
  const key = mayRemember(request, responseStatusCode, responseHeaders, state)
    ? memo.keyFor({ url: request.url, status: responseStatusCode, data: state.loaderData })
    : undefined
  const remembered = key ? memo.get(key, nonce) : undefined
  responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
  // A document's dates are in the reader's locale: a shared cache must not hand one reader's to another.
  for (const header of PAGE_VISITOR_HEADERS) responseHeaders.append('Vary', header)
  // The host asks for the page's own scripts when it may keep the page in its shared cache.
  const scripts = loadContext.get(renderedScriptsContext)
  if (remembered) {
    // The route data's stream for the browser is already in the remembered page.
    void routerContext.serverHandoffStream?.cancel().catch(() => {})
    if (scripts) scripts.hashes = nonceScriptHashes(remembered, nonce)
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
        if (key && responseStatusCode === 200) memo.set(key, html, nonce)
        if (scripts) scripts.hashes = nonceScriptHashes(html, nonce)
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
          logRequestError(loadContext, request, error)
        },
      },
    )
    setTimeout(abort, streamTimeout + 1_000).unref()
  })
}

/**
 * A document the render memo may keep: a GET that rendered its page (no error, no action's answer), unless
 * its route says no one may store it (`Cache-Control: no-store`: a page whose URL holds a mailed token).
 */
export function mayRemember(
  request: Request,
  status: number,
  headers: Headers,
  state: Pick<EntryContext['staticHandlerContext'], 'errors' | 'actionData'>,
): boolean {
  if (request.method !== 'GET' || status !== 200 || state.errors || state.actionData) return false
  return !/\bno-store\b/i.test(headers.get('Cache-Control') ?? '')
}

/**
 * What React Router catches on the server (a loader, an action or a middleware that threw; it answers 500
 * itself) goes to the store's log at `error` level, with the request's method and path. React Router's
 * default printed it with console.error, outside the structured log, where operators and the fuzz drill (which
 * reads the log's errors) did not see it: the 500 of an orders export asked for as `.data` went unexplained
 * (issue 16). A visitor who left (an aborted request) is not an error; nor is a 4xx route error (an unknown URL).
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return
  if (isRouteErrorResponse(error) && error.status < 500) return
  const cause = isRouteErrorResponse(error) && 'error' in error && error.error ? error.error : error
  logRequestError(context, request, cause)
}

function logRequestError(context: Readonly<RouterContextProvider>, request: Request, error: unknown) {
  const { pathname } = new URL(request.url)
  try {
    context
      .get(appContext)
      .logger.error({ err: error, method: request.method, path: pathname }, 'request failed')
  } catch {
    // No store context (the request failed before it was made): the console still gets it.
    console.error(error)
  }
}

/**
 * React Router preloads every module the page needs (`<link rel="modulepreload">`) and imports the routes'
 * modules from its inline module script as the page is parsed: ~120 KB of JavaScript on the wire while the
 * stylesheet and the first cover (the LCP) are still coming, sharing a slow mobile connection with them. The
 * page is whole without it (server-rendered, forms that post without JavaScript), so its scripts start once
 * the page has loaded: the preload links move into that script, which adds them (all modules fetched at once,
 * as before) and then imports the routes' modules and the client entry as React Router wrote them.
 * Nothing here changes what runs, only when: the script keeps its nonce, so it is among the scripts the page
 * cache allows by hash.
 *
 * And in slices (issue 35): importing the root route evaluated React, React DOM, React Router and the layout's
 * code in one task, which a phone's CPU stretched past 50 ms and Lighthouse counted as blocking time. So each
 * preloaded file is imported on its own first, in the order React Router lists them, with a yield to the
 * browser between (`scheduler.yield()` where there is one, a zero timeout otherwise): each file's top-level
 * code is a task of its own, and a tap in between is answered. A file that imports one not yet evaluated
 * evaluates it first, as modules always do; the client entry, which starts hydrating, is left for last, after
 * the routes' modules, as React Router wrote it.
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
  const entry = [...body.matchAll(/\bimport\("([^"]+)"\)/g)].at(-1)?.[1]
  const sliced = preloads.filter((href) => href !== entry)
  const deferred =
    opening[0] +
    'if (document.readyState !== "complete") await new Promise((loaded) => addEventListener("load", loaded, { once: true }));' +
    `for (const href of ${JSON.stringify(preloads)}) document.head.append(Object.assign(document.createElement("link"), { rel: "modulepreload", href }));` +
    `for (const href of ${JSON.stringify(sliced)}) { await import(href); await (globalThis.scheduler?.yield?.() ?? new Promise((next) => setTimeout(next))); }` +
    imports.map(([, name, url]) => `const ${name} = await import(${url});`).join('') +
    body
  return withoutPreloads.slice(0, start) + deferred + withoutPreloads.slice(end)
}
