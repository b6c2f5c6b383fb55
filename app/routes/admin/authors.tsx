import { Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { listAdminAuthors } from '#app/features/authors/authors.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/authors'

export const meta: Route.MetaFunction = () =>
  privatePageMeta('Authors — Back office', 'The catalogue’s authors, by name.')

/** Authors by name, found by part of it, a page at a time (`?after=` is the keyset cursor). */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const url = new URL(request.url)
  const query = (url.searchParams.get('q') ?? '').trim().slice(0, 200)
  const after = url.searchParams.get('after')?.slice(0, 200) ?? undefined
  const page = await listAdminAuthors(getAppContext(context).db, { query, after })
  const next = page.nextAfter
    ? `?${new URLSearchParams({ ...(query ? { q: query } : {}), after: page.nextAfter })}`
    : null
  return { query, next, first: after === undefined, authors: page.rows }
}

export default function Authors({ loaderData }: Route.ComponentProps) {
  const { query, next, first, authors } = loaderData
  return (
    <TitledSection
      id="authors-heading"
      title="Authors"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <p className="mb-4 max-w-prose text-slate-700 dark:text-slate-300">
        A book’s author is chosen by name in the book form; here each author’s name, bio and photo are edited.
      </p>
      <Form method="get" role="search" className="mb-6 flex flex-wrap items-end gap-3">
        <TextField label="Name contains" name="q" type="search" defaultValue={query} />
        <button type="submit" className={primaryButton}>
          Search
        </button>
      </Form>
      {authors.length === 0 ? (
        <p>No author matches.</p>
      ) : (
        <DataTable
          caption={query ? `Authors whose name contains “${query}”` : 'Authors by name'}
          rowKey={(author) => author.id}
          rows={authors}
          columns={[
            {
              header: 'Name',
              rowHeader: true,
              cell: (author) => (
                <Link
                  to={`/admin/authors/${author.id}`}
                  className="text-blue-700 underline dark:text-sky-300"
                >
                  {author.name}
                </Link>
              ),
            },
            { header: 'Books', cell: (author) => author.bookCount, className: 'whitespace-nowrap' },
            { header: 'Photo', cell: (author) => (author.hasPhoto ? 'Yes' : 'No') },
            {
              header: 'Page',
              cell: (author) => <span className="break-words">/authors/{author.slug}</span>,
            },
          ]}
        />
      )}
      <p className="mt-4 flex gap-6">
        {!first ? (
          <Link
            to={query ? `?${new URLSearchParams({ q: query })}` : '.'}
            className="text-blue-700 underline dark:text-sky-300"
          >
            First page
          </Link>
        ) : null}
        {next ? (
          <Link to={next} className="text-blue-700 underline dark:text-sky-300">
            Next page
          </Link>
        ) : null}
      </p>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
