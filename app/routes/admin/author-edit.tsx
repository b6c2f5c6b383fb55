import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { dangerButton, primaryButton } from '#app/components/ui/button-styles.ts'
import { controlClass, Field } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import {
  AUTHOR_FORM_LIMITS,
  type AuthorFieldErrors,
  type AuthorFormValues,
} from '#app/features/authors/author-form.ts'
import { parseAuthorForm } from '#app/features/authors/author-form.server.ts'
import { authorPath } from '#app/features/authors/author-photo.ts'
import { getAdminAuthor, updateAuthor } from '#app/features/authors/authors.server.ts'
import { authorMessages } from '#app/features/authors/author-form.ts'
import { AuthorPhoto } from '#app/features/authors/components/author-photo.tsx'
import { MAX_PHOTO_BYTES, MAX_PHOTO_PIXELS, photoMessageFor } from '#app/features/authors/photos.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/author-edit'
import { FormOutcome } from '#app/components/ui/form-outcome.tsx'

export const meta: Route.MetaFunction = ({ data: loaderData }) =>
  privatePageMeta(`${loaderData?.author.name ?? 'Author'} — Back office`, 'Edit an author of the store.')

const notFound = () =>
  data({ title: 'Author not found', message: 'There is no author with this id.' }, { status: 404 })

const savedMessages: Record<string, string> = {
  '1': 'The author was saved.',
  photo: 'The new photo was saved.',
  'photo-removed': 'The photo was removed.',
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const author = await getAdminAuthor(getAppContext(context).db, params.authorId)
  if (!author) throw notFound()
  const url = new URL(request.url)
  return {
    author: {
      id: author.id,
      slug: author.slug,
      name: author.name,
      bio: author.bio,
      photo: author.photo,
      version: author.version,
    },
    saved: savedMessages[url.searchParams.get('saved') ?? ''] ?? null,
    photoError: photoMessageFor(url.searchParams.get('photo-error')),
    limits: { megabytes: MAX_PHOTO_BYTES / 1024 / 1024, megapixels: MAX_PHOTO_PIXELS / 1_000_000 },
  }
}

type ActionData = { values: AuthorFormValues; fieldErrors: AuthorFieldErrors; version?: number }

/** Saves the name and bio (audited); a rename moves the page and its books' bylines. */
export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const author = await getAdminAuthor(db, params.authorId)
  if (!author) throw notFound()
  const parsed = parseAuthorForm(await readForm(request))
  if (!parsed.ok)
    return data<ActionData>({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400 })
  const saved = await updateAuthor(
    db,
    { id: admin.id, email: admin.email },
    author.id,
    parsed.version ?? author.version,
    parsed.input,
  )
  if (saved.outcome === 'not-found') throw notFound()
  if (saved.outcome === 'invalid')
    return data<ActionData>({ values: parsed.values, fieldErrors: saved.fieldErrors }, { status: 400 })
  if (saved.outcome === 'conflict')
    return data<ActionData>(
      {
        values: parsed.values,
        version: saved.current.version,
        fieldErrors: { form: authorMessages.conflict },
      },
      { status: 409 },
    )
  throw redirect(`/admin/authors/${author.id}?saved=1`, 303)
}

export default function EditAuthor({ loaderData, actionData }: Route.ComponentProps) {
  const { author, saved, photoError, limits } = loaderData
  const saving = useNavigation().state === 'submitting'
  const errors = actionData?.fieldErrors ?? {}
  const values = actionData?.values ?? author
  return (
    <TitledSection
      id="author-edit-heading"
      title={`Edit ‘${author.name}’`}
      level={1}
      headingClassName="mb-6 text-2xl font-semibold break-words"
    >
      <p className="mb-6">
        <Link to="/admin/authors" className="text-blue-700 underline dark:text-sky-300">
          All authors
        </Link>
        {' · '}
        <Link to={authorPath(author.slug)} className="text-blue-700 underline dark:text-sky-300">
          View {authorPath(author.slug)}
        </Link>
      </p>
      <FormOutcome
        errors={errors}
        notSaved="The author was not saved: please correct the fields marked below."
        saved={saved}
      />
      <Form method="post" className="flex max-w-3xl flex-col gap-6">
        <input type="hidden" name="version" value={actionData?.version ?? author.version} />
        <TextField
          label="Name"
          name="name"
          defaultValue={values.name}
          error={errors.name}
          required
          maxLength={AUTHOR_FORM_LIMITS.nameMax}
          hint="As the store shows it on the author’s books. A new name moves the page to a new address; the old one keeps working."
        />
        <TextareaField
          label="Bio"
          name="bio"
          defaultValue={values.bio}
          error={errors.bio}
          rows={10}
          maxLength={AUTHOR_FORM_LIMITS.bioMax}
          hint="Markdown: blank lines between paragraphs, **bold**, *italic*, [a link](https://…). The first paragraph is shown on each of their books’ pages."
        />
        <div>
          <button type="submit" className={primaryButton} disabled={saving}>
            {saving ? 'Saving…' : 'Save author'}
          </button>
        </div>
      </Form>
      <section aria-labelledby="author-photo-heading" className="mt-10 max-w-3xl">
        <h2 id="author-photo-heading" className="mb-4 text-xl font-semibold">
          Photo
        </h2>
        {author.photo ? (
          <div className="mb-4 flex flex-wrap items-center gap-4">
            <AuthorPhoto photo={author.photo} alt={`Current photo of ${author.name}`} size={96} />
            <Form method="post" action={`/admin/authors/${author.id}/photo`}>
              <input type="hidden" name="version" value={author.version} />
              <input type="hidden" name="intent" value="remove" />
              <button type="submit" className={dangerButton}>
                Remove photo
              </button>
            </Form>
          </div>
        ) : (
          <p className="mb-4 text-slate-700 dark:text-slate-300">No photo yet: the store shows none.</p>
        )}
        <Form
          method="post"
          action={`/admin/authors/${author.id}/photo`}
          encType="multipart/form-data"
          reloadDocument
          className="flex flex-col gap-3"
        >
          <input type="hidden" name="version" value={author.version} />
          <Field
            label="New photo"
            error={photoError ?? undefined}
            hint={`JPEG, PNG, WebP or AVIF, at most ${limits.megabytes} MB and ${limits.megapixels} megapixels. It is resized for the store and shown in a circle.`}
          >
            {(control) => (
              <input
                {...control}
                type="file"
                name="photo"
                required
                accept="image/jpeg,image/png,image/webp,image/avif"
                className={`${controlClass} text-sm`}
              />
            )}
          </Field>
          <div>
            <button type="submit" className={primaryButton}>
              Upload photo
            </button>
          </div>
        </Form>
      </section>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
