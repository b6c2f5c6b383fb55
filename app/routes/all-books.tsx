import { CatalogBrowser } from '#app/compositions/catalog-browser.tsx'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { browseCatalog } from '#app/features/catalog/browse.server.ts'
import { redirect } from 'react-router'
import { CATALOG_PAGE_SIZE, catalogUrl, parseCatalogParams } from '#app/features/catalog/facets.ts'
import { bookListJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pagedTitle, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/all-books'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('All eBooks are unavailable')
  const origin = publicOrigin(args.matches)
  const title = `All eBooks (${loaderData.total})`
  return pageMeta(args, {
    title: pagedTitle(title, args.location.search),
    description:
      'Every computer-science eBook in the CodeBook store, with ratings, prices and instant downloads.',
    // Filters and sort orders show the same books again: one canonical URL per page of the catalogue.
    path: '/AllBooks',
    keepParams: ['page'],
    jsonLd: origin
      ? [
          bookListJsonLd(origin, {
            name: title,
            books: loaderData.books,
            offset: (loaderData.query.page - 1) * CATALOG_PAGE_SIZE,
          }),
        ]
      : [],
  })
}

/** The faceted catalogue (docs/decisions/019): filters, sort and page from the URL; bad values are ignored, a page past the last goes to the first. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const state = parseCatalogParams(new URL(request.url).searchParams)
  const page = await browseCatalog(db, state)
  // Past the last page: start again from the first.
  if (page.query.page !== state.page) throw redirect(catalogUrl('/AllBooks', { ...page.query, page: 1 }))
  return page
}

export default function AllBooks({ loaderData }: Route.ComponentProps) {
  return (
    <section className="mx-auto max-w-7xl px-4 py-12">
      <SectionHeading level={1}>All eBooks ({loaderData.total})</SectionHeading>
      <CatalogBrowser result={loaderData} path="/AllBooks" />
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
