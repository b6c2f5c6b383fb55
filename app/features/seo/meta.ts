import type { MetaDescriptor } from 'react-router'

/**
 * Every page's <head> for search engines and link previews: title, description, canonical URL, robots, Open
 * Graph, Twitter card and JSON-LD, made from one description of the page (docs/decisions/020-seo.md). Routes
 * call `pageMeta` (public pages) or `privatePageMeta` (noindex) from their `meta` export. No server imports:
 * React Router runs `meta` in the browser too, after a client-side navigation.
 */

/** The store's name until its owner sets another (the settings' default); pages take the set one from the root. */
export const SITE_NAME = 'CodeBook'

/** Served by routes/og-image.ts: the store's own 1200×630 image, for pages that are not a book's. */
export const DEFAULT_OG_IMAGE = {
  path: '/og-image.png',
  width: 1200,
  height: 630,
  alt: 'CodeBook — the eBook store for computer science',
}

export type OgImage = { path: string; width: number; height: number; alt: string }

export type PublicPage = {
  /** Without the site's name: ' — CodeBook' is added. */
  title: string
  description: string
  /** The canonical URL's path as the store links it ('/AllBooks', '/books/<slug>'). */
  path: string
  /** The query parameters that make another page (page numbers, the search); every other one is dropped. */
  keepParams?: readonly string[]
  image?: OgImage
  /** Open Graph's type: 'website' for the store's pages, 'book' for a book's. */
  type?: 'website' | 'book'
  /** schema.org documents, each rendered as <script type="application/ld+json"> (React Router escapes `<`). */
  jsonLd?: readonly object[]
}

/** What a route's `meta` function receives that this module reads. */
export type MetaArgs = {
  location: { search: string }
  matches: ReadonlyArray<{ id: string; loaderData?: unknown } | undefined>
}

/** The store's public origin (BETTER_AUTH_URL, or http://localhost:PORT), as the root loader tells it. */
export function publicOrigin(matches: MetaArgs['matches']): string | undefined {
  const root = matches.find((match) => match?.id === 'root')?.loaderData
  if (root && typeof root === 'object' && 'publicOrigin' in root && typeof root.publicOrigin === 'string')
    return root.publicOrigin
  return undefined
}

/** The store's name from its settings, as the root loader tells it; the default where the root did not load. */
export function siteName(matches: MetaArgs['matches'] | undefined): string {
  const root = matches?.find((match) => match?.id === 'root')?.loaderData
  const store = root && typeof root === 'object' && 'store' in root ? root.store : undefined
  if (store && typeof store === 'object' && 'storeName' in store && typeof store.storeName === 'string')
    return store.storeName
  return SITE_NAME
}

/**
 * The absolute canonical URL: the path as the store spells it (so /allbooks and /AllBooks are one page) and
 * only the parameters in `keep`, in that order; `page=1` is the page itself.
 */
export function canonicalUrl(
  origin: string,
  path: string,
  search = '',
  keep: readonly string[] = [],
): string {
  const given = new URLSearchParams(search)
  const kept = new URLSearchParams()
  for (const name of keep) {
    const value = given.get(name)?.trim()
    if (!value || (name === 'page' && value === '1')) continue
    kept.set(name, value)
  }
  const query = kept.size > 0 ? `?${kept}` : ''
  return `${origin}${path}${query}`
}

/** A list's title on its later pages ('All eBooks (7), page 2'): each page of a list has its own title. */
export function pagedTitle(title: string, search: string): string {
  const page = Number(new URLSearchParams(search).get('page'))
  return Number.isSafeInteger(page) && page > 1 ? `${title}, page ${page}` : title
}

export function pageTitle(title: string, site = SITE_NAME): string {
  return `${title} — ${site}`
}

/** A page for everyone: the whole set of tags. Without a known origin (the database was down), no URLs. */
export function pageMeta(args: MetaArgs, page: PublicPage): MetaDescriptor[] {
  const site = siteName(args.matches)
  const title = pageTitle(page.title, site)
  const description = clip(page.description, 300)
  const tags: MetaDescriptor[] = [{ title }, { name: 'description', content: description }]
  const origin = publicOrigin(args.matches)
  if (!origin) return tags
  const url = canonicalUrl(origin, page.path, args.location.search, page.keepParams)
  const image = page.image ?? DEFAULT_OG_IMAGE
  const imageUrl = `${origin}${image.path}`
  tags.push(
    { tagName: 'link', rel: 'canonical', href: url },
    { property: 'og:site_name', content: site },
    { property: 'og:type', content: page.type ?? 'website' },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { property: 'og:url', content: url },
    { property: 'og:image', content: imageUrl },
    { property: 'og:image:type', content: 'image/png' },
    { property: 'og:image:width', content: String(image.width) },
    { property: 'og:image:height', content: String(image.height) },
    { property: 'og:image:alt', content: image.alt },
    { name: 'twitter:card', content: 'summary_large_image' },
    { name: 'twitter:title', content: title },
    { name: 'twitter:description', content: description },
    { name: 'twitter:image', content: imageUrl },
    { name: 'twitter:image:alt', content: image.alt },
  )
  for (const document of page.jsonLd ?? []) tags.push({ 'script:ld+json': document })
  return tags
}

/**
 * A page that is someone's own (cart, account, checkout, sign-in, back office): titled, never indexed. With the
 * meta function's `args`, the title ends with the store's name from its settings.
 */
export function privatePageMeta(
  title: string,
  description: string,
  args?: Pick<MetaArgs, 'matches'>,
): MetaDescriptor[] {
  return [
    { title: pageTitle(title, siteName(args?.matches)) },
    { name: 'description', content: description },
    { name: 'robots', content: 'noindex' },
  ]
}

/** An error shown by a route's boundary (404, 503…): its own title, and not a page to index. */
export function errorPageMeta(title = 'Page not found', args?: Pick<MetaArgs, 'matches'>): MetaDescriptor[] {
  const site = siteName(args?.matches)
  return [
    { title: pageTitle(title, site) },
    { name: 'description', content: `This page of the ${site} store could not be shown.` },
    { name: 'robots', content: 'noindex' },
  ]
}

/** For topic pages (/topics/<slug>): the lead wires it in; the list's JSON-LD comes from json-ld.ts. */
export function topicPageMeta(
  args: MetaArgs,
  topic: { slug: string; name: string; bookCount: number },
  jsonLd: readonly object[] = [],
): MetaDescriptor[] {
  return pageMeta(args, {
    title: pagedTitle(`${topic.name} eBooks`, args.location.search),
    description: `${topic.bookCount} computer-science eBook${topic.bookCount === 1 ? '' : 's'} about ${topic.name} in the ${siteName(args.matches)} store, with readers’ ratings, prices and instant downloads.`,
    path: `/topics/${topic.slug}`,
    keepParams: ['page'],
    jsonLd,
  })
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (flat.length <= max) return flat
  const cut = flat.slice(0, max - 1)
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2))}…`
}
