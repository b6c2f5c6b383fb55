import { data, Link, redirect } from 'react-router'
import { BookAction } from '#app/compositions/book-action.tsx'
import { authorPath } from '#app/features/authors/author-photo.ts'
import { getBookAuthor } from '#app/features/authors/authors.server.ts'
import { AboutAuthor } from '#app/features/authors/components/about-author.tsx'
import { recordBookView } from '#app/features/analytics/record.server.ts'
import { listAlsoBought } from '#app/features/catalog/also-bought.server.ts'
import { bookNotFound } from '#app/features/catalog/book-not-found.server.ts'
import { findRenamedBookSlug, getBookBySlug } from '#app/features/catalog/catalog.server.ts'
import { AlsoBought } from '#app/features/catalog/components/also-bought.tsx'
import { listBundlesWithBook } from '#app/features/bundles/bundles.server.ts'
import { BundlesWithBook } from '#app/features/bundles/components/bundles-with-book.tsx'
import { BookBadges } from '#app/features/catalog/components/book-badges.tsx'
import { BookCover } from '#app/features/catalog/components/book-cover.tsx'
import { Description } from '#app/features/catalog/components/description.tsx'
import { EbookOffer } from '#app/features/catalog/components/ebook-offer.tsx'
import { PayWhatYouWantForm } from '#app/features/pricing/components/pay-what-you-want-form.tsx'
import { refusedAmountOf } from '#app/features/pricing/pay-what-you-want.ts'
import { StarRating } from '#app/features/catalog/components/star-rating.tsx'
import { TopicLinks } from '#app/features/catalog/components/topic-links.tsx'
import { formatFileSize, formatPrice } from '#app/features/catalog/format.ts'
import { getTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import { parseMarkdown, plainText } from '#app/features/catalog/markdown.ts'
import { shownRating } from '#app/features/catalog/rating.ts'
import { ErrataSection } from '#app/features/errata/components/errata-section.tsx'
import { listBookErrata, reportErratumFromForm } from '#app/features/errata/errata.server.ts'
import { getSessionUser, requireUser } from '#app/features/identity/session.server.ts'
import { getEditionDetails } from '#app/features/library/book-contents.server.ts'
import { EditionFacts } from '#app/features/library/components/edition-facts.tsx'
import { getOwnership, listFilesOf, purchasedFormats } from '#app/features/library/library.server.ts'
import { findReaderBook } from '#app/features/reader/reader-books.server.ts'
import { getReviewViewer, handleReviewIntent } from '#app/features/reviews/book-reviews.server.ts'
import { ReviewsSection } from '#app/features/reviews/components/reviews-section.tsx'
import { bookAccessibilityJsonLd } from '#app/features/library/editions/accessibility.ts'
import { bookJsonLd } from '#app/features/reviews/json-ld.ts'
import { listPublicReviews } from '#app/features/reviews/review-page-cache.server.ts'
import {
  REVIEW_PAGES_MAX,
  REVIEWS_PER_PAGE,
  parseReviewListParams,
} from '#app/features/reviews/review-form.ts'
import { listReviews } from '#app/features/reviews/reviews.server.ts'
import { bookTrail } from '#app/features/seo/breadcrumbs.ts'
import { Breadcrumbs } from '#app/features/seo/components/breadcrumbs.tsx'
import { breadcrumbJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { bookOgImage } from '#app/features/seo/og-image.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { passOnRetryAfter } from '#app/sign-in.server.ts'
import type { Route } from './+types/book'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('Book not found')
  const { book, rating, reviews, summary, author } = loaderData
  const origin = publicOrigin(args.matches)
  const path = `/books/${book.slug}`
  const image = bookOgImage({ ...book, price: formatPrice(book.priceCents, book.currency) })
  return pageMeta(args, {
    title: `${book.title} by ${book.author}`,
    description: summary,
    path,
    type: 'book',
    image,
    jsonLd: origin
      ? [
          {
            ...bookJsonLd(
              { ...book, url: `${origin}${path}`, authorUrl: `${origin}${authorPath(author.slug)}` },
              rating,
              reviews,
            ),
            description: summary,
            image: `${origin}${image.path}`,
            ...bookAccessibilityJsonLd(),
          },
          breadcrumbJsonLd(origin, bookTrail(book)),
        ]
      : [],
  })
}

/** A refused review post's Retry-After (429) reaches the browser. */
export const headers: Route.HeadersFunction = passOnRetryAfter

export async function loader({ params, context, request, url }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const slug = params.slug.toLowerCase()
  const [book, user] = await Promise.all([getBookBySlug(db, slug), getSessionUser({ request, context })])
  if (!book) {
    // A book renamed in the back office keeps its old URL, permanently moved.
    const renamed = await findRenamedBookSlug(db, slug)
    if (renamed) throw redirect(`/books/${renamed}`, 301)
    throw bookNotFound()
  }
  recordBookView(getAppContext(context), request, url, book.id)
  // The Markdown is parsed here, on the server: the page gets plain data to render, the browser no parser.
  const { description, ...rest } = book
  const rating = shownRating(book)
  // The totals are the book's own columns (kept on write): one page of rows is all this page reads.
  const pages = Math.min(REVIEW_PAGES_MAX, Math.max(1, Math.ceil(book.ratingCount / REVIEWS_PER_PAGE)))
  const list = parseReviewListParams(url.searchParams)
  const page = Math.min(list.page, pages)
  const viewerId = user && !user.isGuest ? user.id : undefined
  // Everything else the page reads depends only on the book and the viewer: one round of queries, in parallel.
  const [filesByBook, reviews, viewer, edition, alsoBought, bookAuthor, errata, bundles, tax] =
    await Promise.all([
      listFilesOf(db, [book.id]),
      book.ratingCount === 0
        ? Promise.resolve([])
        : viewerId
          ? listReviews(db, { bookId: book.id, sort: list.sort, page, viewerId })
          : listPublicReviews(db, book, { sort: list.sort, page }),
      getReviewViewer(context, db, {
        userId: viewerId,
        bookId: book.id,
        loginTo: `/login?${new URLSearchParams({ redirectTo: `/books/${book.slug}` })}`,
      }),
      // The live edition's facts and contents, the books bought with this one, and who wrote it.
      getEditionDetails(db, book.id),
      listAlsoBought(db, book.id),
      getBookAuthor(db, book.authorId),
      listBookErrata(db, book.id, 100),
      // The bundles it is in (issue 30).
      listBundlesWithBook(db, book.id),
      // Whether the price includes tax (issue 31): the same for every visitor, so the page stays cacheable.
      getTaxSettings(db),
    ])
  const files = filesByBook.get(book.id)
  const formats = purchasedFormats.flatMap((format) => {
    const file = files?.get(format)
    return file ? [{ label: format.toUpperCase(), sizeBytes: file.sizeBytes }] : []
  })
  const sample = files?.get('sample')
  const bio = parseMarkdown(bookAuthor?.bio ?? '')
  return {
    pricesIncludeTax: tax.pricesIncludeTax,
    edition,
    alsoBought,
    bundles,
    author: {
      slug: bookAuthor?.slug ?? '',
      name: bookAuthor?.name ?? book.author,
      photo: bookAuthor?.photo ?? null,
      firstParagraph: bio.find((block) => block.type === 'paragraph') ?? null,
    },
    book: rest,
    descriptionBlocks: parseMarkdown(description),
    summary: plainText(description),
    formats,
    sampleSizeBytes: sample?.sizeBytes ?? null,
    rating,
    histogram: book.ratingHistogram,
    reviews,
    sort: list.sort,
    page,
    pages,
    viewer,
    errata,
    erratumSent: url.searchParams.get('erratum') === 'sent',
    // A refused pay-what-you-want amount comes back here with its reason and what was typed (issue 30).
    pwyw: refusedAmountOf(url.searchParams, book),
  }
}

/**
 * The review forms (write, delete, vote helpful, report): a signed-in account only (others are sent to log
 * in); the reviews feature says what each comes to.
 */
export async function action({ params, context, request, url }: Route.ActionArgs) {
  const { db } = getAppContext(context)
  const user = await requireUser({ request, context, url })
  const book = await getBookBySlug(db, params.slug.toLowerCase())
  if (!book) throw bookNotFound()
  const form = await readForm(request)
  if (form.get('intent') === 'report-erratum') {
    const [owned, readable] = await Promise.all([
      getOwnership(db, user.id, book.id),
      findReaderBook(db, book.slug),
    ])
    const reported = await reportErratumFromForm(db, {
      book: { id: book.id, status: book.status, edition: readable?.edition ?? 1 },
      reporterId: user.id,
      owner: owned !== null,
      clientIp: getAppContext(context).clientIp,
      form,
    })
    if (reported.ok) return redirect(`/books/${book.slug}?erratum=sent#errata`, 303)
    const { ok: _ok, status, retryAfterSeconds, ...body } = reported
    const headers = retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : undefined
    return data(body, { status, headers })
  }
  const outcome = await handleReviewIntent(db, { userId: user.id, bookId: book.id, form })
  if (outcome.ok) return redirect(`/books/${book.slug}${url.search}#reviews`, 303)
  const { ok: _ok, status, retryAfterSeconds, ...body } = outcome
  const headers = retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : undefined
  return data(body, { status, headers })
}

export default function BookDetails({ loaderData, actionData }: Route.ComponentProps) {
  const { book, descriptionBlocks, formats, sampleSizeBytes, rating } = loaderData
  return (
    <>
      <Breadcrumbs trail={bookTrail(book)} className="mx-auto max-w-6xl px-4 pt-6" />
      <article
        id={`book-${book.id}`}
        className="mx-auto grid max-w-6xl gap-10 px-4 pt-6 pb-12 md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]"
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
            <p className="mt-2 text-lg text-slate-600 dark:text-slate-300">
              by{' '}
              <Link
                to={authorPath(loaderData.author.slug)}
                className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
              >
                {loaderData.author.name}
              </Link>
            </p>
          </div>
          <Description blocks={descriptionBlocks} />
          <StarRating rating={rating} />
          <BookBadges bestSeller={book.bestSeller} available={book.available} formats={formats} />
          <TopicLinks topics={book.topics} />
          <div className="flex flex-col gap-1">
            <p className="text-3xl font-semibold">
              <span className="sr-only">Price: </span>
              {formatPrice(book.priceCents, book.currency)}
            </p>
            <EbookOffer formats={formats} />
            <p className="text-sm text-slate-600 dark:text-slate-300">
              {loaderData.pricesIncludeTax
                ? 'Includes VAT where it applies.'
                : 'Before tax: your country’s tax is added at checkout.'}
            </p>
          </div>
          <BundlesWithBook bundles={loaderData.bundles} />
          {book.pwywMinCents !== null && loaderData.viewer.kind !== 'owner' && book.available ? (
            <PayWhatYouWantForm
              book={{ ...book, pwywMinCents: book.pwywMinCents }}
              error={loaderData.pwyw.error}
              typed={loaderData.pwyw.typed}
            />
          ) : null}
          <div className="flex flex-wrap items-center gap-x-6 gap-y-3">
            <BookAction bookId={book.id} title={book.title} size="large" />
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
            {loaderData.viewer.kind === 'owner' ? (
              <Link
                reloadDocument
                to={`/read/${book.slug}`}
                className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
              >
                Read it online
              </Link>
            ) : book.status === 'published' && formats.some((format) => format.label === 'EPUB') ? (
              // The reader's sample is made from the EPUB's manuscript (read-epub.ts), not the PDF sample.
              <Link
                reloadDocument
                to={`/read/${book.slug}/sample`}
                className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
              >
                Read the sample online
              </Link>
            ) : null}
            {book.available && book.status === 'published' ? (
              // Anyone may give it, an owner too (issue 30): the gift's form asks who receives it.
              <Link
                to={`/gift/books/${book.slug}`}
                className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
              >
                Give as a gift
              </Link>
            ) : null}
          </div>
        </div>
      </article>
      <EditionFacts details={loaderData.edition} level={book.level} />
      <AboutAuthor author={loaderData.author} />
      <AlsoBought books={loaderData.alsoBought} />
      <ErrataSection
        slug={book.slug}
        errata={loaderData.errata}
        canReport={loaderData.viewer.kind === 'owner'}
        sent={loaderData.erratumSent}
        actionData={actionData && 'erratumValues' in actionData ? actionData : undefined}
      />
      <ReviewsSection
        slug={book.slug}
        rating={rating}
        histogram={loaderData.histogram}
        reviews={loaderData.reviews}
        sort={loaderData.sort}
        page={loaderData.page}
        pages={loaderData.pages}
        viewer={loaderData.viewer}
        actionData={actionData && !('erratumValues' in actionData) ? actionData : undefined}
      />
    </>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
