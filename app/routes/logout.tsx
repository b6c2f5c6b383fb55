import { data, Form, Link, redirect } from 'react-router'
import { primaryButton } from '#app/components/ui/button-styles.ts'
import { logOut } from '#app/features/identity/account.server.ts'
import { AccountCard } from '#app/features/identity/components/account-form.tsx'
import { useOptionalUser } from '#app/features/identity/use-user.ts'
import { readForm } from '#app/server/form.server.ts'
import { safeRedirectPath } from '#app/server/safe-redirect.ts'
import type { Route } from './+types/logout'
import { privatePageMeta } from '#app/features/seo/meta.ts'

export const meta: Route.MetaFunction = ({ matches }) =>
  privatePageMeta('Log out', 'Log out of CodeBook.', { matches })

/**
 * 'Log out' posts here from the person menu: the session is revoked on the server and the visitor stays
 * on the page they were on. If it fails they are told, and remain signed in. A GET changes nothing: it
 * shows the button (and is where a failed logout without JavaScript lands).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await readForm(request)
  const result = await logOut({ request, context })
  if (!result.ok) return data({ error: result.message }, { status: result.status })
  const headers = new Headers()
  for (const cookie of result.setCookies) headers.append('Set-Cookie', cookie)
  return redirect(safeRedirectPath(form.get('redirectTo')), { status: 303, headers })
}

export default function Logout({ actionData }: Route.ComponentProps) {
  const user = useOptionalUser()
  return (
    <AccountCard title="Log out">
      {actionData?.error ? (
        <p
          role="alert"
          className="mb-5 rounded-lg border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {actionData.error}
        </p>
      ) : null}
      {user ? (
        <Form method="post" action="/logout" className="flex flex-col gap-4">
          <p className="text-sm">Signed in as {user.isGuest ? 'a guest' : user.email}.</p>
          <button type="submit" className={primaryButton}>
            Log out
          </button>
        </Form>
      ) : (
        <p className="text-center text-sm">
          You are not signed in.{' '}
          <Link to="/login" className="font-medium text-blue-700 underline dark:text-sky-300">
            Login
          </Link>
        </p>
      )}
    </AccountCard>
  )
}
