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

test('a book two bundles in the cart bring is counted once', () => {
  const ids = ['a', 'bundle:one:b', 'bundle:one:c', 'bundle:two:c', 'bundle:two:d']
  expect(cartLink(ids, 'Cart, 4 books')).toMatch(/>4<\/span>/)
})

test('a visible row of sections on every page: Browse, Topics, New and Search', () => {
  const html = renderRoute({ Component: SiteHeader, pattern: '', path: '/', loaderData: {}, rootData: {} })
  const nav = elementOf(html, '<nav aria-label="Sections"')
  expect(nav, 'the sections nav').toBeDefined()
  const links = [...nav!.matchAll(/<a [^>]*href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((match) => [
    match[2],
    match[1]!.replace(/&amp;/g, '&'),
  ])
  expect(links).toEqual([
    ['Browse', '/AllBooks'],
    ['Topics', '/topics'],
    ['New', '/AllBooks?sort=newest'],
    ['Search', '/search'],
  ])
  // Never hidden behind a menu or a breakpoint.
  expect(nav).not.toMatch(/class="[^"]*\bhidden\b/)
})
