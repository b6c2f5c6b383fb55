import { Link } from 'react-router'
import type { AlsoBoughtBook } from '../also-bought.server.ts'
import { formatPrice } from '../format.ts'
import { BookCover } from './book-cover.tsx'

/** 'Readers also bought': the books bought with this one, most often first; nothing when there are none. */
export function AlsoBought({ books }: { books: AlsoBoughtBook[] }) {
  if (books.length === 0) return null
  return (
    <section aria-labelledby="also-bought-heading" className="mx-auto max-w-6xl px-4 pb-12">
      <h2 id="also-bought-heading" className="mb-6 text-2xl font-semibold">
        Readers also bought
      </h2>
      <ul className="grid grid-cols-2 gap-6 md:grid-cols-4">
        {books.map((book) => (
          <li key={book.id} className="flex flex-col gap-2">
            <BookCover
              cover={book.cover}
              coverPath={book.coverPath}
              alt=""
              sizes="(min-width: 768px) 200px, 45vw"
              className="aspect-[2/3] h-auto w-full max-w-[12rem] rounded-md object-cover shadow-md"
            />
            <Link
              to={`/books/${book.slug}`}
              className="font-semibold text-blue-700 underline-offset-4 hover:underline dark:text-sky-300"
            >
              {book.title}
            </Link>
            <p className="text-sm text-slate-600 dark:text-slate-300">by {book.author}</p>
            <p>
              <span className="sr-only">Price: </span>
              {formatPrice(book.priceCents, book.currency)}
            </p>
          </li>
        ))}
      </ul>
    </section>
  )
}
