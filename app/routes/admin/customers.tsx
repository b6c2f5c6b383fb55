import { Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { DataTable } from '#app/components/ui/data-table.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { listCustomers } from '#app/features/admin/customers.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/customers'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Customers — Back office', 'The store’s customers, by email.', { matches })

/** Customers by email, found by part of it; guests are left out. `?after=` is the keyset cursor. */
export async function loader({ request, context }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  const url = new URL(request.url)
  const query = (url.searchParams.get('q') ?? '').trim().slice(0, 254)
  const after = url.searchParams.get('after') ?? undefined
  const page = await listCustomers(getAppContext(context).db, { query, afterEmail: after })
  const next = page.nextAfterEmail
    ? `?${new URLSearchParams({ ...(query ? { q: query } : {}), after: page.nextAfterEmail })}`
    : null
  return {
    query,
    next,
    customers: page.rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
  }
}

export default function Customers({ loaderData }: Route.ComponentProps) {
  return (
    <TitledSection
      id="customers-heading"
      title="Customers"
      level={1}
      headingClassName="mb-6 text-2xl font-semibold"
    >
      <Form method="get" role="search" className="mb-6 flex flex-wrap items-end gap-3">
        <TextField label="Email contains" name="q" type="search" defaultValue={loaderData.query} />
        <button type="submit" className={primaryButton}>
          Search
        </button>
      </Form>
      {loaderData.customers.length === 0 ? (
        <p>No customer matches.</p>
      ) : (
        <DataTable
          caption="Customers by email"
          rowKey={(customer) => customer.id}
          rows={loaderData.customers}
          columns={[
            {
              header: 'Email',
              rowHeader: true,
              cell: (customer) => (
                <Link
                  to={`/admin/customers/${customer.id}`}
                  className="text-blue-700 underline dark:text-sky-300"
                >
                  <BreakableToken>{customer.email}</BreakableToken>
                </Link>
              ),
            },
            { header: 'Role', cell: (customer) => customer.role },
            {
              header: 'Since',
              cell: (customer) => <FormattedDate value={customer.createdAt} />,
              className: 'whitespace-nowrap',
            },
          ]}
        />
      )}
      {loaderData.next ? (
        <p className="mt-4">
          <Link to={loaderData.next} className="text-blue-700 underline dark:text-sky-300">
            Next page
          </Link>
        </p>
      ) : null}
    </TitledSection>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
