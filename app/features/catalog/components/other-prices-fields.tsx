import { TextField } from '#app/components/ui/text-field.tsx'

/**
 * A book's prices in the store's other currencies (decision 040), on its edit page: each optional, typed by the
 * owner (the store converts nothing). Values come back from a refused save as typed, errors beside their fields.
 */
export function OtherPricesFields({
  prices,
  ownCurrency,
  errors,
}: {
  /** Each currency offered besides the book's own, with its price as the form shows it ('' for none). */
  prices: readonly { currency: string; value: string }[]
  ownCurrency: string
  errors: Readonly<Record<string, string>>
}) {
  if (prices.length === 0) return null
  return (
    <fieldset className="flex flex-col gap-3">
      <legend className="mb-1 text-lg font-semibold">Prices in other currencies</legend>
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Buyers who pay in one of these see this price. Leave one empty and the book is not sold in that
        currency: a cart holding it is priced in {ownCurrency}, at the price above.
      </p>
      <div className="grid gap-5 md:grid-cols-3">
        {prices.map(({ currency, value }) => (
          <TextField
            key={currency}
            label={`Price in ${currency} (optional)`}
            name={`price-${currency}`}
            defaultValue={value}
            inputMode="decimal"
            pattern="[0-9]*(\.[0-9]{1,2})?"
            autoComplete="off"
            placeholder="not sold"
            error={errors[currency]}
          />
        ))}
      </div>
    </fieldset>
  )
}
