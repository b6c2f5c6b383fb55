import { useEffect, useRef, type ReactNode } from 'react'
import { Form, useNavigation } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import type { FieldErrors } from '../credentials.ts'

/** What the login and register actions send back when they do not sign the visitor in. */
export type AccountActionData = { fieldErrors?: FieldErrors; formError?: string; email?: string }

/**
 * The frame of the login and register forms: a plain form post (JavaScript off: the action answers with the
 * page and its errors, or a redirect that sets the session cookie), and with JavaScript a pending button
 * and focus moved to the first error after each failed attempt.
 */
export function AccountForm({
  action,
  actionData,
  submitLabel,
  pendingLabel,
  redirectTo,
  children,
}: {
  action: string
  actionData: AccountActionData | undefined
  submitLabel: string
  pendingLabel: string
  redirectTo: string | undefined
  children: ReactNode
}) {
  const formRef = useRef<HTMLFormElement>(null)
  const navigation = useNavigation()
  const pending =
    navigation.state !== 'idle' &&
    navigation.formAction === action &&
    navigation.formData?.get('intent') !== 'guest'

  useEffect(() => {
    if (!actionData) return
    const firstError = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"], [data-form-error]')
    firstError?.focus()
  }, [actionData])

  return (
    <Form ref={formRef} method="post" action={action} className="flex flex-col gap-5">
      {actionData?.formError ? (
        <p
          role="alert"
          tabIndex={-1}
          data-form-error
          className="rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {actionData.formError}
        </p>
      ) : null}
      {children}
      {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
      <button type="submit" className={`${primaryButton} py-2.5`} disabled={pending} aria-busy={pending}>
        {pending ? pendingLabel : submitLabel}
      </button>
    </Form>
  )
}

/** The card the account pages sit in. */
export function AccountCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mx-auto w-full max-w-md px-4 py-12">
      <div className="rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-gray-700 dark:bg-gray-900 dark:shadow-gray-800">
        <h1 className="mb-6 text-center text-2xl font-semibold">{title}</h1>
        {children}
      </div>
    </section>
  )
}
