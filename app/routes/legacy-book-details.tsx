import { bookNotFound } from '#app/features/catalog/book-not-found.server.ts'
import { legacyBookRedirect } from '#app/features/catalog/legacy-redirect.server.ts'
import type { Route } from './+types/legacy-book-details'
import { errorPageMeta } from '#app/features/seo/meta.ts'

/** /Details/<n> and /AllBooksDetails/<n> (app/routes.ts maps both here): the book's page, or a 404. */
export function loader({ params, url }: Route.LoaderArgs) {
  throw legacyBookRedirect(url.pathname, params.index) ?? bookNotFound()
}

export const meta: Route.MetaFunction = () => errorPageMeta('Book not found')

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'

/** Never rendered: the loader always answers (a redirect or a 404 shown by the error boundary). */
export default function Unreachable() {
  return null
}
