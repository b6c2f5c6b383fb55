/**
 * What a buyer gets, beside the price: 'Instant download · PDF + EPUB · DRM-free · free updates'. The formats
 * are the ones the book has files for (a book without files yet names none); the files are stamped with the
 * buyer's email, not locked, and the library always serves the newest edition.
 */
export function EbookOffer({ formats }: { formats: readonly { label: string }[] }) {
  const parts = [
    'Instant download',
    formats.map((format) => format.label).join(' + '),
    'DRM-free',
    'free updates',
  ].filter(Boolean)
  return <p className="text-sm font-medium text-slate-700 dark:text-slate-300">{parts.join(' · ')}</p>
}
