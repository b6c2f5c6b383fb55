import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { controlClass, Field, Options, SelectField } from '#app/components/ui/field.tsx'
import { FilterForm } from '#app/components/ui/filter-form.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { listErrataForTriage, type ErratumStatus } from '#app/features/errata/errata.server.ts'
import { triageErratum, TriageSchema } from '#app/features/errata/errata-triage.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/errata'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Errata — Back office', 'Errata reported by readers, in the CodeBook back office.', {
    matches,
  })

const statuses = ['open', 'confirmed', 'rejected', 'fixed'] as const satisfies readonly ErratumStatus[]
const statusLabels: Record<ErratumStatus, string> = {
  open: 'Open: waiting for a decision',
  confirmed: 'Confirmed: to fix in the next edition',
  rejected: 'Rejected',
  fixed: 'Fixed in an edition',
}

export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const raw = url.searchParams.get('status')
  const status = statuses.find((known) => known === raw) ?? 'open'
  return { status, errata: await listErrataForTriage(getAppContext(context).db, { status }) }
}

/**
 * Confirm, reject (with a reason, mailed to a reporter who has an account) or reopen an erratum: audited. Publishing the book's
 * next edition (its manuscript page) marks the confirmed ones fixed and mails their reporters.
 */
export async function action({ request, context, url }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const form = await readForm(request)
  const parsed = TriageSchema.safeParse({
    decision: form.get('decision'),
    id: form.get('id'),
    ...(form.get('decision') === 'reject' ? { reason: form.get('reason') ?? '' } : {}),
  })
  if (!parsed.success) {
    const id = String(form.get('id') ?? '')
    const reason = parsed.error.issues.find((issue) => issue.path[0] === 'reason')?.message
    return data(
      reason
        ? { id, reasonError: reason, message: null }
        : { id, reasonError: null, message: 'This decision could not be read. Please reload the page.' },
      400,
    )
  }
  const outcome = await triageErratum(getAppContext(context).db, parsed.data, {
    id: admin.id,
    email: admin.email,
  })
  if (!outcome.ok)
    return data({ id: parsed.data.id, reasonError: null, message: outcome.message }, outcome.status)
  return redirect(`/admin/errata${url.search}`, 303)
}

export default function AdminErrata({ loaderData, actionData }: Route.ComponentProps) {
  const { status, errata } = loaderData
  return (
    <TitledSection
      id="errata-heading"
      title="Errata"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <FilterForm submitLabel="Show" className="mb-6">
        <SelectField label="Show" name="status" defaultValue={status}>
          <Options options={statuses.map((value) => ({ value, label: statusLabels[value] }))} />
        </SelectField>
      </FilterForm>
      {actionData?.message ? (
        <p role="alert" className="mb-4 font-medium text-red-700 dark:text-red-300">
          {actionData.message}
        </p>
      ) : null}
      {errata.length === 0 ? (
        <p>No {status} errata.</p>
      ) : (
        <ol className="flex flex-col gap-4">
          {errata.map((erratum) => (
            <li key={erratum.id}>
              <article
                aria-labelledby={`erratum-${erratum.id}`}
                className="flex flex-col gap-2 rounded-lg border border-slate-300 p-4 dark:border-gray-600"
              >
                <h2 id={`erratum-${erratum.id}`} className="font-semibold break-words">
                  “{erratum.quote}”
                </h2>
                <p className="text-sm text-slate-700 dark:text-slate-300">
                  In{' '}
                  <Link
                    to={`/books/${erratum.bookSlug}#errata`}
                    className="text-blue-700 underline dark:text-sky-300"
                  >
                    {erratum.bookTitle}
                  </Link>
                  , edition {erratum.edition}
                  {erratum.location ? ` · ${erratum.location}` : ''} · reported{' '}
                  <FormattedDate value={erratum.reportedAt} /> by{' '}
                  {erratum.reporterEmail ?? 'a visitor without an account'}
                  {erratum.credit ? ` (credited as ${erratum.credit})` : ' (anonymous)'}
                </p>
                <p className="whitespace-pre-line">
                  <strong>What is wrong:</strong> {erratum.description}
                </p>
                {erratum.suggestion ? (
                  <p className="whitespace-pre-line">
                    <strong>Suggested fix:</strong> {erratum.suggestion}
                  </p>
                ) : null}
                {erratum.status === 'rejected' ? (
                  <p className="text-sm">
                    <strong>Rejected:</strong> {erratum.reason}
                  </p>
                ) : null}
                {erratum.status === 'fixed' ? (
                  <p className="text-sm">Fixed in edition {erratum.fixedInEdition}.</p>
                ) : (
                  <div className="flex flex-wrap items-end gap-3">
                    {erratum.status !== 'confirmed' ? (
                      <Form method="post">
                        <input type="hidden" name="id" value={erratum.id} />
                        <button type="submit" name="decision" value="confirm" className={primaryButton}>
                          Confirm
                        </button>
                      </Form>
                    ) : null}
                    {erratum.status !== 'open' ? (
                      <Form method="post">
                        <input type="hidden" name="id" value={erratum.id} />
                        <button type="submit" name="decision" value="reopen" className={primaryButton}>
                          Reopen
                        </button>
                      </Form>
                    ) : null}
                    {erratum.status !== 'rejected' ? (
                      <Form method="post" className="flex flex-wrap items-end gap-2">
                        <input type="hidden" name="id" value={erratum.id} />
                        <Field
                          label="Reason to reject (mailed to the reporter, if they have an account)"
                          error={
                            actionData?.id === erratum.id ? (actionData.reasonError ?? undefined) : undefined
                          }
                        >
                          {(control) => (
                            <input {...control} name="reason" maxLength={1000} className={controlClass} />
                          )}
                        </Field>
                        <button type="submit" name="decision" value="reject" className={primaryButton}>
                          Reject
                        </button>
                      </Form>
                    ) : null}
                  </div>
                )}
              </article>
            </li>
          ))}
        </ol>
      )}
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
