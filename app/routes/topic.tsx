import { data, Link, redirect } from 'react-router'
import { CatalogBrowser } from '#app/compositions/catalog-browser.tsx'
import { errorData } from '#app/components/error-boundary.tsx'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { browseCatalog, findPublishedTopic } from '#app/features/catalog/browse.server.ts'
import {
  CATALOG_PAGE_SIZE,
  catalogUrl,
  parseCatalogParams,
  parseTopic,
  topicPath,
} from '#app/features/catalog/facets.ts'
import { findRenamedTopicSlug } from '#app/features/catalog/topics.server.ts'
import { topicTrail } from '#app/features/seo/breadcrumbs.ts'
import { Breadcrumbs } from '#app/features/seo/components/breadcrumbs.tsx'
import { bookListJsonLd, breadcrumbJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, publicOrigin, topicPageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/topic'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('Page not found')
  const origin = publicOrigin(args.matches)
  const topic = { slug: loaderData.slug, name: loaderData.name, bookCount: loaderData.total }
  return topicPageMeta(
    args,
    topic,
    origin
      ? [
          bookListJsonLd(origin, {
            name: `${topic.name} eBooks`,
            books: loaderData.books,
            offset: (loaderData.query.page - 1) * CATALOG_PAGE_SIZE,
          }),
          breadcrumbJsonLd(origin, topicTrail({ name: topic.name, path: topicPath(topic.slug) })),
        ]
      : [],
  )
}

/**
 * A topic's books, with the catalogue's other facets (docs/decisions/019); a renamed or merged topic's old slug
 * answers 301 to its page; 404 for a topic no book has.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const url = new URL(request.url)
  const slug = parseTopic(params.slug)
  const found = slug ? await findPublishedTopic(db, slug) : undefined
  if (!found) {
    const renamed = slug ? await findRenamedTopicSlug(db, slug) : undefined
    if (renamed) throw redirect(`${topicPath(renamed)}${url.search}`, 301)
    throw data(errorData('Page not found', 'We could not find the page you asked for.'), { status: 404 })
  }
  const topic = found.slug
  const query = parseCatalogParams(url.searchParams)
  const page = await browseCatalog(db, { ...query, filters: { ...query.filters, topic } })
  // Past the last page: start again from the first.
  if (page.query.page !== query.page)
    throw redirect(
      catalogUrl(topicPath(topic), {
        ...page.query,
        filters: { ...page.query.filters, topic: null },
        page: 1,
      }),
    )
  return { ...page, slug: topic, name: found.name }
}

export default function Topic({ loaderData }: Route.ComponentProps) {
  const { slug, name, total } = loaderData
  return (
    <section className="mx-auto max-w-7xl px-4 pt-6 pb-12">
      <Breadcrumbs trail={topicTrail({ name, path: topicPath(slug) })} className="mb-6" />
      <SectionHeading level={1}>
        {name} ({total})
      </SectionHeading>
      <p className="-mt-4 mb-8 text-center">
        <Link to="/topics" className="font-medium text-blue-700 underline dark:text-sky-300">
          All topics
        </Link>
      </p>
      <CatalogBrowser result={loaderData} path={topicPath(slug)} fixedTopic />
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
