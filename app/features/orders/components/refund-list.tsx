import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export type RefundListItem = {
  id: string
  status: 'requested' | 'confirmed' | 'failed'
  /** What it gives back, formatted. */
  amount: string
  /** Each line it gives money back for: 'Title: $9.99'. */
  lines: string[]
  reason: string
  requestedBy: string
  requestedAt: string
  confirmedAt: string | null
  creditNote: string | null
}

/**
 * An order's refunds for the back office, oldest first: how much, where each stands (given back, waiting on the
 * payment provider, or never given back), who asked, its credit note, and what it was for.
 */
export function RefundList({ refunds }: { refunds: RefundListItem[] }) {
  const at = (value: string | null) => (value ? <FormattedDate value={value} style="dateTime" /> : '—')
  return (
    <ul className="flex flex-col gap-2 text-sm">
      {refunds.map((refund) => (
        <li key={refund.id}>
          <span className="font-medium">{refund.amount}</span>{' '}
          {refund.status === 'confirmed' ? (
            <>refunded {at(refund.confirmedAt)}</>
          ) : refund.status === 'requested' ? (
            <>asked for {at(refund.requestedAt)}, waiting on the payment provider</>
          ) : (
            <>asked for {at(refund.requestedAt)}, did not go through</>
          )}{' '}
          by {refund.requestedBy}
          {refund.creditNote ? `, credit note ${refund.creditNote}` : ''}
          <span className="block text-slate-700 dark:text-slate-300">
            {refund.lines.join(' · ')}
            {refund.reason ? ` — ${refund.reason}` : ''}
          </span>
        </li>
      ))}
    </ul>
  )
}
