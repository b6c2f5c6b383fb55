import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { formatPrice } from '#app/features/catalog/format.ts'
import type { BookLine } from '#app/features/cart/book-line.ts'

/**
 * The books of a cart, a checkout or an order, one line each: cover, title and price. `large` is the cart's
 * look, where each line also carries the anchor (`#book-<id>`) a post without JavaScript is sent back to;
 * `compact` the checkout's and an order's.
 */
export function OrderLines({
  lines,
  size = 'compact',
  linkTitles = false,
  action,
}: {
  /** A line with a discount shows its list price struck through before the price paid. */
  lines: readonly (BookLine & { listPriceCents?: number; discountCents?: number })[]
  size?: 'compact' | 'large'
  /** Each title a link to its book's page. */
  linkTitles?: boolean
  /** What a line ends with, e.g. the cart's remove button. */
  action?: (line: BookLine) => ReactNode
}) {
  const large = size === 'large'
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 dark:divide-gray-700 dark:border-gray-700">
      {lines.map((line) => {
        const paid = formatPrice(line.priceCents, line.currency)
        const price =
          line.discountCents && line.listPriceCents !== undefined ? (
            // List price over the price paid, so a narrow line grows down, not out.
            <span className="flex flex-col items-end leading-tight">
              <span className="sr-only">List price </span>
              <s className="text-sm text-slate-600 dark:text-slate-400">
                {formatPrice(line.listPriceCents, line.currency)}
              </s>
              <span className="sr-only">, you pay </span>
              <span>{paid}</span>
            </span>
          ) : (
            paid
          )
        return (
          <li
            key={line.bookId}
            id={large ? `book-${line.bookId}` : undefined}
            className={`flex items-center ${large ? 'gap-4 p-4' : 'gap-3 p-3'}`}
          >
            <img
              src={line.coverPath}
              alt=""
              width={400}
              height={600}
              className={`${large ? 'h-24 w-16' : 'h-16 w-11'} rounded object-cover`}
            />
            {linkTitles ? (
              <Link
                to={`/books/${line.slug}`}
                className={`flex-1 ${large ? 'text-lg font-semibold' : 'font-medium'} hover:underline`}
              >
                {line.title}
              </Link>
            ) : (
              <span className="flex-1">{line.title}</span>
            )}
            {large ? <p className="text-lg">{price}</p> : <span>{price}</span>}
            {action?.(line)}
          </li>
        )
      })}
    </ul>
  )
}
