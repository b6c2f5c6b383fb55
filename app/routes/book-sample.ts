import { openSample } from '#app/features/library/downloads.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { problemPage, publicFileResponse } from '#app/server/file-response.server.ts'
import type { Route } from './+types/book-sample'

const slugPattern = /^[a-z0-9][a-z0-9-]{0,99}$/

/**
 * GET /books/<slug>/sample.pdf: the first chapter, free for anyone, unstamped; the one part a Range asks for
 * (206; 416 past its end).
 */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const slug = params.slug.toLowerCase()
  if (!slugPattern.test(slug)) return problemPage(404, 'There is no such eBook.')
  const app = getAppContext(context)
  const sample = await openSample(app.db, app.storage, slug)
  if (!sample) return problemPage(404, 'There is no sample of this eBook.')
  return publicFileResponse(
    request,
    sample.bytes,
    {
      etag: `"${sample.sha256.slice(0, 32)}"`,
      fileName: sample.fileName,
      contentType: sample.contentType,
      cacheControl: 'public, max-age=3600',
    },
    { href: `/books/${slug}`, label: 'Back to the book' },
  )
}
