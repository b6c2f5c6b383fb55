import { Form } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { TextField } from '#app/components/ui/text-field.tsx'
import { FIRST_YEAR, LAST_YEAR, PERIOD_KINDS, type PeriodErrors, type PeriodForm } from '../period.ts'

const kindLabels = { month: 'Month', quarter: 'Quarter', year: 'Year', custom: 'Custom' } as const

/**
 * The accounts' period, a GET form: a month, a quarter, a year or two days; each message beside its field.
 * Every field is shown (a page without JavaScript cannot hide them); only the chosen kind's is read.
 */
export function PeriodForm({ form, errors }: { form: PeriodForm; errors: PeriodErrors | null }) {
  return (
    <Form
      method="get"
      className="flex flex-col gap-4 rounded-lg border border-slate-300 p-4 dark:border-gray-600"
    >
      {errors ? (
        <div role="alert" className="text-sm text-red-700 dark:text-red-300">
          <p className="font-medium">That period cannot be shown:</p>
          <ul className="list-disc pl-5">
            {Object.values(errors).map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <fieldset aria-describedby={errors?.period ? 'period-error' : undefined}>
        <legend className="mb-2 text-sm font-medium">Period</legend>
        <div className="flex flex-wrap gap-4">
          {PERIOD_KINDS.map((kind) => (
            <label key={kind} className="flex items-center gap-2 text-sm">
              <input type="radio" name="period" value={kind} defaultChecked={form.period === kind} />
              {kindLabels[kind]}
            </label>
          ))}
        </div>
        {errors?.period ? (
          <p id="period-error" className="mt-1 text-sm text-red-700 dark:text-red-300">
            {errors.period}
          </p>
        ) : null}
      </fieldset>
      <div className="flex flex-wrap items-start gap-4">
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
        <TextField
          label="Last day (custom)"
          name="to"
          type="date"
          defaultValue={form.to}
          error={errors?.to}
        />
      </div>
      <div>
        <button type="submit" className={primaryButton}>
          Show
        </button>
      </div>
    </Form>
  )
}
