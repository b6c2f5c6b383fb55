import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import {
  getSitePage,
  parseSitePageForm,
  saveSitePage,
  type SitePageFieldErrors,
  type SitePageFormValues,
} from '#app/features/site-pages/site-pages.server.ts'
import { isSitePageSlug, SITE_PAGE_LIMITS } from '#app/features/site-pages/site-pages.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/page-edit'
import { FormOutcome } from '#app/components/ui/form-outcome.tsx'

export const meta: Route.MetaFunction = ({ data: loaderData, matches }) =>
  privatePageMeta(`${loaderData?.title ?? 'Site page'} — Back office`, 'Edit a site page of the store.', {
    matches,
  })

function slugOf(params: { slug?: string }) {
  const slug = params.slug ?? ''
  if (!isSitePageSlug(slug)) throw data({ title: 'Page not found' }, { status: 404 })
  return slug
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const page = await getSitePage(getAppContext(context).db, slugOf(params))
  const saved = new URL(request.url).searchParams.get('saved') === '1'
  return { slug: page.slug, title: page.title, body: page.body, version: page.version, saved }
}

type ActionData = { values: SitePageFormValues; fieldErrors: SitePageFieldErrors; version?: number }

export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const slug = slugOf(params)
  const parsed = parseSitePageForm(await readForm(request))
  if (!parsed.ok)
    return data<ActionData>({ values: parsed.values, fieldErrors: parsed.fieldErrors }, { status: 400 })
  const { db } = getAppContext(context)
  const saved = await saveSitePage(
    db,
    { id: admin.id, email: admin.email },
    slug,
    parsed.version,
    parsed.input,
  )
  if (saved.outcome === 'conflict') {
    const current = await getSitePage(db, slug)
    return data<ActionData>(
      {
        values: parsed.input,
        version: current.version,
        fieldErrors: {
          form: 'Another admin saved this page meanwhile. Your version is in the form: save again to replace theirs.',
        },
      },
      { status: 409 },
    )
  }
  throw redirect(`/admin/pages/${slug}?saved=1`, 303)
}

export default function EditSitePage({ loaderData, actionData }: Route.ComponentProps) {
  const saving = useNavigation().state === 'submitting'
  const errors = actionData?.fieldErrors ?? {}
  const values = actionData?.values ?? loaderData
  return (
    <TitledSection
      id="page-edit-heading"
      title={`Edit ‘${loaderData.title}’`}
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <FormOutcome
        errors={errors}
        notSaved="The page was not saved: please correct the fields marked below."
        saved={
          loaderData.saved && (
            <>
              The page was saved.{' '}
              <Link to={`/${loaderData.slug}`} className="underline">
                See it in the store
              </Link>
              .
            </>
          )
        }
      />
      <Form method="post" className="flex flex-col gap-6">
        <input type="hidden" name="version" value={actionData?.version ?? loaderData.version} />
        <TextField
          label="Title"
          name="title"
          defaultValue={values.title}
          error={errors.title}
          required
          maxLength={SITE_PAGE_LIMITS.titleMax}
        />
        <TextareaField
          label="Text"
          name="body"
          defaultValue={values.body}
          error={errors.body}
          rows={20}
          required
          maxLength={SITE_PAGE_LIMITS.bodyMax}
          hint="Markdown: blank lines between paragraphs, ### for a heading, - for a list, **bold**, *italic*, [a link](https://…). {{storeName}}, {{legalName}}, {{postalAddress}} and {{contactEmail}} show the store settings."
        />
        <div className="flex flex-wrap items-center gap-4">
          <button type="submit" className={primaryButton} disabled={saving}>
            {saving ? 'Saving…' : 'Save page'}
          </button>
          <Link to={`/${loaderData.slug}`} className="text-blue-700 underline dark:text-sky-300">
            View /{loaderData.slug}
          </Link>
        </div>
      </Form>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
