import { Link } from 'react-router'

/** A link to another page of a list, or null when there is none. */
export type PageLink = { to: string; label: string } | null

/**
 * The links of a list paged by keyset: back to its first page, on to the next one. Either is left out when
 * there is no such page.
 */
export function Pager({ label, first, next }: { label: string; first: PageLink; next: PageLink }) {
  return (
    <nav aria-label={label} className="mt-6 flex gap-4">
      {[first, next].map((link) =>
        link ? (
          <Link key={link.label} to={link.to} className="text-blue-700 underline dark:text-sky-300">
            {link.label}
          </Link>
        ) : null,
      )}
    </nav>
  )
}
