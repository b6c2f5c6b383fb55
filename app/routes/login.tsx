import { Form, Link, redirect, useNavigation } from 'react-router'
import { logIn, startGuestSession } from '#app/features/identity/account.server.ts'
import { accountMessages } from '#app/features/identity/account-forms.ts'
import { AccountCard, AccountForm } from '#app/features/identity/components/account-form.tsx'
import { linkClass, Notice } from '#app/features/identity/components/account-notice.tsx'
import { ProviderButtons } from '#app/features/identity/components/provider-buttons.tsx'
import { EmailField, PasswordField } from '#app/features/identity/components/credential-fields.tsx'
import {
  listSignInProviders,
  providerErrorMessage,
  providerStartFailure,
  startProviderSignIn,
} from '#app/features/identity/providers.server.ts'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import { accountFailure, passOnRetryAfter, signedInRedirect } from '#app/sign-in.server.ts'
import type { Route } from './+types/login'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Login', 'Log in to your CodeBook account.', { matches })

/** Where to go after logging in: a same-site path from ?redirectTo=, or the home page. */
function redirectTarget(request: Request): string | undefined {
  const value = new URL(request.url).searchParams.get('redirectTo')
  const safe = safeRedirectPath(value, '')
  return safe || undefined
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await getSessionUser({ request, context })
  const redirectTo = redirectTarget(request)
  // Already signed in to an account: nothing to do here. A guest may log in (their cart comes along).
  if (user && !user.isGuest) throw redirect(redirectTo ?? '/')
  const search = new URL(request.url).searchParams
  return {
    redirectTo,
    isGuest: Boolean(user?.isGuest),
    passwordReset: search.has('passwordReset'),
    providers: listSignInProviders(getAppContext(context)),
    // A provider sent the visitor back with ?error= (consent denied, an email we would not link, …).
    providerError: providerErrorMessage(search.get('error')),
    deleted: search.get('deleted') === '1',
  }
}

export const headers: Route.HeadersFunction = passOnRetryAfter

export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request)
  const visit = { request, context }
  if (form.get('intent') === 'provider') {
    const started = await startProviderSignIn(visit, form)
    return started.ok ? started.response : providerStartFailure(started)
  }
  const result = form.get('intent') === 'guest' ? await startGuestSession(visit) : await logIn(visit, form)
  if (!result.ok) return accountFailure(result, form.get('email'))
  return signedInRedirect(request, getAppContext(context), { result, redirectTo: form.get('redirectTo') })
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const { redirectTo, isGuest, passwordReset, providers, providerError, deleted } = loaderData
  const navigation = useNavigation()
  const startingGuest = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'guest'
  const registerHref = redirectTo ? `/Register?${new URLSearchParams({ redirectTo })}` : '/Register'
  return (
    <AccountCard title="Login">
      {passwordReset && !actionData ? (
        <div className="mb-5">
          <Notice>{accountMessages.passwordReset}</Notice>
        </div>
      ) : null}
      {deleted ? (
        <p
          role="status"
          className="mb-5 rounded-lg border border-green-300 bg-green-50 p-3 text-sm text-green-900 dark:border-green-800 dark:bg-green-950 dark:text-green-100"
        >
          Your account has been deleted. A confirmation is on its way to your email.
        </p>
      ) : null}
      {providerError && !actionData ? (
        <p
          role="alert"
          className="mb-5 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {providerError}
        </p>
      ) : null}
      <AccountForm
        action="/login"
        actionData={actionData}
        submitLabel="Login"
        pendingLabel="Logging in…"
        redirectTo={redirectTo}
      >
        <EmailField
          autoComplete="username"
          defaultValue={actionData?.email}
          error={actionData?.fieldErrors?.email}
        />
        <PasswordField kind="current" error={actionData?.fieldErrors?.password} />
        <Link to="/forgot-password" className={`${linkClass} -mt-3 self-end text-sm`}>
          Forgot password?
        </Link>
      </AccountForm>
      <ProviderButtons providers={providers} action="/login" redirectTo={redirectTo} />
      {isGuest ? null : (
        <Form method="post" action="/login" className="mt-3 flex flex-col">
          <input type="hidden" name="intent" value="guest" />
          {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
          <button
            type="submit"
            disabled={startingGuest}
            aria-busy={startingGuest}
            className="inline-flex items-center justify-center rounded-lg border border-slate-400 px-4 py-2.5 text-sm font-medium hover:bg-slate-100 disabled:opacity-60 dark:border-gray-500 dark:hover:bg-gray-800"
          >
            {startingGuest ? 'Starting guest session…' : 'Login as guest'}
          </button>
        </Form>
      )}
      <p className="mt-6 text-center text-sm">
        No account yet?{' '}
        <Link to={registerHref} className="font-medium text-blue-700 underline dark:text-sky-300">
          Register
        </Link>
      </p>
    </AccountCard>
  )
}
