import { COVER_KEY_FOLDER, coverFilePattern } from '#app/features/catalog/cover-image.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { storedImageResponse, type ImageFormat } from '#app/server/file-response.server.ts'
import type { Route } from './+types/media-cover'

/** GET /media/covers/<book id>-<hash>-<width>.<format>: an uploaded cover's variant. */
export async function loader({ params, context }: Route.LoaderArgs) {
  const match = coverFilePattern.exec(params.file)
  return storedImageResponse(
    getAppContext(context).storage,
    match ? `${COVER_KEY_FOLDER}/${params.file}` : null,
    match?.[1] as ImageFormat,
  )
}
