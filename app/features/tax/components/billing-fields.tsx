import { SelectField } from '#app/components/ui/field.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { TextareaField } from '#app/components/ui/textarea-field.tsx'
import { BILLING_LIMITS } from '../billing-limits.ts'
import type { Country } from '../countries.ts'

/** What the page knows of the buyer's VAT number (checkout-buyer.server.ts). */
type ShownVatNumber = { number: string; status: string; message: string }

/**
 * The checkout form's billing country and business VAT number (decisions 036, 038): preselected with what the
 * page is priced for, which the form also carries (`pricedCountry`, `pricedVatNumber`), so a post for another
 * country or number is shown its tax before anything is charged; and, when the evidence disagrees, the
 * buyer's confirmation. Then who the invoice is made out to: optional, required with a VAT number; as typed in
 * a refused post, else as on the buyer's last order.
 */
export function BillingFields({
  countries,
  pricedCountry,
  vat,
  invoiceTo,
  error,
}: {
  countries: readonly Country[]
  pricedCountry: string
  vat: ShownVatNumber | null
  invoiceTo: { name: string; address: string }
  error?: {
    field: 'billingCountry' | 'vatNumber' | 'billingName' | 'billingAddress'
    message: string
    askConfirmation: boolean
  }
}) {
  const priced = countries.find((country) => country.code === pricedCountry)?.name ?? pricedCountry
  return (
    <>
      <input type="hidden" name="pricedCountry" value={pricedCountry} />
      <input type="hidden" name="pricedVatNumber" value={vat?.number ?? ''} />
      <SelectField
        label="Billing country"
        name="billingCountry"
        defaultValue={pricedCountry}
        autoComplete="country"
        hint="The tax you pay is your country’s."
        error={error?.field === 'billingCountry' ? error.message : undefined}
      >
        {countries.map((country) => (
          <option key={country.code} value={country.code}>
            {country.name}
          </option>
        ))}
      </SelectField>
      {error?.askConfirmation ? (
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" name="confirmCountry" value="yes" required className="mt-1" />
          <span>My billing address is in {priced}.</span>
        </label>
      ) : null}
      <TextField
        label="EU VAT number (businesses only, optional)"
        name="vatNumber"
        defaultValue={vat?.number ?? ''}
        autoComplete="off"
        maxLength={30}
        hint={vat?.message ?? 'A business in another EU country pays no VAT here: it accounts for it itself.'}
        error={error?.field === 'vatNumber' ? error.message : undefined}
      />
      <TextField
        label="Name or company on the invoice (optional)"
        name="billingName"
        defaultValue={invoiceTo.name}
        autoComplete="organization"
        maxLength={BILLING_LIMITS.name}
        hint="Your account’s name if empty. Required with a VAT number."
        error={error?.field === 'billingName' ? error.message : undefined}
      />
      <TextareaField
        label="Address on the invoice (optional)"
        name="billingAddress"
        defaultValue={invoiceTo.address}
        autoComplete="street-address"
        rows={3}
        maxLength={BILLING_LIMITS.address}
        hint="Required with a VAT number."
        error={error?.field === 'billingAddress' ? error.message : undefined}
      />
    </>
  )
}
