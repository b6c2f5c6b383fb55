import { data } from 'react-router'
import { errorData } from '#app/components/error-boundary.tsx'
import { errorPageMeta } from '#app/features/seo/meta.ts'

export function loader() {
  throw data(errorData('Page not found', 'We could not find the page you asked for.'), { status: 404 })
}

export const meta = () => errorPageMeta()

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'

/** Never rendered: the loader always answers (a redirect or a 404 shown by the error boundary). */
export default function Unreachable() {
  return null
}
