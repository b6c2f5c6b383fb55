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
