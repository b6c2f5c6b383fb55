import { Form } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { FormattedDate } from '#app/features/locale/components/formatted-date.tsx'

export type OrderDocument = {
  id: string
  kind: 'invoice' | 'credit_note'
  number: string
  issuedAt: string
  /** What it charges or credits, formatted. */
  total: string
  /** Where its PDF downloads from (the buyer's and the back office's routes differ). */
  href: string
}

/**
 * An order's invoice and credit notes, each a download of its PDF as issued (a plain link: a file, not a page
 * for the client router): 'Download invoice (PDF)' and one
 * link per credit note, named by its number so that a screen reader's list of links tells them apart.
 */
export function OrderDocuments({ documents }: { documents: OrderDocument[] }) {
  return (
    <ul className="flex flex-col gap-2 text-sm">
      {documents.map((document) => (
        <li key={document.id}>
          <a href={document.href} className="font-medium text-blue-700 underline dark:text-sky-300">
            {document.kind === 'invoice'
              ? 'Download invoice (PDF)'
              : `Download credit note ${document.number} (PDF)`}
          </a>{' '}
          <span className="text-slate-700 dark:text-slate-300">
            {document.kind === 'invoice' ? `${document.number}, ` : ''}
            {document.kind === 'invoice' ? 'for ' : 'credits '}
            {document.total}, issued <FormattedDate value={document.issuedAt} />
          </span>
        </li>
      ))}
    </ul>
  )
}

/**
 * The back office's view of an order's documents: the downloads, or why a paid order has no invoice with the
 * 'Issue invoice' button (the order page's action, `intent=issue-invoice`), and that action's refusal.
 */
export function AdminOrderDocuments({
  documents,
  missingInvoice,
  error,
  submitting,
}: {
  documents: OrderDocument[]
  missingInvoice: string | null
  error: string | undefined
  submitting: boolean
}) {
  return (
    <>
      {documents.length > 0 ? <OrderDocuments documents={documents} /> : null}
      {missingInvoice ? (
        <Form method="post" className="flex flex-wrap items-center gap-4 text-sm">
          <p>{missingInvoice}</p>
          <input type="hidden" name="intent" value="issue-invoice" />
          <button type="submit" className={primaryButton} disabled={submitting}>
            Issue invoice
          </button>
        </Form>
      ) : documents.length === 0 ? (
        <p className="text-sm">None: the order was not paid.</p>
      ) : null}
      {error ? (
        <p role="alert" className="mt-2 text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      ) : null}
    </>
  )
}
