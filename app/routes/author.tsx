import { data, Link, redirect } from 'react-router'
import { errorData } from '#app/components/error-boundary.tsx'
import { BookGrid } from '#app/compositions/book-grid.tsx'
import { AUTHOR_PHOTO_WIDTHS, authorPath, authorPhotoUrl } from '#app/features/authors/author-photo.ts'
import { findRenamedAuthorSlug, getAuthorPage } from '#app/features/authors/authors.server.ts'
import { AuthorPhoto } from '#app/features/authors/components/author-photo.tsx'
import { Description } from '#app/features/catalog/components/description.tsx'
import { parseMarkdown, plainText } from '#app/features/catalog/markdown.ts'
import { authorTrail } from '#app/features/seo/breadcrumbs.ts'
import { Breadcrumbs } from '#app/features/seo/components/breadcrumbs.tsx'
import { authorJsonLd, breadcrumbJsonLd } from '#app/features/seo/json-ld.ts'
import { errorPageMeta, pageMeta, publicOrigin } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/author'

export const meta: Route.MetaFunction = (args) => {
  const { loaderData } = args
  if (!loaderData) return errorPageMeta('Page not found')
  const { author, summary, books, bookCount, photoPath } = loaderData
  const origin = publicOrigin(args.matches)
  const titles = `${bookCount} eBook${bookCount === 1 ? '' : 's'}`
  return pageMeta(args, {
    title: `${author.name}, author`,
    description:
      summary || `${author.name}: ${titles} in the CodeBook store, with ratings and instant downloads.`,
    path: authorPath(author.slug),
    jsonLd: origin
      ? [
          authorJsonLd(origin, {
            ...author,
            description: summary,
            ...(photoPath ? { image: photoPath } : {}),
            books,
          }),
          breadcrumbJsonLd(origin, authorTrail(author)),
        ]
      : [],
  })
}

/** An author's page: who they are and their published books; an old slug (a rename) answers 301. */
export async function loader({ params, context, url }: Route.LoaderArgs) {
  const { db } = getAppContext(context)
  const slug = params.slug.toLowerCase()
  const page = /^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug) ? await getAuthorPage(db, slug) : undefined
  if (!page) {
    const renamed = /^[a-z0-9-]{1,100}$/.test(slug) ? await findRenamedAuthorSlug(db, slug) : undefined
    if (renamed) throw redirect(`${authorPath(renamed)}${url.search}`, 301)
    throw data(errorData('Page not found', 'We could not find the page you asked for.'), { status: 404 })
  }
  const { author, books, bookCount } = page
  const photo = author.photo
  return {
    author: { slug: author.slug, name: author.name, photo },
    bioBlocks: parseMarkdown(author.bio),
    summary: plainText(author.bio),
    photoPath: photo
      ? authorPhotoUrl(
          photo.keyPrefix,
          photo.widths[photo.widths.length - 1] ?? AUTHOR_PHOTO_WIDTHS[0],
          'jpeg',
        )
      : null,
    books,
    bookCount,
  }
}

export default function Author({ loaderData }: Route.ComponentProps) {
  const { author, bioBlocks, books, bookCount } = loaderData
  return (
    <div className="mx-auto max-w-7xl px-4 pt-6 pb-12">
      <Breadcrumbs trail={authorTrail(author)} className="mb-6" />
      <section
        aria-labelledby="author-heading"
        className="mb-10 flex flex-col gap-6 sm:flex-row sm:items-start"
      >
        <AuthorPhoto photo={author.photo} alt={`Photo of ${author.name}`} size={160} className="shrink-0" />
        <div className="flex min-w-0 max-w-3xl flex-col gap-4">
          <h1 id="author-heading" className="text-4xl font-bold">
            {author.name}
          </h1>
          {bioBlocks.length > 0 ? <Description blocks={bioBlocks} /> : null}
        </div>
      </section>
      <section aria-labelledby="author-books-heading">
        <h2 id="author-books-heading" className="mb-6 text-2xl font-semibold">
          eBooks by {author.name} ({bookCount})
        </h2>
        <BookGrid books={books} headingLevel={3} eagerCount={books.length > 0 ? 1 : 0} />
        {bookCount > books.length ? (
          <p className="mt-6">
            <Link
              to={`/search?${new URLSearchParams({ q: author.name })}`}
              className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
            >
              Find all {bookCount} eBooks by {author.name}
            </Link>
          </p>
        ) : null}
      </section>
    </div>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
