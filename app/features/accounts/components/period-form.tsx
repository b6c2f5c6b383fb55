import { PeriodForm as PeriodFormShell } from '#app/components/ui/period-form.tsx'
import { TextField } from '#app/components/ui/text-field.tsx'
import { FIRST_YEAR, LAST_YEAR, type PeriodErrors, type PeriodForm, type PeriodKind } from '../period.ts'

const kindLabels: Record<PeriodKind, string> = {
  month: 'Month',
  quarter: 'Quarter',
  year: 'Year',
  custom: 'Custom',
}

/** The accounts' period: a month, a quarter, a year or two days; each message beside its field. */
export function PeriodForm({ form, errors }: { form: PeriodForm; errors: PeriodErrors | null }) {
  return (
    <PeriodFormShell
      refusedTitle="That period cannot be shown:"
      errors={errors}
      choice={{ name: 'period', labels: kindLabels, checked: form.period, error: errors?.period }}
    >
      <TextField
        label="Month"
        name="month"
        type="month"
        placeholder="YYYY-MM"
        defaultValue={form.month}
        error={errors?.month}
      />
      <TextField
        label="Quarter"
        name="quarter"
        placeholder="YYYY-Q1"
        pattern="\d{4}-Q[1-4]"
        defaultValue={form.quarter}
        error={errors?.quarter}
        hint="e.g. 2026-Q1"
      />
      <TextField
        label="Year"
        name="year"
        type="number"
        min={FIRST_YEAR}
        max={LAST_YEAR}
        defaultValue={form.year}
        error={errors?.year}
      />
      <TextField
        label="First day (custom)"
        name="from"
        type="date"
        defaultValue={form.from}
        error={errors?.from}
      />
      <TextField label="Last day (custom)" name="to" type="date" defaultValue={form.to} error={errors?.to} />
    </PeriodFormShell>
  )
}
