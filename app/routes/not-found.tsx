import { data } from 'react-router'
import { errorData } from '#app/components/error-boundary.tsx'

export function loader() {
  throw data(errorData('Page not found', 'We could not find the page you asked for.'), { status: 404 })
}

export const meta = () => [{ title: 'Page not found — CodeBook' }]

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'

/** Never rendered: the loader always answers (a redirect or a 404 shown by the error boundary). */
export default function Unreachable() {
  return null
}
