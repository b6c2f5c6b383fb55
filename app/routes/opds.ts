import {
  authenticationDocument,
  opdsAuthType,
  refusedSignIn,
  signInApp,
} from '#app/features/opds/opds-auth.server.ts'
import { FeedRequestError, readFeed, readLibraryFeed } from '#app/features/opds/opds-catalog.server.ts'
import { opds1Xml, opds2Json, openSearchXml } from '#app/features/opds/opds-feeds.ts'
import { atomAcquisition, atomNavigation, opds2Type, openSearchType } from '#app/features/opds/opds-links.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/opds'

/**
 * GET /opds/… (OPDS 1.2, Atom) and /opds/v2/… (OPDS 2.0, JSON): the public catalogue for reading apps
 * (issue 33). Public and the same for everyone, so any origin may read it and caches may keep it a few minutes.
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const { db, env, clientIp } = getAppContext(context)
  const origin = env.publicUrl.origin
  const query = new URL(request.url).searchParams
  const parts = (params['*'] ?? '').split('/').filter(Boolean)
  const version = parts[0] === 'v2' ? 2 : 1
  const path = (version === 2 ? parts.slice(1) : parts).map((part) => `/${part}`).join('')
  const headers = { 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' }

  if (version === 1 && path === '/auth.json') {
    return Response.json(authenticationDocument(origin), {
      headers: { ...headers, 'Content-Type': `${opdsAuthType}; charset=utf-8` },
    })
  }
  if (path === '/library') {
    // The reader's own books: an app signs in with the reader's email and an app password; never cached.
    const signIn = await signInApp(db, request, clientIp)
    if (!signIn.ok) return refusedSignIn(signIn, origin)
    const feed = await readLibraryFeed(db, signIn.user.id)
    const privateHeaders = { 'Cache-Control': 'private, no-store' }
    return version === 2
      ? new Response(JSON.stringify(opds2Json(feed, origin)), {
          headers: { ...privateHeaders, 'Content-Type': `${opds2Type}; charset=utf-8` },
        })
      : new Response(opds1Xml(feed, origin), {
          headers: { ...privateHeaders, 'Content-Type': `${atomAcquisition};charset=utf-8` },
        })
  }
  if (version === 1 && path === '/opensearch.xml') {
    return new Response(openSearchXml(origin), {
      headers: { ...headers, 'Content-Type': `${openSearchType}; charset=utf-8` },
    })
  }
  try {
    const feed = await readFeed(db, path, query)
    if (!feed) return problem(404, 'There is no such feed: /opds lists them.', version)
    if (version === 2) {
      return new Response(JSON.stringify(opds2Json(feed, origin)), {
        headers: { ...headers, 'Content-Type': `${opds2Type}; charset=utf-8` },
      })
    }
    const type = feed.kind === 'navigation' ? atomNavigation : atomAcquisition
    return new Response(opds1Xml(feed, origin), {
      headers: { ...headers, 'Content-Type': `${type};charset=utf-8` },
    })
  } catch (error) {
    if (error instanceof FeedRequestError) return problem(400, error.message, version)
    throw error
  }
}

function problem(status: 400 | 404, detail: string, version: 1 | 2): Response {
  const title = status === 404 ? 'Not found' : 'Bad request'
  return version === 2
    ? Response.json(
        { type: 'about:blank', title, status, detail },
        {
          status,
          headers: { 'Content-Type': 'application/problem+json' },
        },
      )
    : new Response(detail, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
}
