import type { ReactNode } from 'react'
import { Form, type FormProps } from 'react-router'
import { primaryButton } from './button-styles.ts'

/**
 * A form that narrows or orders a list: a GET to the page itself, so the choice is in the address (a link
 * to it, back and forward keep it) and works without JavaScript; its fields in a row, its button at the end.
 * `className` places the row in the page (a margin).
 */
export function FilterForm({
  submitLabel,
  className,
  children,
  ...form
}: {
  submitLabel: string
  className?: string
  children: ReactNode
} & Omit<FormProps, 'method' | 'className' | 'children'>) {
  return (
    <Form method="get" className={`${className ?? ''} flex flex-wrap items-end gap-3`.trim()} {...form}>
      {children}
      <button type="submit" className={primaryButton}>
        {submitLabel}
      </button>
    </Form>
  )
}
