import { ErratumSchema, reportErratum } from '#app/features/errata/errata.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { findReaderBook, readerAccess } from '#app/features/reader/reader-books.server.ts'
import { readerJsonBody } from '#app/features/reader/json-body.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { jsonProblem, readJson } from '#app/server/json.server.ts'
import type { Route } from './+types/book-errata'

export const handle = readerJsonBody

/**
 * POST /books/<slug>/errata (JSON: quote, location, description, suggestion, credit): an erratum reported from
 * the online reader, against the edition owners read. Owners of the book report anything; anyone else (signed
 * in or not) from the free sample, fewer an hour. 201, 400 with field errors, 403, 404, 429 with Retry-After.
 * The book page's own form posts to the book page (routes/book.tsx), which calls the same `reportErratum`.
 */
export async function action({ request, context, params }: Route.ActionArgs) {
  if (request.method !== 'POST')
    return jsonProblem(405, 'Report an erratum with POST.', undefined, { Allow: 'POST' })
  const app = getAppContext(context)
  const book = await findReaderBook(app.db, params.slug.toLowerCase())
  if (!book) return jsonProblem(404, 'There is no such eBook.')
  const body = await readJson(request, ErratumSchema)
  if (!body.ok) return body.response
  const user = await getSessionUser({ request, context })
  const account = user && !user.isGuest ? user : null
  const access = await readerAccess(app.db, book, account?.id ?? null)
  const outcome = await reportErratum(app.db, {
    book,
    reporterId: account?.id ?? null,
    owner: access.whole,
    clientIp: app.clientIp,
    input: body.value,
  })
  if (!outcome.ok)
    return jsonProblem(
      outcome.status,
      outcome.message,
      undefined,
      outcome.status === 429 ? { 'Retry-After': String(outcome.retryAfterSeconds) } : undefined,
    )
  return Response.json({ id: outcome.id, edition: book.edition }, { status: 201 })
}
