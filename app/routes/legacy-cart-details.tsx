import { redirect } from 'react-router'

// The seed's cart URL: the cart now lives at /cart.
export function loader() {
  throw redirect('/cart', 301)
}

/** Never rendered: the loader always redirects. */
export default function Unreachable() {
  return null
}
