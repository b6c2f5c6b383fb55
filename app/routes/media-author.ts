import { AUTHOR_PHOTO_FOLDER, authorPhotoFilePattern } from '#app/features/authors/author-photo.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { storedImageResponse, type ImageFormat } from '#app/server/file-response.server.ts'
import type { Route } from './+types/media-author'

/** GET /media/authors/<author id>-<hash>-<width>.<format>: an uploaded author photo's variant. */
export async function loader({ params, context }: Route.LoaderArgs) {
  const match = authorPhotoFilePattern.exec(params.file)
  return storedImageResponse(
    getAppContext(context).storage,
    match ? `${AUTHOR_PHOTO_FOLDER}/${params.file}` : null,
    match?.[1] as ImageFormat,
  )
}
