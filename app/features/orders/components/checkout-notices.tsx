import { Form } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import type { BookLine } from '#app/features/cart/book-line.ts'
import { RemoveBundleButton } from '#app/features/bundles/components/bundle-cart-button.tsx'

/**
 * What the checkout says about the cart before its order: books the buyer owns already (not charged again,
 * with a button that takes them out of the cart), bundles that bring nothing new (decision 033), and books
 * no longer for sale.
 */
export function CheckoutNotices({
  alreadyOwned,
  unavailable,
}: {
  alreadyOwned: BookLine[]
  unavailable: BookLine[]
}) {
  const ownedBooks = alreadyOwned.filter((line) => !line.bundle)
  const coveredBundles = alreadyOwned.filter((line) => line.bundle)
  return (
    <>
      {ownedBooks.length > 0 ? (
        <div
          role="status"
          className="mb-6 rounded-lg border border-sky-300 bg-sky-50 p-4 text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
        >
          <p>
            You already own {ownedBooks.map((line) => line.title).join(', ')}, so{' '}
            {ownedBooks.length === 1 ? 'it is' : 'they are'} not charged again and will leave your cart.
          </p>
          <Form method="post" action="/checkout" className="mt-3">
            <button type="submit" name="intent" value="remove-owned" className={primaryButton}>
              Remove {ownedBooks.length === 1 ? 'it' : 'them'} from my cart
            </button>
          </Form>
        </div>
      ) : null}
      {coveredBundles.map((line) => (
        // A bundle whose every book the buyer owns or gets with another line of the cart (decision 033).
        <div
          key={line.bundle!.id}
          role="status"
          className="mb-6 flex flex-wrap items-center gap-3 rounded-lg border border-sky-300 bg-sky-50 p-4 text-sky-900 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100"
        >
          <p className="flex-1">
            The bundle {line.title} brings nothing you do not own or get with the rest of your order, so it is
            not charged.
          </p>
          <RemoveBundleButton bundle={line.bundle!} />
        </div>
      ))}
      {unavailable.length > 0 ? (
        <div
          role="status"
          className="mb-6 rounded-lg border border-amber-700 bg-amber-50 p-4 text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100"
        >
          <p>
            {unavailable.map((line) => line.title).join(', ')} {unavailable.length === 1 ? 'is' : 'are'} no
            longer for sale, so {unavailable.length === 1 ? 'it is' : 'they are'} not part of this order.
          </p>
        </div>
      ) : null}
    </>
  )
}
