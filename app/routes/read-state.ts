import { listAnnotations } from '#app/features/reader/annotations.server.ts'
import { getPosition } from '#app/features/reader/positions.server.ts'
import { ownerOrProblem } from '#app/features/reader/reader-request.server.ts'
import type { Route } from './+types/read-state'

/** GET /read/<slug>/state.json: where the owner was in the book, and their bookmarks and highlights. */
export async function loader(args: Route.LoaderArgs) {
  const owner = await ownerOrProblem(args)
  if (owner instanceof Response) return owner
  const reader = { userId: owner.user.id, bookId: owner.book.id }
  const [position, annotations] = await Promise.all([
    getPosition(owner.app.db, reader),
    listAnnotations(owner.app.db, reader),
  ])
  return Response.json(
    { edition: owner.book.edition, position, annotations },
    { headers: { 'Cache-Control': 'private, no-store' } },
  )
}
