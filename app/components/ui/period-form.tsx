import type { ReactNode } from 'react'
import { Form } from 'react-router'
import { primaryButton } from './button-styles.ts'

/**
 * A report's period, as a GET form (the period is in the address; it works without JavaScript): the kinds of
 * period as radio buttons, then each kind's fields (`children`; every field shown, since a page without
 * JavaScript cannot hide them, and only the chosen kind's is read), then 'Show'. Refused input is summed up
 * first, under `refusedTitle`, and each message is also beside its field. The analytics' ranges and the
 * accounts' periods both use it.
 */
export function PeriodForm<Choice extends string>({
  refusedTitle,
  errors,
  choice,
  children,
}: {
  refusedTitle: string
  errors: Partial<Record<string, string>> | null
  /** The radio buttons: their field's name, each value's label, the one checked and its error. */
  choice: { name: string; labels: Record<Choice, string>; checked: string; error?: string }
  children: ReactNode
}) {
  const errorId = `${choice.name}-error`
  return (
    <Form
      method="get"
      className="flex flex-col gap-4 rounded-lg border border-slate-300 p-4 dark:border-gray-600"
    >
      {errors ? (
        <div role="alert" className="text-sm text-red-700 dark:text-red-300">
          <p className="font-medium">{refusedTitle}</p>
          <ul className="list-disc pl-5">
            {Object.values(errors).map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <fieldset aria-describedby={choice.error ? errorId : undefined}>
        <legend className="mb-2 text-sm font-medium">Period</legend>
        <div className="flex flex-wrap gap-4">
          {(Object.entries(choice.labels) as [Choice, string][]).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name={choice.name}
                value={value}
                defaultChecked={choice.checked === value}
              />
              {label}
            </label>
          ))}
        </div>
        {choice.error ? (
          <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-300">
            {choice.error}
          </p>
        ) : null}
      </fieldset>
      <div className="flex flex-wrap items-start gap-4">{children}</div>
      <div>
        <button type="submit" className={primaryButton}>
          Show
        </button>
      </div>
    </Form>
  )
}
