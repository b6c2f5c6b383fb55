import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { BookLine, LineBundle } from '#app/features/cart/book-line.ts'

type Line = BookLine & { listPriceCents?: number; discountCents?: number }

/**
 * The books of a cart, a checkout or an order, one line each: cover, title and price; a bundle's books as one
 * line, with the bundle's title, its books and their price together. `large` is the cart's look, where each
 * line also carries the anchor (`#book-<id>`, `#bundle-<id>`) a post without JavaScript is sent back to;
 * `compact` the checkout's and an order's.
 */
export function OrderLines({
  lines,
  size = 'compact',
  linkTitles = false,
  action,
  bundleAction,
}: {
  /** A line with a discount shows its list price struck through before the price paid. */
  lines: readonly Line[]
  size?: 'compact' | 'large'
  /** Each title a link to its book's (or bundle's) page. */
  linkTitles?: boolean
  /** What a book's line ends with, e.g. the cart's remove button. */
  action?: (line: BookLine) => ReactNode
  /** What a bundle's line ends with. */
  bundleAction?: (bundle: LineBundle) => ReactNode
}) {
  const large = size === 'large'
  const title = `flex-1 ${large ? 'text-lg font-semibold' : 'font-medium'}`
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 dark:divide-gray-700 dark:border-gray-700">
      {groupLines(lines).map((group) => {
        const bundle = group[0]!.bundle
        const paid = group.reduce((total, line) => total + line.priceCents, 0)
        const discount = group.reduce((total, line) => total + (line.discountCents ?? 0), 0)
        const price = <Price paid={paid} discount={discount} currency={group[0]!.currency} />
        const row = `flex items-center ${large ? 'gap-4 p-4' : 'gap-3 p-3'}`
        const cover = `${large ? 'h-24 w-16' : 'h-16 w-11'} rounded object-cover`
        if (bundle) {
          return (
            // Wraps on a phone: the price and the button go under the bundle's title, not beside it.
            <li
              key={`bundle-${bundle.id}`}
              id={large ? `bundle-${bundle.id}` : undefined}
              className={`${row} flex-wrap`}
            >
              <span className={`relative shrink-0 ${large ? 'h-24 w-24' : 'h-16 w-16'}`}>
                {group.slice(0, 3).map((line, index) => (
                  <img
                    key={line.bookId}
                    src={line.coverPath}
                    alt=""
                    width={400}
                    height={600}
                    // Fanned by class, not a style attribute: the store's CSP allows no inline styles.
                    className={`${cover} absolute top-0 shadow ring-1 ring-white dark:ring-gray-900 ${(large ? fanLarge : fanCompact)[index]}`}
                  />
                ))}
              </span>
              <span className="flex min-w-40 flex-1 flex-col gap-1">
                {linkTitles ? (
                  <Link to={`/bundles/${bundle.slug}`} className={`${title} hover:underline`}>
                    {bundle.title}
                  </Link>
                ) : (
                  <span className={title}>{bundle.title}</span>
                )}
                <span className="text-sm text-slate-700 dark:text-slate-300">
                  Bundle: {group.map((line) => line.title).join(', ')}
                </span>
                {bundle.ownedCount ? (
                  <span className="text-sm text-slate-700 dark:text-slate-300">
                    You own {bundle.ownedCount} of its {bundle.bookCount} eBooks: you pay for the{' '}
                    {group.length === 1 ? 'other one' : `other ${group.length}`} only.
                  </span>
                ) : null}
              </span>
              <span className="ml-auto flex items-center gap-4">
                {large ? <p className="text-lg">{price}</p> : <span>{price}</span>}
                {bundleAction?.(bundle)}
              </span>
            </li>
          )
        }
        const line = group[0]!
        return (
          <li key={line.bookId} id={large ? `book-${line.bookId}` : undefined} className={row}>
            <img src={line.coverPath} alt="" width={400} height={600} className={cover} />
            {large ? (
              // On a phone the price goes under the title: beside it, a price with cents ('€91.99') left a
              // long title's word no room, and the line's button was pushed out of its box.
              <span className="flex min-w-0 flex-1 flex-col gap-1 sm:flex-row sm:items-center sm:gap-4">
                <BookTitle line={line} link={linkTitles} className={title} />
                <p className="text-lg">{price}</p>
              </span>
            ) : (
              <>
                <BookTitle line={line} link={linkTitles} className={title} />
                <span>{price}</span>
              </>
            )}
            {action?.(line)}
          </li>
        )
      })}
    </ul>
  )
}

function BookTitle({ line, link, className }: { line: BookLine; link: boolean; className: string }) {
  return link ? (
    <Link to={`/books/${line.slug}`} className={`${className} hover:underline`}>
      {line.title}
    </Link>
  ) : (
    <span className="flex-1">{line.title}</span>
  )
}

const fanLarge = ['left-0', 'left-4', 'left-8']
const fanCompact = ['left-0', 'left-2.5', 'left-5']

function Price({ paid, discount, currency }: { paid: number; discount: number; currency: string }) {
  if (!discount) return <>{formatPrice(paid, currency)}</>
  // List price over the price paid, so a narrow line grows down, not out.
  return (
    <span className="flex flex-col items-end leading-tight">
      <span className="sr-only">List price </span>
      <s className="text-sm text-slate-600 dark:text-slate-400">{formatPrice(paid + discount, currency)}</s>
      <span className="sr-only">, you pay </span>
      <span>{formatPrice(paid, currency)}</span>
    </span>
  )
}

/** Each book on its own, each bundle's books together, in the order the first of each comes. */
function groupLines(lines: readonly Line[]): Line[][] {
  const groups: Line[][] = []
  const byBundle = new Map<string, Line[]>()
  for (const line of lines) {
    if (!line.bundle) {
      groups.push([line])
      continue
    }
    const group = byBundle.get(line.bundle.id)
    if (group) group.push(line)
    else {
      const created = [line]
      byBundle.set(line.bundle.id, created)
      groups.push(created)
    }
  }
  return groups
}
