import { Form } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { SelectField } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TitledSection } from '#app/components/ui/titled-section.tsx'

export type FillPricesAnswer = {
  notice?: string
  errors?: Partial<Record<'currency' | 'rate', string>>
  values?: Record<string, string>
}

/**
 * The books list's bulk fill (decision 040): every book in the base currency priced in another currency at a
 * rate the owner types, rounded to .99; the prices set already kept unless replaced. A plain post.
 */
export function FillPricesForm({
  base,
  others,
  answer,
}: {
  base: string
  others: readonly string[]
  answer: FillPricesAnswer | undefined
}) {
  if (others.length === 0) return null
  return (
    <TitledSection
      id="fill-prices-heading"
      title="Prices in other currencies"
      className="mt-10 flex flex-col gap-3"
      headingClassName="text-xl font-semibold"
    >
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Fill every {base} book’s price in another currency at your rate, rounded to the nearest .99 (49.00 at
        0.92 is 44.99). Nothing is fetched: the rate is yours. Each book’s edit page shows its prices, to
        change one by one.
      </p>
      {answer?.notice ? (
        <p
          role="status"
          className="rounded-lg border border-emerald-700 p-3 text-emerald-800 dark:border-emerald-300 dark:text-emerald-200"
        >
          {answer.notice}
        </p>
      ) : null}
      <Form method="post" className="flex flex-wrap items-end gap-4">
        <input type="hidden" name="intent" value="fill-prices" />
        <SelectField
          label="Currency"
          name="currency"
          defaultValue={answer?.values?.currency ?? others[0]}
          error={answer?.errors?.currency}
        >
          {others.map((currency) => (
            <option key={currency} value={currency}>
              {currency}
            </option>
          ))}
        </SelectField>
        <TextField
          label={`Rate (1 ${base} is worth)`}
          name="rate"
          inputMode="decimal"
          autoComplete="off"
          placeholder="0.92"
          defaultValue={answer?.values?.rate}
          error={answer?.errors?.rate}
        />
        <label className="flex items-center gap-2 pb-2">
          <input
            type="checkbox"
            name="replace"
            defaultChecked={answer?.values?.replace === 'on'}
            className="size-4 accent-blue-700"
          />
          Replace prices already set
        </label>
        <button type="submit" className={primaryButton}>
          Fill prices
        </button>
      </Form>
    </TitledSection>
  )
}
