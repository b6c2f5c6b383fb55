import { TextField } from '#app/components/ui/text-field.tsx'
import { emptyCardFieldMessages, type CheckoutField } from '../checkout-messages.ts'

/**
 * The test payment provider's card form (no real money): name, number, expiry and CVC, each required, refused
 * empty in the store's words, with the last post's error beside it.
 */
export function TestCardFields({ errors }: { errors?: Partial<Record<CheckoutField, string>> }) {
  const cardField = (name: CheckoutField) => ({
    name,
    required: true,
    requiredMessage: emptyCardFieldMessages[name],
    error: errors?.[name],
  })
  return (
    <>
      <p className="rounded-lg border border-amber-700 bg-amber-50 p-3 text-sm font-semibold text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100">
        Test mode — no real money. Use 4242 4242 4242 4242 with any future expiry and any CVC.
      </p>
      <TextField label="Name on card" {...cardField('name')} autoComplete="cc-name" maxLength={100} />
      <TextField
        label="Card number"
        {...cardField('number')}
        inputMode="numeric"
        autoComplete="cc-number"
        maxLength={23}
      />
      <div className="grid grid-cols-2 gap-4">
        <TextField
          label="Expiry (MM/YY)"
          {...cardField('expiry')}
          autoComplete="cc-exp"
          maxLength={7}
          placeholder="MM/YY"
        />
        <TextField
          label="CVC"
          {...cardField('cvc')}
          inputMode="numeric"
          autoComplete="cc-csc"
          maxLength={4}
        />
      </div>
    </>
  )
}
