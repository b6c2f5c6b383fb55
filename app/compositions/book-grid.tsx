import type { BookCard as BookCardData } from '#app/features/catalog/catalog.server.ts'
import { BookCard } from '#app/features/catalog/components/book-card.tsx'
import { BookAction } from './book-action.tsx'

/**
 * Books as cards, each with its cart button (or 'In your library'): the catalogue's card and the cart's
 * button, composed here so that neither feature knows the other. The first `eagerCount` covers load first (likely the largest paint).
 */
export function BookGrid({
  books,
  headingLevel,
  eagerCount = 0,
}: {
  books: BookCardData[]
  headingLevel: 2 | 3
  eagerCount?: number
}) {
  return (
    <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      {books.map((book, index) => (
        <BookCard
          key={book.id}
          book={book}
          headingLevel={headingLevel}
          eager={index < eagerCount}
          action={<BookAction bookId={book.id} title={book.title} />}
        />
      ))}
    </div>
  )
}
