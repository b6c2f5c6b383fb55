import { Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { AccountCard } from '#app/features/identity/components/account-form.tsx'
import { FormError } from '#app/features/identity/components/account-notice.tsx'
import { refused } from '#app/features/identity/account-outcome.server.ts'
import { accountMessages, type AccountFormData } from '#app/features/identity/account-forms.ts'
import { PasswordField } from '#app/features/identity/components/credential-fields.tsx'
import { checkResetToken, resetPassword } from '#app/features/identity/password-reset.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { secretUrlHeaders } from '#app/sign-in.server.ts'
import type { Route } from './+types/reset-password'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Choose a new password', 'Choose a new password for your CodeBook account.', { matches })

/** The mailed link: the form while its token is good, else why not and how to get a new one. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get('token') ?? ''
  const usable =
    token.length > 0 && token.length <= 200 && (await checkResetToken(getAppContext(context).db, token))
  return { token: usable ? token : null }
}

export const headers: Route.HeadersFunction = secretUrlHeaders

export async function action({ request, context }: Route.ActionArgs) {
  const outcome = await resetPassword({ request, context }, await readForm(request))
  if (!outcome.ok) return refused(outcome)
  // Every session is gone, this browser's too: log in with the new password.
  throw redirect('/login?passwordReset=1', { status: 303 })
}

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const answer = actionData as AccountFormData | undefined
  const { token } = loaderData
  return (
    <AccountCard title="Choose a new password">
      {token ? (
        <Form method="post" className="flex flex-col gap-5">
          {answer?.formError ? <FormError>{answer.formError}</FormError> : null}
          <input type="hidden" name="token" value={token} />
          <PasswordField
            kind="new"
            label="New password"
            name="newPassword"
            error={answer?.fieldErrors?.newPassword}
          />
          <button type="submit" className={`${primaryButton} py-2.5`}>
            Save my new password
          </button>
        </Form>
      ) : (
        <div className="flex flex-col gap-4">
          <FormError>{accountMessages.resetLinkUnusable}</FormError>
          <Link to="/forgot-password" className={`${primaryButton} py-2.5`}>
            Get a new link
          </Link>
        </div>
      )}
    </AccountCard>
  )
}
