import { CartButton } from '#app/features/cart/components/cart-button.tsx'
import { OwnedBadge } from '#app/features/library/components/owned-badge.tsx'
import { useOwnedBookIds } from '#app/features/library/use-owned-books.ts'
import { WishlistHeart } from '#app/features/wishlist/components/wishlist-heart.tsx'

/**
 * What a book offers the visitor: 'In your library' once bought, otherwise the wishlist's heart and the
 * cart's add/remove button.
 */
export function BookAction({
  bookId,
  title,
  size = 'normal',
}: {
  bookId: string
  title: string
  size?: 'normal' | 'large'
}) {
  const owned = useOwnedBookIds().has(bookId)
  if (owned) return <OwnedBadge size={size} />
  const heart = <WishlistHeart bookId={bookId} title={title} size={size} />
  const cart = <CartButton bookId={bookId} size={size} />
  // On a card the heart comes before the button at the card's right edge; on the book page after it.
  return (
    <div className="flex items-start gap-3">
      {size === 'large' ? (
        <>
          {cart}
          {heart}
        </>
      ) : (
        <>
          {heart}
          {cart}
        </>
      )}
    </div>
  )
}
