import { Form } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import { RANGE_CHOICES } from '../range-choices.ts'
import type { RangeErrors } from '../range.ts'

const rangeLabels: Record<(typeof RANGE_CHOICES)[number], string> = {
  '7': 'Last 7 days',
  '30': 'Last 30 days',
  '90': 'Last 90 days',
  custom: 'Custom',
}

/** The dashboard's period, a GET form: the last 7, 30 or 90 days, or two UTC days; its errors beside the fields. */
export function RangeForm({
  form,
  errors,
}: {
  form: { range: string; from: string; to: string }
  errors: RangeErrors | null
}) {
  return (
    <Form
      method="get"
      className="flex flex-col gap-4 rounded-lg border border-slate-300 p-4 dark:border-gray-600"
    >
      {errors ? (
        <div role="alert" className="text-sm text-red-700 dark:text-red-300">
          <p className="font-medium">Those dates cannot be shown:</p>
          <ul className="list-disc pl-5">
            {Object.values(errors).map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <fieldset aria-describedby={errors?.range ? 'range-error' : undefined}>
        <legend className="mb-2 text-sm font-medium">Period</legend>
        <div className="flex flex-wrap gap-4">
          {RANGE_CHOICES.map((choice) => (
            <label key={choice} className="flex items-center gap-2 text-sm">
              <input type="radio" name="range" value={choice} defaultChecked={form.range === choice} />
              {rangeLabels[choice]}
            </label>
          ))}
        </div>
        {errors?.range ? (
          <p id="range-error" className="mt-1 text-sm text-red-700 dark:text-red-300">
            {errors.range}
          </p>
        ) : null}
      </fieldset>
      <div className="flex flex-wrap items-end gap-4">
        {(['from', 'to'] as const).map((name) => (
          <TextField
            key={name}
            label={name === 'from' ? 'First day (custom)' : 'Last day (custom)'}
            name={name}
            type="date"
            defaultValue={form[name]}
            error={errors?.[name]}
          />
        ))}
        <button type="submit" className={primaryButton}>
          Show
        </button>
      </div>
    </Form>
  )
}
