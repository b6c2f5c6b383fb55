import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { readAllBooks } from '#app/features/catalog/catalog-cache.server.ts'
import { CartButton } from '#app/features/cart/components/cart-button.tsx'
import { BookCard } from '#app/features/catalog/components/book-card.tsx'
import { getAppContext } from '#app/server/context.server.ts'
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
      <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
        {books.map((book, index) => (
          <BookCard
            key={book.id}
            book={book}
            headingLevel={2}
            eager={index < 3}
            action={<CartButton bookId={book.id} />}
          />
        ))}
      </div>
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
