import { annotationsMarkdown, listAnnotations } from '#app/features/reader/annotations.server.ts'
import { ownerOrProblem } from '#app/features/reader/reader-request.server.ts'
import type { Route } from './+types/read-annotations-export'

/** GET /read/<slug>/annotations.md: the owner's bookmarks and highlights in the book, as a Markdown file. */
export async function loader(args: Route.LoaderArgs) {
  const owner = await ownerOrProblem(args)
  if (owner instanceof Response) return owner
  const list = await listAnnotations(owner.app.db, { userId: owner.user.id, bookId: owner.book.id })
  return new Response(annotationsMarkdown(owner.book, list), {
    headers: {
      'Content-Type': 'text/markdown; charset=utf-8',
      'Content-Disposition': `attachment; filename="${owner.book.slug}-notes.md"`,
      'Cache-Control': 'private, no-store',
    },
  })
}
