import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import {
  bundleFormValues,
  getBundleForEdit,
  parseBundleForm,
  saveBundle,
  type BundleFieldErrors,
} from '#app/features/bundles/admin-bundles.server.ts'
import { BundleFormFields } from '#app/features/bundles/components/bundle-form-fields.tsx'
import { isUuid } from '#app/features/catalog/admin-books.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/bundle-edit'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Edit bundle — Back office', 'A bundle in the CodeBook back office.', { matches })

export async function loader({ request, context, params }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const bundle = isUuid(params.bundleId) ? await getBundleForEdit(db, params.bundleId) : null
  if (!bundle) throw new Response('No such bundle.', { status: 404 })
  return { bundle }
}

type Failure = { errors: BundleFieldErrors; values: Record<string, string> }

export async function action({ request, context, params }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  if (!isUuid(params.bundleId)) throw new Response('No such bundle.', { status: 404 })
  const form = await readForm(request)
  const parsed = parseBundleForm(form)
  if (!parsed.ok) return data<Failure>({ errors: parsed.errors, values: parsed.values }, 400)
  const saved = await saveBundle(db, { id: admin.id, email: admin.email }, params.bundleId, parsed.bundle)
  if (!saved.ok) {
    if ('notFound' in saved) throw new Response('No such bundle.', { status: 404 })
    return data<Failure>({ errors: saved.errors, values: bundleFormValues(form) }, 400)
  }
  throw redirect('/admin/bundles?done=saved', 303)
}

export default function AdminBundleEdit({ loaderData, actionData }: Route.ComponentProps) {
  const failure = actionData as Failure | undefined
  const { bundle } = loaderData
  return (
    <TitledSection
      id="bundle-heading"
      title={`Edit ${bundle.values.title}`}
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <p className="mb-4">
        <Link to={`/bundles/${bundle.slug}`} className="underline">
          View its page
        </Link>{' '}
        ·{' '}
        <Link to="/admin/bundles" className="underline">
          All bundles
        </Link>
      </p>
      <Form method="post" className="grid max-w-2xl gap-4">
        <BundleFormFields values={failure?.values ?? bundle.values} errors={failure?.errors ?? {}} />
        <button type="submit" className={`${primaryButton} justify-self-start`}>
          Save
        </button>
      </Form>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
