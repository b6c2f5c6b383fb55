/**
 * The two baselines `npm run bench:lighthouse -- --baseline` audits in the same run as the store, so a score can
 * be read against what this machine allows at that moment (issue 35):
 * - **bare React Router**: this folder's app — React Router 7 in framework mode with the store's future flags,
 *   React 19, one route with a loader, a heading and a paragraph. What any page of the store pays for the
 *   framework (its scripts, the router's creation, hydration) before its own code.
 * - **the store without scripts**: a proxy in front of the running store that removes every `<script>` from
 *   its documents and passes the rest (styles, covers, fonts, headers) through. The page's own floor: parsing,
 *   style, layout and paint, with no JavaScript at all.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { createRequestListener } from '@react-router/node'
import type { ServerBuild } from 'react-router'

const root = path.dirname(new URL(import.meta.url).pathname)
const clientAssets = path.join(root, 'build/client/assets')
const types: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css' }

export type Baselines = { bare: string; noScripts: string; stop: () => Promise<void> }

export async function startBaselines(storeUrl: string, rebuild: boolean): Promise<Baselines> {
  if (rebuild || !fs.existsSync(path.join(root, 'build/server/index.js'))) {
    const build = spawnSync('npx', ['react-router', 'build', root], { stdio: 'inherit' })
    if (build.status !== 0) throw new Error('the baseline app did not build')
  }
  const build = (await import(path.join(root, 'build/server/index.js'))) as ServerBuild
  const listener = createRequestListener({ build, mode: 'production' })
  const bare = http.createServer((request, response) => {
    const file = path.join(root, 'build/client', new URL(request.url ?? '/', 'http://x').pathname)
    if (file.startsWith(clientAssets + path.sep) && fs.existsSync(file)) {
      response.writeHead(200, {
        'Content-Type': types[path.extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'public, max-age=31536000, immutable',
      })
      fs.createReadStream(file).pipe(response)
      return
    }
    void listener(request, response)
  })
  const noScripts = http.createServer(async (request, response) => {
    try {
      const answer = await fetch(new URL(request.url ?? '/', storeUrl), {
        headers: Object.fromEntries(
          Object.entries(request.headers)
            .filter(([name]) => !['host', 'accept-encoding', 'connection'].includes(name))
            .map(([name, value]) => [name, String(value)]),
        ),
        redirect: 'manual',
      })
      const headers = Object.fromEntries(
        [...answer.headers].filter(
          ([name]) => !['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(name),
        ),
      )
      if (!(answer.headers.get('content-type') ?? '').startsWith('text/html')) {
        response.writeHead(answer.status, headers)
        response.end(Buffer.from(await answer.arrayBuffer()))
        return
      }
      const html = (await answer.text())
        .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
        .replace(/<link rel="modulepreload"[^>]*>/g, '')
      response.writeHead(answer.status, headers)
      response.end(html)
    } catch (error) {
      response.writeHead(502).end(String(error))
    }
  })
  const listen = (server: http.Server) =>
    new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
    )
  const close = (server: http.Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return {
    bare: await listen(bare),
    noScripts: await listen(noScripts),
    stop: async () => {
      await Promise.all([close(bare), close(noScripts)])
    },
  }
}
