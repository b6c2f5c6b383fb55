import { completeProviderSignIn } from '#app/features/identity/providers.server.ts'
import type { Route } from './+types/auth-callback'

/**
 * Where GitHub or the OpenID Connect provider sends the browser back: Better Auth's own callback handler
 * (state check, code exchange, ID token verification, account linking), mounted for this URL only.
 */
export function loader({ request, context, params }: Route.LoaderArgs) {
  return completeProviderSignIn({ request, context, provider: params.provider })
}
