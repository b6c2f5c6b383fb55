import { AUTHOR_PHOTO_FOLDER, authorPhotoFilePattern } from '#app/features/authors/author-photo.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/media-author'

const contentTypes = { webp: 'image/webp', jpeg: 'image/jpeg' } as const

/**
 * GET /media/authors/<author id>-<hash>-<width>.<format>: an uploaded author photo's variant. The name holds a
 * hash of the upload, so a file never changes under its URL: browsers and CDNs may keep it for a year.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const file = params.file
  const match = authorPhotoFilePattern.exec(file)
  const notFound = () =>
    new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
  if (!match) return notFound()
  const stored = await getAppContext(context).storage.createReadStream(`${AUTHOR_PHOTO_FOLDER}/${file}`)
  if (!stored) return notFound()
  return new Response(stored.stream, {
    headers: {
      'Content-Type': contentTypes[match[1] as keyof typeof contentTypes],
      'Content-Length': String(stored.size),
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    },
  })
}
