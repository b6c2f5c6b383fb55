import { LOGO_KEY_FOLDER, logoFilePattern } from '#app/features/settings/logo.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { storedImageResponse, type ImageFormat } from '#app/server/file-response.server.ts'
import type { Route } from './+types/media-logo'

/** GET /media/logo/<hash>.<format>: the store's logo as the back office resized it. */
export async function loader({ params, context }: Route.LoaderArgs) {
  const match = logoFilePattern.exec(params.file)
  return storedImageResponse(
    getAppContext(context).storage,
    match ? `${LOGO_KEY_FOLDER}/${params.file}` : null,
    match?.[1] as ImageFormat,
  )
}
