import { Form } from 'react-router'
import { useHydrated } from '#app/components/use-hydrated.ts'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import { formatPrice } from '#app/features/catalog/format.ts'

/**
 * A pay-what-you-want book's form (issue 30), Leanpub-style: the amount field works without JavaScript; with
 * it, a slider from the minimum to three times the suggested price moves the field too. The server checks the
 * amount (pay-what-you-want.ts) and sends a refused one back here with the reason.
 */
export function PayWhatYouWantForm({
  book,
  error,
  typed,
}: {
  book: {
    id: string
    slug: string
    title: string
    priceCents: number
    pwywMinCents: number
    currency: string
  }
  error: string | null
  typed: string | null
}) {
  const scripted = useHydrated()
  const dollars = (cents: number) => (cents / 100).toFixed(2)
  const sliderMax = Math.max(book.priceCents * 3, book.pwywMinCents + 1000)
  return (
    <section
      id="pay-what-you-want"
      aria-labelledby="pay-what-you-want-heading"
      className="rounded-lg border border-slate-300 p-4 dark:border-gray-600"
    >
      <h2 id="pay-what-you-want-heading" className="text-lg font-semibold">
        Pay what you want
      </h2>
      <p className="mt-1 text-sm text-slate-700 dark:text-slate-300">
        Suggested price {formatPrice(book.priceCents, book.currency)}; pay{' '}
        {book.pwywMinCents === 0
          ? 'nothing or more'
          : `${formatPrice(book.pwywMinCents, book.currency)} or more`}
        . You get the same eBook whatever you pay.
      </p>
      <Form method="post" action="/cart" className="mt-3 flex flex-col gap-3">
        <input type="hidden" name="intent" value="choose-price" />
        <input type="hidden" name="bookId" value={book.id} />
        {scripted ? (
          <input
            type="range"
            aria-label="Your price, on a slider"
            min={dollars(book.pwywMinCents)}
            max={dollars(sliderMax)}
            step="0.5"
            // Where the field is: what was typed (sent back with a reason), else the suggested price.
            defaultValue={typed && /^\d+(\.\d{1,2})?$/.test(typed) ? typed : dollars(book.priceCents)}
            onInput={(event) => {
              const field = event.currentTarget.form?.elements.namedItem('amount')
              if (field instanceof HTMLInputElement)
                field.value = Number(event.currentTarget.value).toFixed(2)
            }}
            className="w-full accent-blue-700"
          />
        ) : null}
        <div className="flex flex-wrap items-end gap-3">
          <TextField
            label={`Your price (${book.currency})`}
            name="amount"
            inputMode="decimal"
            autoComplete="off"
            required
            requiredMessage="Enter what you want to pay"
            defaultValue={typed ?? dollars(book.priceCents)}
            error={error ?? undefined}
            maxLength={12}
          />
          <button type="submit" className={`${primaryButton} mb-px`}>
            Add to cart at this price<span className="sr-only">: {book.title}</span>
          </button>
        </div>
      </Form>
    </section>
  )
}
