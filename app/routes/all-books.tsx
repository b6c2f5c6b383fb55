import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { readAllBooks } from '#app/features/catalog/catalog-cache.server.ts'
import { bookListJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pagedTitle, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { BookGrid } from '#app/components/book-grid.tsx'
import type { Route } from './+types/all-books'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('All eBooks are unavailable')
  const origin = publicOrigin(args.matches)
  const title = `All eBooks (${loaderData.books.length})`
  return pageMeta(args, {
    title: pagedTitle(title, args.location.search),
    description:
      'Every computer-science eBook in the CodeBook store, with ratings, prices and instant downloads.',
    // Filters and sort orders show the same books again: one canonical URL per page of the catalogue.
    path: '/AllBooks',
    keepParams: ['page', 'after'],
    jsonLd: origin ? [bookListJsonLd(origin, { name: title, books: loaderData.books })] : [],
  })
}

export async function loader({ context }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  return { books: await readAllBooks(db) }
}

export default function AllBooks({ loaderData }: Route.ComponentProps) {
  const { books } = loaderData
  return (
    <section className="mx-auto max-w-7xl px-4 py-12">
      <SectionHeading level={1}>All eBooks ({books.length})</SectionHeading>
      <BookGrid books={books} headingLevel={2} eagerCount={3} />
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
