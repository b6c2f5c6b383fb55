import { isRouteErrorResponse, Link, useRouteError } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'

export type ErrorData = { title: string; message: string }

/** Builds the body a route throws for an expected failure (404, 403…): the boundary shows it kindly. */
export function errorData(title: string, message: string): ErrorData {
  return { title, message }
}

const statusMessages: Partial<Record<number, string>> = {
  404: 'We could not find the page you asked for.',
  // React Router's answer to a form posted to a page that takes none (server/error-page.ts says the same).
  405: 'This address does not take that kind of request.',
}

/** The one error boundary every route uses; shows expected failures kindly, hides details of the rest. */
export function GeneralErrorBoundary() {
  const error = useRouteError()
  let title = 'Something went wrong'
  let message = 'An unexpected error occurred. Please try again in a moment.'
  if (isRouteErrorResponse(error)) {
    const data = error.data as Partial<ErrorData> | undefined
    title = data?.title ?? (error.status === 404 ? 'Page not found' : `${error.status} ${error.statusText}`)
    message = data?.message ?? statusMessages[error.status] ?? message
  } else if (import.meta.env.DEV && error instanceof Error) {
    message = error.stack ?? error.message
  }
  return (
    <section className="mx-auto flex max-w-2xl flex-col items-center gap-6 px-4 py-24 text-center">
      <h1 className="text-4xl font-bold">{title}</h1>
      <p className="whitespace-pre-wrap text-lg text-slate-600 dark:text-slate-300">{message}</p>
      <Link to="/AllBooks" className={primaryButton}>
        Browse all eBooks
      </Link>
    </section>
  )
}
