import { Link, redirect } from 'react-router'
import { register } from '#app/features/identity/account.server.ts'
import { AccountCard, AccountForm } from '#app/features/identity/components/account-form.tsx'
import { EmailField, PasswordField } from '#app/features/identity/components/credential-fields.tsx'
import { getSessionUser } from '#app/features/identity/session.server.ts'
import { getAppContext } from '#app/server/context.server.ts'
import { readForm } from '#app/server/form.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import { accountFailure, passOnRetryAfter, signedInRedirect } from '#app/sign-in.server.ts'
import type { Route } from './+types/register'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Register', 'Create a CodeBook account to buy and download eBooks.', { matches })

export async function loader({ request, context }: Route.LoaderArgs) {
  const user = await getSessionUser({ request, context })
  const redirectTo = safeRedirectPath(new URL(request.url).searchParams.get('redirectTo'), '') || undefined
  if (user && !user.isGuest) throw redirect(redirectTo ?? '/')
  return { redirectTo, isGuest: Boolean(user?.isGuest) }
}

export const headers: Route.HeadersFunction = passOnRetryAfter

/** Registering signs the visitor in and lands them on `/` (or where they were going); a guest's cart comes along. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request)
  const result = await register({ request, context }, form)
  if (!result.ok) return accountFailure(result, form.get('email'))
  return signedInRedirect(request, getAppContext(context), { result, redirectTo: form.get('redirectTo') })
}

export default function Register({ loaderData, actionData }: Route.ComponentProps) {
  const { redirectTo, isGuest } = loaderData
  const loginHref = redirectTo ? `/login?${new URLSearchParams({ redirectTo })}` : '/login'
  return (
    <AccountCard title="Register">
      {isGuest ? (
        <p className="mb-5 text-sm text-slate-700 dark:text-slate-300">
          You are shopping as a guest. Register to keep your cart and buy eBooks.
        </p>
      ) : null}
      <AccountForm
        action="/Register"
        actionData={actionData}
        submitLabel="Register"
        pendingLabel="Creating your account…"
        redirectTo={redirectTo}
      >
        <EmailField
          autoComplete="email"
          defaultValue={actionData?.email}
          error={actionData?.fieldErrors?.email}
        />
        <PasswordField kind="new" error={actionData?.fieldErrors?.password} />
      </AccountForm>
      <p className="mt-6 text-center text-sm">
        Already registered?{' '}
        <Link to={loginHref} className="font-medium text-blue-700 underline dark:text-sky-300">
          Login
        </Link>
      </p>
    </AccountCard>
  )
}
