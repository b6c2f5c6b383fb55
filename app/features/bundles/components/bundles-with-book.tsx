import { Link } from 'react-router'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { BundleWithBook } from '../bundles.server.ts'

/**
 * On a book's page, the bundles it is in: 'Also in a bundle: <title> — $39.00 for 3 eBooks', each linking to
 * the bundle's page. Nothing when the book is in none.
 */
export function BundlesWithBook({ bundles }: { bundles: BundleWithBook[] }) {
  if (bundles.length === 0) return null
  return (
    <ul aria-label="Bundles with this eBook" className="flex flex-col gap-1">
      {bundles.map((bundle) => (
        <li key={bundle.slug}>
          Also in a bundle:{' '}
          <Link
            to={`/bundles/${bundle.slug}`}
            className="font-medium text-blue-700 underline underline-offset-4 dark:text-sky-300"
          >
            {bundle.title}
          </Link>{' '}
          — {formatPrice(bundle.priceCents, bundle.currency)} for {bundle.bookCount}&nbsp;eBooks
        </li>
      ))}
    </ul>
  )
}
