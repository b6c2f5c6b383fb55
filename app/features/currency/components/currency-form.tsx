import { Form } from 'react-router'
import { outlineButton } from '#app/components/ui/button-styles.ts'
import { SelectField } from '#app/components/ui/field.tsx'
import type { CurrencyOption } from '../currencies.ts'

/**
 * The buyer's currency (decision 040): a list of the currencies the store offers and a button, posting to
 * /currency, which remembers the choice and comes back here. Works without JavaScript. Shown only when the store
 * offers more than one.
 */
export function CurrencyForm({
  options,
  current,
  redirectTo,
  hint,
}: {
  options: readonly CurrencyOption[]
  current: string
  redirectTo: string
  hint?: string
}) {
  if (options.length < 2) return null
  return (
    <Form method="post" action="/currency" className="flex max-w-xs flex-col gap-1">
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <div className="flex items-end gap-3">
        <SelectField
          // Chosen again, the list starts from the new choice.
          key={current}
          label="Currency"
          name="currency"
          defaultValue={current}
        >
          {options.map((option) => (
            <option key={option.code} value={option.code}>
              {option.code} — {option.name}
            </option>
          ))}
        </SelectField>
        <button type="submit" className={`${outlineButton} mb-px`}>
          Change
        </button>
      </div>
      {hint ? <p className="text-sm text-slate-600 dark:text-slate-300">{hint}</p> : null}
    </Form>
  )
}
