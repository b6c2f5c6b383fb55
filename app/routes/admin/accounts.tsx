import { data, Link } from 'react-router'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { MoneyTable } from '#app/features/accounts/components/money-table.tsx'
import { PeriodForm } from '#app/features/accounts/components/period-form.tsx'
import { TaxReturnTables } from '#app/features/accounts/components/tax-return-table.tsx'
import { periodQuery } from '#app/features/accounts/period.ts'
import { readAccountsPeriod } from '#app/features/accounts/period.server.ts'
import { getMoney } from '#app/features/accounts/revenue.server.ts'
import { getTaxReturn } from '#app/features/accounts/tax-return.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/accounts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Accounts — Back office', 'The accounts of the CodeBook store, for the accountant.', {
    matches,
  })

/**
 * /admin/accounts?period=month&month=YYYY-MM (or quarter=YYYY-Q1, year=YYYY, from=…&to=…): the period's gross
 * sales, refunds, tax and net revenue per currency, its tax per country and rate, and the accountant's files.
 * No period: this month. A bad one: 400, its message beside its field.
 */
export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const { form, timeZone, resolved } = readAccountsPeriod(url.searchParams)
  if (!resolved.ok)
    return data(
      { form, timeZone, errors: resolved.errors, period: null, money: [], taxReturn: [] },
      { status: 400 },
    )
  const { db } = getAppContext(context)
  const { period } = resolved
  const [money, taxReturn] = await Promise.all([getMoney(db, period), getTaxReturn(db, period)])
  return { form, timeZone, errors: null, period, money, taxReturn }
}

const linkClass = 'text-blue-700 underline dark:text-sky-300'
const mutedClass = 'text-sm text-slate-700 dark:text-slate-300'

export default function Accounts({ loaderData }: Route.ComponentProps) {
  const { form, timeZone, errors, period, money, taxReturn } = loaderData
  const query = periodQuery(form)
  const downloads = [
    ['orders.csv', 'Orders paid (CSV)'],
    ['documents.csv', 'Invoices and credit notes issued (CSV)'],
    ['refunds.csv', 'Refunds confirmed (CSV)'],
    ['tax.csv', 'Tax per country and rate (CSV)'],
    ['accounts.xlsx', 'All four as one workbook (XLSX)'],
  ] as const
  return (
    <TitledSection
      id="accounts-heading"
      title="Accounts"
      level={1}
      headingClassName="mb-2 text-2xl font-semibold"
    >
      <div className="flex flex-col gap-8">
        <p className={mutedClass}>
          For your accountant. A period is whole calendar days in {timeZone === 'UTC' ? 'UTC' : timeZone}
          {timeZone === 'UTC' ? ' (the store has no time zone of its own)' : ''}. An order counts on the day
          it was paid, a refund on the day it was confirmed (whatever period its order was paid in); refunds
          requested and not confirmed, or failed, do not count.
        </p>
        <PeriodForm form={form} errors={errors} />
        {period ? (
          <>
            <TitledSection
              id="money-heading"
              title={`${period.label}`}
              headingClassName="mb-1 text-xl font-semibold"
            >
              <p className={`mb-3 ${mutedClass}`}>
                {period.from} to {period.to}, {timeZone}. Net revenue is gross sales less refunds less tax.
              </p>
              {money.length === 0 ? (
                <p>No sale and no refund in this period.</p>
              ) : (
                <MoneyTable money={money} caption={`Money in ${period.label}, per currency`} />
              )}
            </TitledSection>
            <TitledSection
              id="downloads-heading"
              title="Downloads"
              headingClassName="mb-3 text-xl font-semibold"
            >
              <ul className="flex flex-col gap-2">
                {downloads.map(([file, label]) => (
                  <li key={file}>
                    <Link to={`/admin/accounts/${file}?${query}`} reloadDocument className={linkClass}>
                      {label}
                    </Link>
                  </li>
                ))}
              </ul>
            </TitledSection>
            <TitledSection
              id="tax-heading"
              title="Tax per country and rate"
              headingClassName="mb-3 text-xl font-semibold"
            >
              <p className={`mb-3 ${mutedClass}`}>
                Sales paid in the period less refunds confirmed in it, from the tax stored on each order line.
              </p>
              <TaxReturnTables rows={taxReturn} />
            </TitledSection>
          </>
        ) : null}
      </div>
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
