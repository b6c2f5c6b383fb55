import { formatFileSize } from '../format.ts'

const badge = 'rounded-md border px-2 py-1 text-xs font-semibold tracking-wide'

/** BEST SELLER, INSTOCK, and the size of each format offered ('PDF 1.2 MB', 'EPUB 240 KB'). */
export function BookBadges({
  bestSeller,
  available,
  formats,
}: {
  bestSeller: boolean
  available: boolean
  formats: { label: string; sizeBytes: number }[]
}) {
  return (
    <ul className="flex flex-wrap gap-2" aria-label="About this eBook">
      {bestSeller ? (
        <li className={`${badge} border-amber-300 bg-amber-50 text-amber-800`}>BEST SELLER</li>
      ) : null}
      {available ? (
        <li className={`${badge} border-emerald-300 bg-slate-100 text-emerald-800`}>INSTOCK</li>
      ) : (
        <li className={`${badge} border-slate-300 bg-slate-100 text-slate-700`}>UNAVAILABLE</li>
      )}
      {formats.map((format) => (
        <li key={format.label} className={`${badge} border-blue-300 bg-slate-100 text-blue-800`}>
          {format.label} {formatFileSize(format.sizeBytes)}
        </li>
      ))}
    </ul>
  )
}
