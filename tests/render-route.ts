import { createElement, type ComponentType } from 'react'
import { renderToString } from 'react-dom/server'
import { createRoutesStub, Outlet } from 'react-router'

/**
 * A page as the server renders it from its loader's data, under a root with the given data (the cart, the
 * user, the theme and the locale that pages read from the root). Returns the HTML with React's text
 * separators removed and apostrophes unescaped, so a test can look for the words a reader sees.
 */
export function renderRoute(options: {
  Component: ComponentType<never>
  /** The route's pattern, e.g. 'books/:slug'. */
  pattern: string
  path: string
  loaderData: unknown
  rootData?: Record<string, unknown>
}) {
  const Stub = createRoutesStub([
    {
      id: 'root',
      path: '/',
      Component: () => createElement(Outlet),
      children: [{ id: 'page', path: options.pattern, Component: options.Component as ComponentType }],
    },
  ])
  const html = renderToString(
    createElement(Stub, {
      initialEntries: [options.path],
      hydrationData: {
        loaderData: { root: options.rootData ?? {}, page: options.loaderData },
      },
    }),
  )
  return html.replace(/<!-- -->/g, '').replace(/&#x27;/g, "'")
}

/** The text of an HTML fragment (tags dropped, runs of white space made one). */
export function textOf(html: string) {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
}

/** The first element in `html` that opens with `opening` (e.g. '<nav aria-label="Breadcrumb"'), whole. */
export function elementOf(html: string, opening: string) {
  const start = html.indexOf(opening)
  if (start < 0) return undefined
  const tag = /^<([a-z0-9]+)/.exec(opening)?.[1]
  if (!tag) return undefined
  let depth = 0
  const pattern = new RegExp(`<(/?)${tag}[\\s>]`, 'g')
  pattern.lastIndex = start
  for (let match = pattern.exec(html); match; match = pattern.exec(html)) {
    depth += match[1] ? -1 : 1
    if (depth === 0) return html.slice(start, html.indexOf('>', match.index) + 1)
  }
  return undefined
}
