import { data, Form, Link, redirect, useNavigation } from 'react-router'
import { dangerButton } from '#app/components/ui/button-styles.ts'
import {
  confirmAndDeleteAccount,
  getDeletionCheck,
  startDeletionReauth,
} from '#app/features/identity/account-deletion.server.ts'
import { AccountCard } from '#app/features/identity/components/account-form.tsx'
import { ProviderButtons } from '#app/features/identity/components/provider-buttons.tsx'
import { PasswordField } from '#app/features/identity/components/credential-fields.tsx'
import {
  listSignInProviders,
  providerErrorMessage,
  providerStartFailure,
} from '#app/features/identity/providers.server.ts'
import { requireUser } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { passOnRetryAfter } from '#app/sign-in.server.ts'
import type { Route } from './+types/account-delete'
import { privatePageMeta } from '#app/features/seo/meta.ts'
import { BreakableToken } from '#app/components/ui/breakable-token.tsx'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Delete my account', 'Delete your CodeBook account and everything it holds.', { matches })

export const headers: Route.HeadersFunction = passOnRetryAfter

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await requireUser({ request, context, url: new URL(request.url) })
  const app = getAppContext(context)
  const check = await getDeletionCheck(app, { request, userId: user.id })
  const providers = listSignInProviders(app).filter((provider) => check.providers.includes(provider.id))
  return {
    email: user.email,
    hasPassword: check.hasPassword,
    signedInRecently: check.signedInRecently,
    providers,
    providerError: providerErrorMessage(new URL(request.url).searchParams.get('error')),
  }
}

type ActionData = { fieldErrors?: { password?: string }; formError?: string }

export async function action({ request, context }: Route.ActionArgs) {
  const user = await requireUser({ request, context, url: new URL(request.url) })
  const app = getAppContext(context)
  const form = await readForm(request)
  if (form.get('intent') === 'reauth') {
    const started = await startDeletionReauth({ request, context }, form)
    return started.ok ? started.response : providerStartFailure(started)
  }
  const result = await confirmAndDeleteAccount(app, { request, userId: user.id, email: user.email, form })
  if (!result.ok) {
    const body: ActionData = { fieldErrors: result.fieldErrors, formError: result.formError }
    const retry = result.retryAfterSeconds ? { 'Retry-After': String(result.retryAfterSeconds) } : undefined
    return data(body, { status: result.status, headers: retry })
  }
  // Signed out: the cookies are cleared as the browser lands on the login page.
  return redirect('/login?deleted=1', { status: 303, headers: result.headers })
}

export default function DeleteAccount({ loaderData, actionData }: Route.ComponentProps) {
  const { email, hasPassword, signedInRecently, providers, providerError } = loaderData
  const navigation = useNavigation()
  const deleting = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'delete'
  const canConfirm = hasPassword || signedInRecently
  const formError = actionData?.formError ?? providerError
  return (
    <AccountCard title="Delete my account">
      <div className="flex flex-col gap-4 text-sm">
        <p>
          This deletes the account{' '}
          <strong>
            <BreakableToken>{email}</BreakableToken>
          </strong>
          : your sign-in details, cart, library and profile. You will no longer be able to download the books
          you bought.
        </p>
        <p>
          Your orders are kept for our accounts, without your email address. We send a confirmation to your
          email. Before you go, you can{' '}
          <a
            href="/account/export.json"
            download
            className="font-medium text-blue-700 underline dark:text-sky-300"
          >
            download your data
          </a>
          .
        </p>
        {formError ? (
          <p
            role="alert"
            className="rounded-lg border border-red-300 bg-red-50 p-3 text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
          >
            {formError}
          </p>
        ) : null}
        {canConfirm ? (
          <Form method="post" className="flex flex-col gap-4">
            <input type="hidden" name="intent" value="delete" />
            {hasPassword ? (
              <PasswordField
                kind="current"
                hint="Your password confirms it is you."
                error={actionData?.fieldErrors?.password}
              />
            ) : (
              <p>You signed in a moment ago, which confirms it is you.</p>
            )}
            <button
              type="submit"
              className={`${dangerButton} py-2.5 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 dark:focus-visible:outline-red-300`}
              disabled={deleting}
              aria-busy={deleting}
            >
              {deleting ? 'Deleting…' : 'Delete my account'}
            </button>
          </Form>
        ) : (
          <p>To confirm it is you, sign in again with your provider. You then have 10 minutes to delete.</p>
        )}
        {!hasPassword && !signedInRecently ? (
          <ProviderButtons
            providers={providers}
            action="/account/delete"
            redirectTo={undefined}
            intent="reauth"
            verb="Sign in again with"
          />
        ) : null}
        <p className="text-center">
          <Link to="/" className="font-medium text-blue-700 underline dark:text-sky-300">
            Keep my account
          </Link>
        </p>
      </div>
    </AccountCard>
  )
}
