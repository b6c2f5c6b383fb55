import { expect, test } from 'vitest'
import { elementOf, renderRoute } from '#tests/render-route.ts'
import { SiteHeader } from './site-header.tsx'

/** The cart link named `name` in the header of a visitor whose cart holds these books. */
function cartLink(cartBookIds: string[], name: string) {
  const html = renderRoute({
    Component: SiteHeader,
    pattern: '',
    path: '/',
    loaderData: {},
    rootData: { cartBookIds },
  })
  const at = html.indexOf(`aria-label="${name}"`)
  return at < 0 ? undefined : elementOf(html.slice(html.lastIndexOf('<a ', at)), '<a ')
}

test('the cart badge is the number of books in the cart; an empty cart shows no badge, and its link still says 0', () => {
  const empty = cartLink([], 'Cart, 0 books')
  expect(empty, 'the cart link names the count').toBeDefined()
  expect(empty).not.toMatch(/<span[^>]*>0<\/span>/)
  const two = cartLink(['a', 'b'], 'Cart, 2 books')
  expect(two).toMatch(/<span aria-hidden="true"[^>]*>2<\/span>/)
  expect(cartLink(['a'], 'Cart, 1 book')).toMatch(/>1<\/span>/)
})
