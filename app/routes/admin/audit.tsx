import { DataTable, type Column } from '#app/components/ui/data-table.tsx'
import { Pager } from '#app/components/ui/pager.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'
import { listAuditLog } from '#app/features/admin/audit.server.ts'
import { requireAdmin } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import type { Route } from './+types/audit'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Audit log — Back office', 'Audit log in the CodeBook back office.', { matches })

export async function loader({ request, context, url }: Route.LoaderArgs) {
  await requireAdmin({ request, context })
  // Keyset paging: `before` is the id the previous page ended at; anything else shows the newest entries.
  const raw = url.searchParams.get('before')
  const beforeId = raw && /^[1-9]\d{0,15}$/.test(raw) ? Number(raw) : undefined
  const { rows, nextBeforeId } = await listAuditLog(getAppContext(context).db, { beforeId })
  return {
    isFirstPage: beforeId === undefined,
    nextBeforeId,
    entries: rows.map((row) => ({
      id: row.id,
      at: row.createdAt.toISOString(),
      actor: row.actorEmail,
      action: row.action,
      entity: `${row.entityType} ${row.entityId}`,
      before: row.before === null ? null : JSON.stringify(row.before, null, 2),
      after: row.after === null ? null : JSON.stringify(row.after, null, 2),
    })),
  }
}

type Entry = Route.ComponentProps['loaderData']['entries'][number]

const columns: Column<Entry>[] = [
  {
    header: 'When',
    className: 'whitespace-nowrap',
    cell: (entry) => <FormattedDate value={entry.at} style="dateTime" />,
  },
  { header: 'Who', cell: (entry) => <BreakableToken>{entry.actor}</BreakableToken> },
  {
    header: 'What',
    cell: (entry) => (
      <>
        <span className="font-medium">{entry.action}</span>
        <br />
        <BreakableToken className="text-xs text-slate-700 dark:text-slate-300">{entry.entity}</BreakableToken>
      </>
    ),
  },
  {
    header: 'Changed',
    cell: (entry) => (
      <details>
        <summary className="cursor-pointer">Before → after</summary>
        <div className="mt-2 grid gap-2 md:grid-cols-2">
          <div>
            <p className="text-xs font-semibold">Before</p>
            <pre className="max-h-64 overflow-auto rounded bg-slate-100 p-2 text-xs dark:bg-gray-800">
              {entry.before ?? '—'}
            </pre>
          </div>
          <div>
            <p className="text-xs font-semibold">After</p>
            <pre className="max-h-64 overflow-auto rounded bg-slate-100 p-2 text-xs dark:bg-gray-800">
              {entry.after ?? '—'}
            </pre>
          </div>
        </div>
      </details>
    ),
  },
]

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { entries, isFirstPage, nextBeforeId } = loaderData
  return (
    <TitledSection
      id="audit-heading"
      title="Audit log"
      level={1}
      headingClassName="mb-2 text-2xl font-semibold"
    >
      <p className="mb-6 text-sm text-slate-700 dark:text-slate-300">
        Every change made in the back office or with <code>npm run admin</code>, newest first (times in UTC).
      </p>
      {entries.length === 0 ? (
        <p>No changes recorded yet.</p>
      ) : (
        <DataTable columns={columns} rows={entries} rowKey={(entry) => entry.id} />
      )}
      <Pager
        label="Audit log pages"
        first={isFirstPage ? null : { to: '/admin/audit', label: 'Newest entries' }}
        next={
          nextBeforeId === null ? null : { to: `/admin/audit?before=${nextBeforeId}`, label: 'Older entries' }
        }
      />
    </TitledSection>
  )
}
