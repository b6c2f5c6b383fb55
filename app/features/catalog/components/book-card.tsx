import { Link } from 'react-router'
import type { ReactNode } from 'react'
import type { BookCard as BookCardData } from '../catalog.server.ts'
import { formatPrice } from '../format.ts'
import { BookCover } from './book-cover.tsx'
import { shownRating } from '../rating.ts'
import { StarRating } from './star-rating.tsx'

/**
 * A book in a grid. `headingLevel`: one below the grid's own heading. `eager`: the first cards of a page are
 * likely its largest paint, so they load first.
 */
export function BookCard({
  book,
  headingLevel,
  eager = false,
  action,
}: {
  book: BookCardData
  headingLevel: 2 | 3
  eager?: boolean
  /** What the visitor can do with the book (the cart's button); the catalogue does not know the cart. */
  action?: ReactNode
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  return (
    <article
      id={`book-${book.id}`}
      className="flex scroll-mt-4 flex-col overflow-hidden rounded-lg border border-slate-200 bg-white shadow-md dark:border-gray-700 dark:bg-slate-800 dark:shadow-gray-900/50"
    >
      <Link
        to={`/books/${book.slug}`}
        tabIndex={-1}
        aria-hidden="true"
        className="block bg-slate-100 dark:bg-slate-900"
      >
        <BookCover
          cover={book.cover}
          coverPath={book.coverPath}
          alt=""
          sizes="256px"
          eager={eager}
          className="mx-auto aspect-[2/3] h-auto w-full max-w-[16rem] object-cover"
        />
      </Link>
      <div className="flex flex-1 flex-col gap-3 p-5">
        <Heading className="text-xl font-bold">
          <Link to={`/books/${book.slug}`} className="hover:underline">
            {book.title}
          </Link>
        </Heading>
        <p className="line-clamp-3 text-slate-600 dark:text-slate-300">{book.description}</p>
        <StarRating rating={shownRating(book)} />
        <div className="mt-auto flex items-center justify-between pt-2">
          <p className="text-2xl">
            <span className="sr-only">Price: </span>
            {formatPrice(book.priceCents, book.currency)}
          </p>
          {action}
        </div>
      </div>
    </article>
  )
}
