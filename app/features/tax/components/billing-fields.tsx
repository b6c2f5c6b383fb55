import { SelectField } from '#app/components/ui/field.tsx'
import type { Country } from '../countries.ts'

/**
 * The checkout form's billing country (decision 038): preselected with the country the page is priced for,
 * which the form also carries (`pricedCountry`), so a post for another country is shown its tax before
 * anything is charged; and, when the evidence disagrees, the buyer's confirmation.
 */
export function BillingFields({
  countries,
  pricedCountry,
  error,
  askConfirmation,
}: {
  countries: readonly Country[]
  pricedCountry: string
  error?: string
  askConfirmation: boolean
}) {
  const priced = countries.find((country) => country.code === pricedCountry)?.name ?? pricedCountry
  return (
    <>
      <input type="hidden" name="pricedCountry" value={pricedCountry} />
      <SelectField
        label="Billing country"
        name="billingCountry"
        defaultValue={pricedCountry}
        autoComplete="country"
        hint="The tax you pay is your country’s."
        error={error}
      >
        {countries.map((country) => (
          <option key={country.code} value={country.code}>
            {country.name}
          </option>
        ))}
      </SelectField>
      {askConfirmation ? (
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" name="confirmCountry" value="yes" required className="mt-1" />
          <span>My billing address is in {priced}.</span>
        </label>
      ) : null}
    </>
  )
}
