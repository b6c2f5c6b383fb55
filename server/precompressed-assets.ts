import fs from 'node:fs'
import path from 'node:path'
import express, { type RequestHandler } from 'express'

/** The encodings the build writes next to each script and stylesheet (vite.config.ts), best first. */
const ENCODINGS = [
  { name: 'br', extension: '.br' },
  { name: 'gzip', extension: '.gz' },
] as const

/** Security headers that apply to documents only (server/http.ts sets them on every response). */
const DOCUMENT_ONLY_HEADERS = [
  'Content-Security-Policy',
  'X-Frame-Options',
  'Cross-Origin-Opener-Policy',
  'Permissions-Policy',
  'Referrer-Policy',
]

/**
 * Vite's fingerprinted assets (build/client/assets), served for a year as immutable. A script or stylesheet
 * the build also wrote as `name.br` / `name.gz` (Brotli at its best quality, gzip level 9, done once at build
 * time) is answered with that file when the browser accepts the encoding: fewer bytes than the `compression`
 * middleware's per-request gzip at level 6, and no compressing per request. Anything else is served as is
 * (and compressed by that middleware as before).
 */
export function serveAssets(folder: string): RequestHandler {
  // Never revalidated (immutable, a new name for new content): no ETag or Last-Modified to send.
  const serve = express.static(folder, {
    immutable: true,
    maxAge: '1y',
    index: false,
    etag: false,
    lastModified: false,
  })
  // The folder is the build's output: listed once. Only names found here are ever rewritten.
  const files = new Set(fs.existsSync(folder) ? fs.readdirSync(folder) : [])
  return (req, res, next) => {
    const name = req.path.slice(1)
    if ((req.method === 'GET' || req.method === 'HEAD') && files.has(name)) {
      // A script or stylesheet is not a document: the policies that govern documents do nothing on it, and a
      // page loads a dozen of them (~450 bytes each). `nosniff` (and HSTS) stay. A name not in the build falls
      // through to the store's 404 page, which keeps them all.
      for (const header of DOCUMENT_ONLY_HEADERS) res.removeHeader(header)
      res.vary('Accept-Encoding')
      const accepted = req.acceptsEncodings(ENCODINGS.map((encoding) => encoding.name))
      const encoding = ENCODINGS.find((candidate) => candidate.name === accepted)
      if (encoding && files.has(name + encoding.extension)) {
        // `send` keeps a Content-Type already set, so the file is typed by its own name, not `.br`/`.gz`.
        res.type(path.extname(name))
        res.set('Content-Encoding', encoding.name)
        req.url = `/${name}${encoding.extension}`
      }
    }
    serve(req, res, next)
  }
}
