import { PositionSchema, savePosition } from '#app/features/reader/positions.server.ts'
import { readerJsonBody } from '#app/features/reader/json-body.ts'
import { ownerOrProblem, unknownEdition } from '#app/features/reader/reader-request.server.ts'
import { jsonProblem, readJson } from '#app/server/json.server.ts'
import type { Route } from './+types/read-position'

export const handle = readerJsonBody

/**
 * PUT /read/<slug>/position (JSON: edition, cfi, fraction, quote, at): where the owner is now. 204 whether it
 * was saved or a newer place was kept (the newest read wins); 400 with field errors.
 */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== 'PUT')
    return jsonProblem(405, 'Send the position with PUT.', undefined, { Allow: 'PUT' })
  const owner = await ownerOrProblem(args)
  if (owner instanceof Response) return owner
  const body = await readJson(args.request, PositionSchema)
  if (!body.ok) return body.response
  const noSuchEdition = unknownEdition(body.value.edition, owner.book)
  if (noSuchEdition) return noSuchEdition
  await savePosition(owner.app.db, { userId: owner.user.id, bookId: owner.book.id }, body.value)
  return new Response(null, { status: 204 })
}
