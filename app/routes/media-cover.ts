import { COVER_KEY_FOLDER, coverFilePattern } from '#app/features/catalog/cover-image.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/media-cover'

const contentTypes = { avif: 'image/avif', webp: 'image/webp', jpeg: 'image/jpeg' } as const

/**
 * GET /media/covers/<book id>-<hash>-<width>.<format>: an uploaded cover's variant. The name holds a hash of
 * the upload, so a file never changes under its URL: browsers and CDNs may keep it for a year.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const file = params.file
  const match = coverFilePattern.exec(file)
  const notFound = () =>
    new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
  if (!match) return notFound()
  const stored = await getAppContext(context).storage.createReadStream(`${COVER_KEY_FOLDER}/${file}`)
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
