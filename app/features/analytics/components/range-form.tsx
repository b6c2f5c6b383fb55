import { PeriodForm } from '#app/components/ui/period-form.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import type { RANGE_CHOICES } from '../range-choices.ts'
import type { RangeErrors } from '../range.ts'

const rangeLabels: Record<(typeof RANGE_CHOICES)[number], string> = {
  '7': 'Last 7 days',
  '30': 'Last 30 days',
  '90': 'Last 90 days',
  custom: 'Custom',
}

/** The dashboard's period: the last 7, 30 or 90 days, or two UTC days; its errors beside the fields. */
export function RangeForm({
  form,
  errors,
}: {
  form: { range: string; from: string; to: string }
  errors: RangeErrors | null
}) {
  return (
    <PeriodForm
      refusedTitle="Those dates cannot be shown:"
      errors={errors}
      choice={{ name: 'range', labels: rangeLabels, checked: form.range, error: errors?.range }}
    >
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
    </PeriodForm>
  )
}
