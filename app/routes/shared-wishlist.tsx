import { data } from 'react-router'
import { SectionHeading } from '#app/components/ui/section-heading.tsx'
import { BookAction } from '#app/compositions/book-action.tsx'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { WishlistBooks } from '#app/features/wishlist/components/wishlist-books.tsx'
import { findSharedWishlist } from '#app/features/wishlist/wishlist.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { secretUrlHeaders } from '#app/sign-in.server.ts'
import type { Route } from './+types/shared-wishlist'

/**
 * A wishlist its reader shared (issue 30): the books on it and nothing of its reader (no name, no email).
 * Never indexed; its URL holds the token, so no cache keeps it (stopping the share must take it down at once)
 * and no Referer carries it on. An unknown or withdrawn token: 404.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const shared = await findSharedWishlist(getAppContext(context).db, params.token)
  if (!shared)
    throw data(
      {
        title: 'Wishlist not found',
        message: 'This wishlist is not shared, or no longer: ask its reader for a new link.',
      },
      { status: 404, headers: { 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } },
    )
  return { lines: shared.lines }
}

export const headers: Route.HeadersFunction = secretUrlHeaders

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta("A reader's wishlist", 'eBooks a CodeBook reader would like.', { matches })

export default function SharedWishlist({ loaderData }: Route.ComponentProps) {
  const { lines } = loaderData
  return (
    <section className="mx-auto max-w-4xl px-4 py-12">
      <SectionHeading level={1}>A reader&apos;s wishlist</SectionHeading>
      {lines.length === 0 ? (
        <p className="text-center text-lg text-slate-600 dark:text-slate-300">
          Nothing on this wishlist yet.
        </p>
      ) : (
        <WishlistBooks
          lines={lines}
          actions={(line) => (line.available ? <BookAction bookId={line.bookId} title={line.title} /> : null)}
        />
      )}
    </section>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '#app/components/error-boundary.tsx'
