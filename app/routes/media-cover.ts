import { data } from 'react-router'

// Placeholder: built in issue 12.
export function loader() {
  throw data('Not found', { status: 404 })
}
