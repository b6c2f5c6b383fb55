import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { readAllBooks } from '#app/features/catalog/catalog-cache.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { BookGrid } from '#app/components/book-grid.tsx'
import type { Route } from './+types/all-books'

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: `All eBooks (${loaderData?.books.length ?? 0}) — CodeBook` },
  {
    name: 'description',
    content:
      'Every computer-science eBook in the CodeBook store, with ratings, prices and instant downloads.',
  },
]

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
