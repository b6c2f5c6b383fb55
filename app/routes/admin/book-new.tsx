import { data, Form, redirect, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { createBook } from '#app/features/catalog/admin-books.server.ts'
import { parseBookForm } from '#app/features/catalog/book-form.server.ts'
import { BookFormFields } from '#app/features/catalog/components/book-form-fields.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/book-new'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('New book — Back office', 'New book in the CodeBook back office.', { matches })

export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  return null
}

/** Creates the book (a draft unless published straight away) and opens it for its cover. */
export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const parsed = parseBookForm(await readForm(request))
  if (!parsed.ok) return data({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400 })
  const saved = await createBook(
    getAppContext(context).db,
    { id: admin.id, email: admin.email },
    parsed.input,
  )
  if (saved.outcome !== 'saved')
    return data(
      { values: parsed.values, fieldErrors: saved.outcome === 'invalid' ? saved.fieldErrors : {} },
      { status: 400 },
    )
  throw redirect(`/admin/books/${saved.book.id}?saved=created`, 303)
}

export default function NewBook({ actionData }: Route.ComponentProps) {
  const saving = useNavigation().state === 'submitting'
  return (
    <TitledSection
      id="new-book-heading"
      title="New book"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      {actionData ? (
        <p role="alert" className="mb-4 text-red-700 dark:text-red-300">
          The book was not saved: please correct the fields marked below.
        </p>
      ) : null}
      <Form method="post" className="flex flex-col gap-6">
        <BookFormFields
          values={actionData?.values ?? { status: 'draft' }}
          errors={actionData?.fieldErrors ?? {}}
        />
        <div>
          <button type="submit" className={primaryButton} disabled={saving}>
            {saving ? 'Saving…' : 'Create book'}
          </button>
        </div>
      </Form>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
