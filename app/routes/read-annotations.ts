import { addAnnotation, NewAnnotationSchema } from '#app/features/reader/annotations.server.ts'
import { readerJsonBody } from '#app/features/reader/json-body.ts'
import { ownerOrProblem, unknownEdition } from '#app/features/reader/reader-request.server.ts'
import { jsonProblem, readJson } from '#app/server/json.server.ts'
import type { Route } from './+types/read-annotations'

export const handle = readerJsonBody

/** POST /read/<slug>/annotations (JSON: kind, edition, cfi, quote, note): a new bookmark or highlight, 201. */
export async function action(args: Route.ActionArgs) {
  if (args.request.method !== 'POST')
    return jsonProblem(405, 'Add an annotation with POST.', undefined, { Allow: 'POST' })
  const owner = await ownerOrProblem(args)
  if (owner instanceof Response) return owner
  const body = await readJson(args.request, NewAnnotationSchema)
  if (!body.ok) return body.response
  const noSuchEdition = unknownEdition(body.value.edition, owner.book)
  if (noSuchEdition) return noSuchEdition
  const added = await addAnnotation(
    owner.app.db,
    { userId: owner.user.id, bookId: owner.book.id },
    body.value,
  )
  if (!added.ok) return jsonProblem(added.status, added.message)
  return Response.json({ annotation: added.annotation }, { status: 201 })
}
