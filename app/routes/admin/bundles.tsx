import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import {
  bundleFormValues,
  listAdminBundles,
  parseBundleForm,
  saveBundle,
  type BundleFieldErrors,
} from '#app/features/bundles/admin-bundles.server.ts'
import { BundleFormFields } from '#app/features/bundles/components/bundle-form-fields.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/bundles'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Bundles — Back office', 'Bundles in the CodeBook back office.', { matches })

/** Every bundle with its books and revenue, and the form to make one (issue 30). */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  return { bundles: await listAdminBundles(db), saved: url.searchParams.get('done') === 'saved' }
}

type Failure = { errors: BundleFieldErrors; values: Record<string, string> }

export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const form = await readForm(request)
  const parsed = parseBundleForm(form)
  if (!parsed.ok) return data<Failure>({ errors: parsed.errors, values: parsed.values }, 400)
  const saved = await saveBundle(db, { id: admin.id, email: admin.email }, null, parsed.bundle)
  if (!saved.ok)
    return data<Failure>(
      {
        errors: 'errors' in saved ? saved.errors : { form: 'Please reload the page.' },
        values: bundleFormValues(form),
      },
      400,
    )
  throw redirect('/admin/bundles?done=saved', 303)
}

export default function AdminBundles({ loaderData, actionData }: Route.ComponentProps) {
  const failure = actionData as Failure | undefined
  return (
    <TitledSection
      id="bundles-heading"
      title="Bundles"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      {loaderData.saved ? (
        <p role="status" className="mb-4 font-medium text-emerald-800 dark:text-emerald-300">
          The bundle was saved.
        </p>
      ) : null}
      {loaderData.bundles.length === 0 ? (
        <p className="mb-8">No bundles yet.</p>
      ) : (
        <div className="mb-10 overflow-x-auto" tabIndex={0} role="region" aria-label="Bundles, newest first">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Bundles, newest first</caption>
            <thead>
              <tr className="border-b border-slate-300 dark:border-gray-600">
                <th scope="col" className="py-2 pr-4">
                  Bundle
                </th>
                <th scope="col" className="py-2 pr-4">
                  Books
                </th>
                <th scope="col" className="py-2 pr-4">
                  Price
                </th>
                <th scope="col" className="py-2 pr-4">
                  Revenue
                </th>
                <th scope="col" className="py-2">
                  State
                </th>
              </tr>
            </thead>
            <tbody>
              {loaderData.bundles.map((bundle) => (
                <tr key={bundle.id} className="border-b border-slate-200 align-top dark:border-gray-700">
                  <th scope="row" className="py-2 pr-4">
                    <Link to={`/admin/bundles/${bundle.id}`} className="font-medium underline">
                      {bundle.title}
                    </Link>
                    <span className="block text-xs font-normal">/bundles/{bundle.slug}</span>
                  </th>
                  <td className="py-2 pr-4">{bundle.titles}</td>
                  <td className="py-2 pr-4">{formatPrice(bundle.priceCents, bundle.currency)}</td>
                  <td className="py-2 pr-4">
                    {formatPrice(bundle.revenueCents, bundle.currency)} from {bundle.paidOrders} paid orders
                  </td>
                  <td className="py-2">{bundle.active ? 'In the store' : 'Off'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 className="mb-4 text-xl font-semibold">New bundle</h2>
      {failure?.errors.form ? (
        <p role="alert" className="mb-4 font-medium text-red-700 dark:text-red-300">
          {failure.errors.form}
        </p>
      ) : null}
      <Form method="post" className="grid max-w-2xl gap-4">
        <BundleFormFields values={failure?.values ?? {}} errors={failure?.errors ?? {}} />
        <button type="submit" className={`${primaryButton} justify-self-start`}>
          Make the bundle
        </button>
      </Form>
    </TitledSection>
  )
}
