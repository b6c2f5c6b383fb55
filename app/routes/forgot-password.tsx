import { data, Form, Link } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { AccountCard } from '#app/features/identity/components/account-form.tsx'
import { FormError, linkClass, Notice } from '#app/features/identity/components/account-notice.tsx'
import { refused } from '#app/features/identity/account-outcome.server.ts'
import { EMAIL_MAX_LENGTH, type AccountFormData } from '#app/features/identity/account-forms.ts'
import { EmailField } from '#app/features/identity/components/credential-fields.tsx'
import { requestPasswordReset } from '#app/features/identity/password-reset.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { passOnRetryAfter } from '#app/sign-in.server.ts'
import type { Route } from './+types/forgot-password'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Forgot password', 'Get a link to choose a new password for your CodeBook account.', {
    matches,
  })

export const headers: Route.HeadersFunction = passOnRetryAfter

/** The same answer whether or not the address has an account (decision 017). */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request)
  const email = form.get('email')
  const typed = typeof email === 'string' ? email.slice(0, EMAIL_MAX_LENGTH) : undefined
  const outcome = await requestPasswordReset({ request, context }, form)
  if (!outcome.ok) return refused(outcome, { email: typed })
  return data({ notice: outcome.notice, email: typed } satisfies AccountFormData)
}

export default function ForgotPassword({ actionData }: Route.ComponentProps) {
  const answer = actionData as AccountFormData | undefined
  return (
    <AccountCard title="Forgot password">
      {answer?.notice ? (
        <div className="flex flex-col gap-4">
          <Notice>{answer.notice}</Notice>
          <p className="text-sm">
            No mail after a few minutes? Check your spam folder, or{' '}
            <Link to="/forgot-password" className={linkClass}>
              ask again
            </Link>
            .
          </p>
        </div>
      ) : (
        <Form method="post" action="/forgot-password" className="flex flex-col gap-5">
          {answer?.formError ? <FormError>{answer.formError}</FormError> : null}
          <p className="text-sm text-slate-700 dark:text-slate-300">
            Type the email of your account: we will mail it a link to choose a new password.
          </p>
          <EmailField autoComplete="email" defaultValue={answer?.email} error={answer?.fieldErrors?.email} />
          <button type="submit" className={`${primaryButton} py-2.5`}>
            Send me a link
          </button>
        </Form>
      )}
      <p className="mt-6 text-center text-sm">
        Remembered it?{' '}
        <Link to="/login" className={linkClass}>
          Login
        </Link>
      </p>
    </AccountCard>
  )
}
