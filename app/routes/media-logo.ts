import { LOGO_KEY_FOLDER, logoFilePattern } from '#app/features/settings/logo.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/media-logo'

const contentTypes = { webp: 'image/webp', png: 'image/png' } as const

/**
 * GET /media/logo/<hash>.<format>: the store's logo as the back office resized it. The name holds a hash of
 * the upload, so a file never changes under its URL: browsers and CDNs may keep it for a year.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const match = logoFilePattern.exec(params.file)
  const notFound = () =>
    new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
  if (!match) return notFound()
  const stored = await getAppContext(context).storage.createReadStream(`${LOGO_KEY_FOLDER}/${params.file}`)
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
