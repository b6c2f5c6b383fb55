import { BookAction } from '#app/components/book-action.tsx'
import { recordEvent } from '#app/features/analytics/record.server.ts'
import { bookNotFound } from '#app/features/catalog/book-not-found.server.ts'
import { redirect } from 'react-router'
import { findRenamedBookSlug, getBookBySlug } from '#app/features/catalog/catalog.server.ts'
import { BookBadges } from '#app/features/catalog/components/book-badges.tsx'
import { BookCover } from '#app/features/catalog/components/book-cover.tsx'
import { Description } from '#app/features/catalog/components/description.tsx'
import { parseMarkdown, plainText } from '#app/features/catalog/markdown.ts'
import { StarRating } from '#app/features/catalog/components/star-rating.tsx'
import { formatFileSize, formatPrice } from '#app/features/catalog/format.ts'
import { listFilesOf, purchasedFormats } from '#app/features/library/library.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { isDataRequest } from '#app/server/data-request.ts'
import type { Route } from './+types/book'

export const meta: Route.MetaFunction = ({ loaderData }) =>
  loaderData
    ? [
        { title: `${loaderData.book.title} by ${loaderData.book.author} — CodeBook` },
        { name: 'description', content: loaderData.summary },
      ]
    : [{ title: 'Book not found — CodeBook' }]

export async function loader({ params, context, request, url }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const slug = params.slug.toLowerCase()
  const book = await getBookBySlug(db, slug)
  if (!book) {
    // A book renamed in the back office keeps its old URL, permanently moved.
    const renamed = await findRenamedBookSlug(db, slug)
    if (renamed) throw redirect(`/books/${renamed}`, 301)
    throw bookNotFound()
  }
  const files = (await listFilesOf(db, [book.id])).get(book.id)
  const formats = purchasedFormats.flatMap((format) => {
    const file = files?.get(format)
    return file ? [{ label: format.toUpperCase(), sizeBytes: file.sizeBytes }] : []
  })
  const sample = files?.get('sample')
  // Opened as a document, the host counted the view (server/page-views.ts); this is a client-side navigation.
  if (isDataRequest(request, url))
    recordEvent(getAppContext(context), request, { name: 'view_item', bookId: book.id })
  // The Markdown is parsed here, on the server: the page gets plain data to render, the browser no parser.
  const { description, ...rest } = book
  return {
    book: rest,
    descriptionBlocks: parseMarkdown(description),
    summary: plainText(description),
    formats,
    sampleSizeBytes: sample?.sizeBytes ?? null,
  }
}

export default function BookDetails({ loaderData }: Route.ComponentProps) {
  const { book, descriptionBlocks, formats, sampleSizeBytes } = loaderData
  return (
    <article
      id={`book-${book.id}`}
      className="mx-auto grid max-w-6xl gap-10 px-4 py-12 md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]"
    >
      <BookCover
        cover={book.cover}
        coverPath={book.coverPath}
        alt={book.coverAlt}
        sizes="(min-width: 768px) 384px, min(384px, 100vw - 2rem)"
        eager
        className="mx-auto h-auto w-full max-w-sm rounded-lg shadow-lg"
      />
      <div className="flex flex-col gap-5">
        <div>
          <h1 className="text-4xl font-bold">{book.title}</h1>
          <p className="mt-2 text-lg text-slate-600 dark:text-slate-300">by {book.author}</p>
        </div>
        <Description blocks={descriptionBlocks} />
        <StarRating rating={book.rating} />
        <BookBadges bestSeller={book.bestSeller} available={book.available} formats={formats} />
        <p className="text-3xl font-semibold">
          <span className="sr-only">Price: </span>
          {formatPrice(book.priceCents, book.currency)}
        </p>
        <div className="flex flex-wrap items-center gap-x-6 gap-y-3">
          <BookAction bookId={book.id} size="large" />
          {sampleSizeBytes ? (
            // No `download` attribute: Content-Disposition saves the file; an error answer is then shown
            // as a page instead of ending as a failed download (see routes/library.tsx).
            <a
              href={`/books/${book.slug}/sample.pdf`}
              className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
            >
              Free sample: the first chapter (PDF, {formatFileSize(sampleSizeBytes)})
            </a>
          ) : null}
        </div>
      </div>
    </article>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
