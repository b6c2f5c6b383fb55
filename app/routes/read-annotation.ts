import {
  AnnotationChangeSchema,
  deleteAnnotation,
  updateAnnotation,
} from '#app/features/reader/annotations.server.ts'
import { readerJsonBody } from '#app/features/reader/json-body.ts'
import { ownerOrProblem, unknownEdition } from '#app/features/reader/reader-request.server.ts'
import { jsonProblem, readJson } from '#app/server/json.server.ts'
import type { Route } from './+types/read-annotation'

export const handle = readerJsonBody

const notFound = () => jsonProblem(404, 'There is no such bookmark or highlight.')

/**
 * PATCH /read/<slug>/annotations/<id> (JSON: a note, or a new edition and cfi): 200 with the annotation.
 * DELETE: 204. Only the owner's own; anyone else's id is a 404, like an unknown one.
 */
export async function action(args: Route.ActionArgs) {
  const { method } = args.request
  if (method !== 'PATCH' && method !== 'DELETE')
    return jsonProblem(405, 'Change an annotation with PATCH, or remove it with DELETE.', undefined, {
      Allow: 'PATCH, DELETE',
    })
  const owner = await ownerOrProblem(args)
  if (owner instanceof Response) return owner
  const reader = { userId: owner.user.id, bookId: owner.book.id }
  if (method === 'DELETE')
    return (await deleteAnnotation(owner.app.db, reader, args.params.id))
      ? new Response(null, { status: 204 })
      : notFound()
  const body = await readJson(args.request, AnnotationChangeSchema)
  if (!body.ok) return body.response
  const noSuchEdition = unknownEdition(body.value.edition, owner.book)
  if (noSuchEdition) return noSuchEdition
  const annotation = await updateAnnotation(owner.app.db, reader, args.params.id, body.value)
  return annotation ? Response.json({ annotation }) : notFound()
}
