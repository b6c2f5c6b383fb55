import { data, Form, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { formFields, Options, SelectField } from '#app/components/ui/field.tsx'
import { FormOutcome } from '#app/components/ui/form-outcome.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import {
  listTaxRateTable,
  parseTaxSettingsForm,
  saveTaxRate,
  type RateFormErrors,
  type SettingsFormErrors,
} from '#app/features/tax/admin-tax.server.ts'
import { formatRate } from '#app/features/tax/compute-tax.ts'
import { COUNTRIES } from '#app/features/tax/countries.ts'
import { getTaxSettings, saveTaxSettings } from '#app/features/tax/tax-settings.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import type { Route } from './+types/tax'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Tax — Back office', 'Tax rates and settings in the CodeBook back office.', { matches })

/** The tax settings and every country's rates, the one in effect today first (decision 038). */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const [settings, table] = await Promise.all([getTaxSettings(db), listTaxRateTable(db)])
  const done = url.searchParams.get('done')
  return {
    settings,
    table,
    countries: COUNTRIES,
    done: done === 'settings' || done === 'rate' ? done : null,
  }
}

type ActionData =
  | { form: 'settings'; errors: SettingsFormErrors & { form?: string }; values: Record<string, string> }
  | { form: 'rate'; errors: RateFormErrors & { form?: string }; values: Record<string, string> }

export async function action({ request, context }: Route.ActionArgs) {
  const admin = await requireAdmin({ request, context })
  const { db } = getAppContext(context)
  const form = await readForm(request)
  const actor = { id: admin.id, email: admin.email }
  const values = Object.fromEntries(
    [...form.entries()].flatMap(([key, value]) => (typeof value === 'string' ? [[key, value]] : [])),
  )
  if (form.get('intent') === 'settings') {
    const parsed = parseTaxSettingsForm(form)
    if (!parsed.ok) return data<ActionData>({ form: 'settings', errors: parsed.errors, values }, 400)
    await saveTaxSettings(db, actor, parsed.settings)
    throw redirect('/admin/tax?done=settings', 303)
  }
  if (form.get('intent') === 'rate') {
    const saved = await saveTaxRate(db, actor, form)
    if (!saved.ok) return data<ActionData>({ form: 'rate', errors: saved.errors, values }, 400)
    throw redirect(`/admin/tax?done=rate#rates-${saved.country}`, 303)
  }
  return data<ActionData>(
    { form: 'settings', errors: { form: 'This form could not be read. Please reload the page.' }, values },
    400,
  )
}

const percent = (bp: number) => formatRate(bp).replace(' %', '')

export default function AdminTax({ loaderData, actionData }: Route.ComponentProps) {
  const { settings, table, countries, done } = loaderData
  const settingsErrors = actionData?.form === 'settings' ? actionData.errors : {}
  const rateErrors = actionData?.form === 'rate' ? actionData.errors : {}
  // Each form's fields as a refused post typed them, else as saved (the settings) or empty (a new rate).
  const settingsField = formFields<keyof SettingsFormErrors>(
    actionData?.form === 'settings'
      ? actionData.values
      : {
          pricesIncludeTax: settings.pricesIncludeTax ? 'inclusive' : 'exclusive',
          sellerCountry: settings.sellerCountry ?? '',
          sellerVatNumber: settings.sellerVatNumber,
        },
    settingsErrors,
  )
  const rateField = formFields<keyof RateFormErrors>(
    actionData?.form === 'rate' ? actionData.values : {},
    rateErrors,
  )
  const countryOptions = countries.map((country) => ({ value: country.code, label: country.name }))
  return (
    <TitledSection id="tax-heading" title="Tax" level={1} headingClassName="mb-6 text-2xl font-semibold">
      <p className="mb-6 max-w-3xl text-sm text-slate-700 dark:text-slate-300">
        The store charges each buyer the eBook rate of their billing country (decision 038). The rates below
        were shipped on 6 December 2026 as a starting point: check the countries you sell into. This is
        software, not tax advice.
      </p>

      <section aria-labelledby="tax-settings-heading" className="mb-10 max-w-xl">
        <h2 id="tax-settings-heading" className="mb-3 text-xl font-semibold">
          Settings
        </h2>
        <FormOutcome
          errors={settingsErrors}
          notSaved="The settings were not saved: see the fields below."
          saved={done === 'settings' ? 'The tax settings were saved.' : null}
        />
        <Form method="post" className="flex flex-col gap-4">
          <input type="hidden" name="intent" value="settings" />
          <SelectField
            label="Catalogue prices"
            {...settingsField('pricesIncludeTax')}
            hint="Including tax: every buyer pays the price shown. Before tax: each buyer’s tax is added at checkout."
          >
            <option value="inclusive">Include tax</option>
            <option value="exclusive">Are before tax</option>
          </SelectField>
          <SelectField
            label="Seller’s country"
            {...settingsField('sellerCountry')}
            hint="Reverse charge applies to EU businesses of other countries than this one."
          >
            <option value="">Not set</option>
            <Options options={countryOptions} />
          </SelectField>
          <TextField
            label="Seller’s VAT number"
            {...settingsField('sellerVatNumber')}
            maxLength={20}
            hint="Printed on invoices."
          />
          <button type="submit" className={`${primaryButton} self-start`}>
            Save settings
          </button>
        </Form>
      </section>

      <section aria-labelledby="tax-rate-heading" className="mb-10 max-w-xl">
        <h2 id="tax-rate-heading" className="mb-3 text-xl font-semibold">
          Add or correct a rate
        </h2>
        <FormOutcome
          errors={rateErrors}
          notSaved="The rate was not saved: see the fields below."
          saved={done === 'rate' ? 'The rate was saved.' : null}
        />
        <Form method="post" className="grid gap-4 sm:grid-cols-2">
          <input type="hidden" name="intent" value="rate" />
          <SelectField label="Country" {...rateField('country')}>
            <option value="">Choose…</option>
            <Options options={table.map((entry) => ({ value: entry.country, label: entry.name }))} />
          </SelectField>
          <TextField
            label="From (YYYY-MM-DD)"
            {...rateField('effectiveFrom')}
            hint="From midnight in the country’s own time."
            placeholder="2027-01-01"
            maxLength={10}
          />
          <TextField label="eBook rate (%)" {...rateField('ebookRate')} inputMode="decimal" maxLength={8} />
          <TextField
            label="Standard rate (%)"
            {...rateField('standardRate')}
            inputMode="decimal"
            maxLength={8}
          />
          <div className="sm:col-span-2">
            <TextField label="Note (optional)" {...rateField('note')} maxLength={200} />
          </div>
          <button type="submit" className={`${primaryButton} self-start`}>
            Save rate
          </button>
        </Form>
      </section>

      <section aria-labelledby="tax-table-heading">
        <h2 id="tax-table-heading" className="mb-3 text-xl font-semibold">
          Rates by country
        </h2>
        <DataTable
          caption="Each country’s eBook and standard rates, the rate in effect today first, then its history"
          rowKey={(entry) => entry.country}
          rows={table}
          columns={[
            {
              header: 'Country',
              rowHeader: true,
              cell: (entry) => <span id={`rates-${entry.country}`}>{entry.name}</span>,
            },
            {
              header: 'eBook rate today',
              className: 'whitespace-nowrap',
              cell: (entry) =>
                entry.current ? `${entry.taxName} ${formatRate(entry.current.ebookRateBp)}` : 'none yet',
            },
            {
              header: 'Standard',
              className: 'whitespace-nowrap',
              cell: (entry) => (entry.current ? formatRate(entry.current.standardRateBp) : '—'),
            },
            {
              header: 'History (from: eBook / standard %)',
              cell: (entry) => (
                <ul>
                  {entry.rows.map((row) => (
                    <li key={row.id}>
                      {row.effectiveFrom}: {percent(row.ebookRateBp)} / {percent(row.standardRateBp)}
                      {row.source === 'owner' ? ' (yours)' : ''}
                      {row.note ? ` — ${row.note}` : ''}
                    </li>
                  ))}
                </ul>
              ),
            },
          ]}
        />
      </section>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
