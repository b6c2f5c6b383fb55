import { sellerLines, useStoreIdentity } from '../store-settings.ts'

/**
 * Who sold it, on a web receipt (an order's page): the seller's legal name, postal address and contact email
 * from the store's settings, as far as the owner has set them; nothing at all until then (never an empty
 * 'Seller' heading, never an invented name).
 */
export function SellerBlock() {
  const store = useStoreIdentity()
  const lines = sellerLines(store)
  if (lines.length === 0) return null
  return (
    <section aria-labelledby="seller-heading" className="mt-8 text-sm text-slate-700 dark:text-slate-300">
      <h2 id="seller-heading" className="font-semibold text-slate-900 dark:text-slate-100">
        Seller
      </h2>
      <address className="mt-1 not-italic">
        {lines.map((line, index) => (
          <span key={index} className="block break-words">
            {line === store.contactEmail ? (
              <a
                href={`mailto:${line}`}
                className="text-blue-700 underline underline-offset-2 dark:text-sky-300"
              >
                {line}
              </a>
            ) : (
              line
            )}
          </span>
        ))}
      </address>
    </section>
  )
}
