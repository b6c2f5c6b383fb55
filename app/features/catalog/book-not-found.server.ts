import { data } from 'react-router'
import { errorData } from '#app/components/error-boundary.tsx'

/** What every book URL throws when it names no book: a real 404 rendered inside the store's layout. */
export function bookNotFound() {
  return data(
    errorData(
      'Book not found',
      'We could not find that eBook. It may have moved, or the link may be mistyped.',
    ),
    { status: 404 },
  )
}
