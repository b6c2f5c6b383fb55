import { CartButton } from '#app/features/cart/components/cart-button.tsx'
import { OwnedBadge } from '#app/features/library/components/owned-badge.tsx'
import { useOwnedBookIds } from '#app/features/library/use-owned-books.ts'

/** What a book offers the visitor: 'In your library' once bought, otherwise the cart's add/remove button. */
export function BookAction({ bookId, size = 'normal' }: { bookId: string; size?: 'normal' | 'large' }) {
  const owned = useOwnedBookIds().has(bookId)
  return owned ? <OwnedBadge size={size} /> : <CartButton bookId={bookId} size={size} />
}
