import { Form, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { controlClass, Field } from '#app/components/ui/field.tsx'

export type ErratumItem = {
  id: string
  edition: number
  status: 'open' | 'confirmed' | 'fixed'
  fixedInEdition: number | null
  quote: string
  location: string
  description: string
  suggestion: string
  credit: string
}

export type ErratumFields = 'quote' | 'location' | 'description' | 'suggestion' | 'credit'
export type ErratumActionData = {
  erratumErrors?: Partial<Record<ErratumFields, string>>
  erratumValues?: Partial<Record<ErratumFields, string>>
  erratumMessage?: string
}

const statusText = (erratum: ErratumItem) =>
  erratum.status === 'fixed'
    ? `Fixed in edition ${erratum.fixedInEdition}`
    : erratum.status === 'confirmed'
      ? 'Confirmed'
      : 'Open'

/**
 * The book's errata, by the edition they were found in (newest first), like a publisher's errata page: each
 * with its state (open, confirmed, fixed in edition N) and its reporter's chosen name. Owners get the form
 * to report one (it works without JavaScript); anyone can report from the sample in the online reader.
 */
export function ErrataSection({
  slug,
  errata,
  canReport,
  sent,
  actionData,
}: {
  slug: string
  errata: ErratumItem[]
  canReport: boolean
  sent: boolean
  actionData?: ErratumActionData
}) {
  const navigation = useNavigation()
  const sending = navigation.formData?.get('intent') === 'report-erratum'
  const editions = [...new Set(errata.map((erratum) => erratum.edition))]
  const errors = actionData?.erratumErrors ?? {}
  const values = actionData?.erratumValues ?? {}
  return (
    <section aria-labelledby="errata-heading" id="errata" className="mx-auto max-w-6xl px-4 pb-12">
      <h2 id="errata-heading" className="mb-4 text-2xl font-semibold">
        Errata
      </h2>
      {errata.length === 0 ? (
        <p className="text-slate-700 dark:text-slate-300">No errata reported yet.</p>
      ) : (
        editions.map((edition) => (
          <section key={edition} aria-labelledby={`errata-edition-${edition}`} className="mb-6">
            <h3 id={`errata-edition-${edition}`} className="mb-2 text-lg font-semibold">
              Found in edition {edition}
            </h3>
            <ul className="flex flex-col gap-3">
              {errata
                .filter((erratum) => erratum.edition === edition)
                .map((erratum) => (
                  <li
                    key={erratum.id}
                    className="rounded-lg border border-slate-300 p-3 break-words dark:border-gray-600"
                  >
                    <p className="text-sm font-semibold">
                      {statusText(erratum)}
                      {erratum.location ? (
                        <span className="font-normal text-slate-700 dark:text-slate-300">
                          {' '}
                          · {erratum.location}
                        </span>
                      ) : null}
                    </p>
                    <blockquote className="my-1 border-l-4 border-slate-300 pl-3 italic dark:border-gray-600">
                      {erratum.quote}
                    </blockquote>
                    <p className="whitespace-pre-line">{erratum.description}</p>
                    {erratum.suggestion ? (
                      <p className="whitespace-pre-line">
                        <span className="font-medium">Suggested:</span> {erratum.suggestion}
                      </p>
                    ) : null}
                    <p className="text-sm text-slate-700 dark:text-slate-300">
                      {erratum.credit ? `Reported by ${erratum.credit}` : 'Reported anonymously'}
                    </p>
                  </li>
                ))}
            </ul>
          </section>
        ))
      )}
      {sent ? (
        <p role="status" className="mb-4 font-medium text-green-800 dark:text-green-300">
          Thank you: your erratum is reported. It is listed here as open until the author looks at it.
        </p>
      ) : null}
      {canReport ? (
        <details open={Boolean(actionData?.erratumErrors || actionData?.erratumMessage)} className="mt-2">
          <summary className="cursor-pointer font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300">
            Report an erratum
          </summary>
          <Form method="post" action={`/books/${slug}#errata`} className="mt-4 flex max-w-2xl flex-col gap-4">
            <input type="hidden" name="intent" value="report-erratum" />
            {actionData?.erratumMessage ? (
              <p role="alert" className="font-medium text-red-700 dark:text-red-300">
                {actionData.erratumMessage}
              </p>
            ) : null}
            <Field label="The words that are wrong" error={errors.quote}>
              {(control) => (
                <textarea
                  {...control}
                  name="quote"
                  required
                  maxLength={1000}
                  rows={2}
                  defaultValue={values.quote}
                  className={controlClass}
                />
              )}
            </Field>
            <Field label="Where (chapter, section or page; optional)" error={errors.location}>
              {(control) => (
                <input
                  {...control}
                  name="location"
                  maxLength={500}
                  defaultValue={values.location}
                  className={controlClass}
                />
              )}
            </Field>
            <Field label="What is wrong" error={errors.description}>
              {(control) => (
                <textarea
                  {...control}
                  name="description"
                  required
                  maxLength={2000}
                  rows={3}
                  defaultValue={values.description}
                  className={controlClass}
                />
              )}
            </Field>
            <Field label="Suggested fix (optional)" error={errors.suggestion}>
              {(control) => (
                <textarea
                  {...control}
                  name="suggestion"
                  maxLength={2000}
                  rows={2}
                  defaultValue={values.suggestion}
                  className={controlClass}
                />
              )}
            </Field>
            <Field
              label="Credit me as (optional)"
              hint="Shown with the erratum. Leave it empty to be credited anonymously."
              error={errors.credit}
            >
              {(control) => (
                <input
                  {...control}
                  name="credit"
                  maxLength={80}
                  defaultValue={values.credit}
                  className={controlClass}
                />
              )}
            </Field>
            <div>
              <button type="submit" className={primaryButton} aria-disabled={sending || undefined}>
                {sending ? 'Sending…' : 'Report erratum'}
              </button>
            </div>
          </Form>
        </details>
      ) : (
        <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">
          Owners of this eBook can report errata here.
        </p>
      )}
    </section>
  )
}
